import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shippedMigrations } from '../../db/migration-history';
import { migratePostgres, PG_MIGRATIONS } from '../../db/pg/migrate';
import { startTestPostgres, type ThrowawayPostgres } from '../support/pg';

/** Several instances started at once on an empty PostgreSQL: each migrates, one at a time, and all start. */
let server: ThrowawayPostgres;
beforeAll(async () => { server = await startTestPostgres(); });
afterAll(async () => { await server?.stop(); });

describe('migratePostgres', () => {
  it('run by 4 instances at once on an empty database: every one succeeds, the migrations are applied once', async () => {
    const results = await Promise.allSettled(Array.from({ length: 4 }, () => migratePostgres(server.url)));
    expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toEqual(['ok', 'ok', 'ok', 'ok']);
    const sql = postgres(server.url, { max: 1, onnotice: () => {} });
    try {
      const applied = await sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`;
      // (every migration once; the count followed the first release's two until 0002 was appended)
      expect(applied[0].n).toBe(shippedMigrations(PG_MIGRATIONS).length);
      // and nothing is left locked behind them
      const locks = await sql`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory'`;
      expect(locks[0].n).toBe(0);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });
});
