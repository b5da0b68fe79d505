import { drizzle } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import * as pgSchema from './schema';
import { isoFromPg } from './schema/columns';
import { preparingClient } from './prepare';
import { PgGroupCommitWriter, type PgTx } from './writer';
import type { DrizzleDb } from '../client';
import type { Writer, WriteJob } from '../writer';

/**
 * The PostgreSQL side of `openDatabase` (db/index.ts): one pool for reads and for the writer's
 * transactions. The domain's handle type is SQLite's drizzle database (DrizzleDb); this is the one place
 * the PostgreSQL handle is cast to it — the tables it is given are PostgreSQL's (db/schema picks them),
 * and db/query.ts carries what differs in the calls.
 */
export function openPostgres(url: string, o: { max?: number } = {}) {
  // connect_timeout: a host that drops packets fails a request in 5 s (then 503 + retry-after), not the driver's 30
  const client = postgres(url, { max: o.max ?? 10, connect_timeout: 5, onnotice: () => {}, connection: { TimeZone: 'UTC' } });
  const db = drizzle(preparingClient(client), { schema: pgSchema });
  // Raw rows read as SQLite's do: timestamps as ISO strings, counts and sums (int8, numeric) as numbers
  // (cents stay far below 2^53). drizzle made these parsers transparent; its columns map the same way.
  client.options.parsers[1184] = (v: string) => isoFromPg(v);
  client.options.parsers[20] = Number;
  client.options.parsers[1700] = Number;
  const pgWriter = new PgGroupCommitWriter(db);
  const writer: Writer = {
    // each try of a job gets the transaction of that try (a retried job runs again from the start)
    write: <T>(job: WriteJob<T>) => pgWriter.write(async (tx: PgTx) => job(tx as unknown as DrizzleDb)),
    close: () => pgWriter.close(),
    onCommit: (fn) => pgWriter.onCommit(fn),
    onGroup: (fn) => pgWriter.onGroup(fn),
  };
  return {
    read: db as unknown as DrizzleDb,
    writer,
    stats: pgWriter.stats,
    close: async () => {
      await pgWriter.close();
      await client.end({ timeout: 5 });
    },
  };
}
