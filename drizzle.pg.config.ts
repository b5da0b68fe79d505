import { defineConfig } from 'drizzle-kit';

/** The PostgreSQL engine's migrations (`npm run db:generate` regenerates them with SQLite's). */
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/pg/schema/index.ts',
  out: './db/pg/migrations',
  dbCredentials: { url: process.env.DATABASE_URL ?? 'postgres://localhost/payments' },
});
