/**
 * `npx tsx scripts/throwaway-postgres.ts`: starts a throwaway PostgreSQL (scripts/lib/throwaway-postgres.ts), migrates
 * it, prints `DATABASE_URL=…` and keeps it until Ctrl-C, then removes it. The building block of
 * `npm run cluster`; handy on its own to point a tool at an empty database.
 */
import { migratePostgres } from '../db/pg/migrate';
import { startThrowawayPostgres } from './lib/throwaway-postgres';

const pgServer = await startThrowawayPostgres({ durable: true });
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await pgServer.stop();
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
try {
  await migratePostgres(pgServer.url);
} catch (err) {
  console.error(`migration failed: ${(err as Error).message}`);
  await pgServer.stop();
  process.exit(1);
}
console.log(`DATABASE_URL=${pgServer.url}`);
console.log('PostgreSQL is running on 127.0.0.1 (throwaway; Ctrl-C stops and removes it)');
