import Database from 'better-sqlite3';
import { engineAtStartOrExit } from '../db/engine';
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { DatabaseInUseError, holdExclusiveUse } from '../db/in-use';
import { CommandError, humanBytes, option, requireDatabaseFile, runCommand, verifyCopy } from './database-file';

/**
 * `npm run restore -- --from FILE`: replaces DATABASE_PATH with a verified copy of FILE. Refused while
 * any process uses the database (the in-use lock every server, worker and command holds), and refused
 * for a file that is not an SQLite database, fails integrity_check or fails the ledger audit; in every
 * refusal the live database is left as it was. The replaced database is kept beside it.
 */
// these commands work on the SQLite file; with DATABASE_URL they stop rather than touch DATABASE_PATH
await engineAtStartOrExit();
await runCommand('restore', async () => {
  const from = option(process.argv.slice(2), 'from');
  if (!from) throw new CommandError('say what: npm run restore -- --from FILE');
  const target = resolve(process.env.DATABASE_PATH || './data/payments.db');
  const source = resolve(from);
  if (source === target) throw new CommandError('--from names the live database itself');
  requireDatabaseFile(source, 'backup');
  mkdirSync(dirname(target), { recursive: true });

  let lock;
  try {
    lock = holdExclusiveUse(target);
  } catch (err) {
    if (err instanceof DatabaseInUseError) throw new CommandError(`refusing to restore: ${err.message}`);
    throw err;
  }
  const staging = `${target}.restoring-${process.pid}`;
  try {
    // copy first, check the copy: the backup file itself is only read
    const src = new Database(source, { readonly: true, fileMustExist: true });
    try {
      await src.backup(staging);
    } catch (err) {
      throw new CommandError(`cannot read ${source}: ${(err as Error).message}`);
    } finally {
      src.close();
    }
    const verified = verifyCopy(staging, source);
    if (!verified.report.ok) throw new CommandError(`${source} fails the ledger audit (${verified.report.firstBreak}); nothing restored`);
    chmodSync(staging, 0o600);
    const fd = openSync(staging, 'r+');
    fsyncSync(fd);
    closeSync(fd);

    let kept: string | null = null;
    if (existsSync(target)) {
      // fold the old database's WAL into it before moving it aside, so the kept file is whole
      const old = new Database(target);
      try { old.pragma('wal_checkpoint(TRUNCATE)'); } finally { old.close(); }
      kept = `${target}.replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      renameSync(target, kept);
    }
    // a WAL left beside the target would be replayed into the restored file: remove it first
    rmSync(`${target}-wal`, { force: true });
    rmSync(`${target}-shm`, { force: true });
    renameSync(staging, target);
    const dir = openSync(dirname(target), 'r');
    try { fsyncSync(dir); } finally { closeSync(dir); }

    const last = verified.lastEntry;
    process.stdout.write(`restore: ${target} restored from ${source} (${humanBytes(verified.bytes)}), integrity ok, books balance; `
      + `last entry ${last ? `${last.id} at ${last.createdAt}` : 'none'}${kept ? `; previous database kept as ${kept}` : ''}\n`);
    if (!process.env.SECRETS_KEY && !process.env.SECRETS_KEY_PATH && !existsSync(join(dirname(target), 'secrets.key'))) {
      process.stdout.write(`restore: note: no secrets.key beside ${target}; put the original there (or set SECRETS_KEY) or webhook secrets cannot be read\n`);
    }
  } finally {
    rmSync(staging, { force: true });
    rmSync(`${staging}-journal`, { force: true });
    lock.release();
  }
});
