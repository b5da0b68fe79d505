// @engines none: starts a PostgreSQL cluster of its own (runs once)
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestPostgres, type ThrowawayPostgres } from '../support/pg';

/**
 * postgres.js (patches/postgres+3.4.9.patch, porsager/postgres#1119 and #1181): a query that fails after some of
 * its rows arrived left the connection's row count behind, and the next query on that connection resolved with
 * holes where its first rows belonged: `rows[0]` undefined although the row was there. `npm run chaos` found it
 * as a 401 for a valid access token (the bearer lookup read `rows[0]`) right after pg_terminate_backend. Both
 * ways a query can fail mid-stream: an error the server reports and carries on after, and the connection
 * itself ending (a terminated backend, then a reconnect).
 */
let pg: ThrowawayPostgres;
let sql: postgres.Sql;
beforeAll(async () => {
  pg = await startTestPostgres();
  sql = postgres(pg.url, { max: 1, onnotice: () => {} });
}, 120_000);
afterAll(async () => { await sql?.end(); await pg?.stop(); });

it('after a query that errored mid-stream, the next one on the connection gets its rows from index 0', async () => {
  await expect(sql`SELECT i, 1 / (4 - i) AS boom FROM generate_series(1, 10) i`).rejects.toThrow(/division by zero/);
  const next = await sql`SELECT x FROM generate_series(1, 2) x`;
  expect(Object.keys(next)).toEqual(['0', '1']);
  expect(next.map((r) => r.x)).toEqual([1, 2]);
});

it('after the connection ended mid-stream (its backend terminated), the reconnected one answers the next query, its rows from index 0', async () => {
  // unpatched, the next query was failed with the dead connection's error, and the one after it resolved
  // as [ <6 empty items>, {x: 1}, {x: 2} ] (three rows counted from each of two terminated streams)
  for (let round = 0; round < 2; round++) {
    await expect(sql`SELECT i, CASE WHEN i = 3 THEN pg_terminate_backend(pg_backend_pid()) END AS t FROM generate_series(1, 10) i`).rejects.toThrow();
    const next = await sql`SELECT x FROM generate_series(1, 2) x`;
    expect(Object.keys(next)).toEqual(['0', '1']);
    expect(next[0]).toEqual({ x: 1 });
  }
});
