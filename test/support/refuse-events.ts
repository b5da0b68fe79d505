import { sql } from 'drizzle-orm';
import type { AppDatabase } from '../../db';
import { onPostgres } from '../../db/dialect';
import { rawExec } from '../../db/query';

/**
 * Makes every insert of an event of one of `types` fail with `message`, as a full disk or a bug would,
 * through a trigger the test adds (the code under test is untouched): SQLite's RAISE(ABORT) or a
 * PL/pgSQL function on PostgreSQL. Returns the undo.
 */
export async function refuseEvents(db: AppDatabase, types: string[], message: string): Promise<() => Promise<void>> {
  const list = types.map((t) => `'${t.replace(/'/g, "''")}'`).join(',');
  const text = message.replace(/'/g, "''");
  await db.write(async (tx) => {
    if (onPostgres) {
      await rawExec(tx, sql.raw(`CREATE OR REPLACE FUNCTION test_refuse_events() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION '${text}'; END $$`));
      await rawExec(tx, sql.raw(`CREATE TRIGGER test_refuse_events BEFORE INSERT ON events FOR EACH ROW WHEN (NEW.type IN (${list})) EXECUTE FUNCTION test_refuse_events()`));
    } else {
      await rawExec(tx, sql.raw(`CREATE TRIGGER test_refuse_events BEFORE INSERT ON events WHEN NEW.type IN (${list}) BEGIN SELECT RAISE(ABORT, '${text}'); END`));
    }
  });
  return () => db.write(async (tx) => {
    await rawExec(tx, sql.raw(onPostgres ? 'DROP TRIGGER test_refuse_events ON events' : 'DROP TRIGGER test_refuse_events'));
  });
}
