import Database from 'better-sqlite3';
import { engineAtStartOrExit } from '../db/engine';
import { chmodSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { holdSharedUse } from '../db/in-use';
import { CommandError, humanBytes, option, requireDatabaseFile, runCommand, verifyCopy } from './database-file';

/**
 * `npm run backup -- --to FILE`: a consistent online copy of DATABASE_PATH through SQLite's backup API
 * (the server may keep running and writing), written beside FILE and moved into place only once it
 * passes integrity_check and the ledger audit. The live database is only ever read.
 */
const PAGES_PER_STEP = 1024;
/** The backup API restarts when another process writes; after this many restarts it copies in one step. */
const RESTARTS_BEFORE_ONE_STEP = 3;

// these commands work on the SQLite file; with DATABASE_URL they stop rather than touch DATABASE_PATH
await engineAtStartOrExit();
await runCommand('backup', async () => {
  const argv = process.argv.slice(2);
  const to = option(argv, 'to');
  if (!to) throw new CommandError('say where: npm run backup -- --to FILE');
  const source = process.env.DATABASE_PATH || './data/payments.db';
  requireDatabaseFile(source, 'database');
  const target = resolve(to);
  if (resolve(source) === target) throw new CommandError('--to names the live database itself');
  if (existsSync(target) && statSync(target).isDirectory()) throw new CommandError(`${target} is a directory; name a file`);
  if (!existsSync(dirname(target))) throw new CommandError(`cannot write ${target}: directory ${dirname(target)} does not exist`);
  const partial = `${target}.partial-${process.pid}`;

  const inUse = holdSharedUse(source);
  const src = new Database(source, { readonly: true, fileMustExist: true });
  src.pragma('busy_timeout = 5000');
  const tty = process.stderr.isTTY;
  try {
    let restarts = 0;
    let lastRemaining = Infinity;
    try {
      await src.backup(partial, {
        progress({ totalPages, remainingPages }) {
          if (remainingPages > lastRemaining) restarts += 1;
          lastRemaining = remainingPages;
          if (tty) {
            const pct = totalPages ? Math.floor(((totalPages - remainingPages) / totalPages) * 100) : 100;
            process.stderr.write(`\r  copying ${pct}% (${totalPages - remainingPages}/${totalPages} pages)${restarts ? `, restarted ${restarts}x by writes` : ''}   `);
          }
          return restarts >= RESTARTS_BEFORE_ONE_STEP ? totalPages : PAGES_PER_STEP;
        },
      });
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      throw new CommandError(`cannot write ${target}: ${e.code ?? ''} ${e.message}`.replace(/\s+/g, ' ').trim());
    }
    if (tty) process.stderr.write('\r  copied 100%, verifying…' + ' '.repeat(30) + '\n');

    const verified = verifyCopy(partial, partial);
    if (!verified.report.ok) throw new CommandError(`the copy fails the ledger audit (${verified.report.firstBreak}); nothing written`);
    chmodSync(partial, 0o600);
    renameSync(partial, target);
    const last = verified.lastEntry;
    process.stdout.write(`backup: ${target}: ${humanBytes(statSync(target).size)}, integrity ok, books balance; `
      + `last committed entry ${last ? `${last.id} (${last.kind}) at ${last.createdAt}` : 'none (empty ledger)'}\n`);
  } finally {
    src.close();
    inUse.release();
    rmSync(partial, { force: true });
    rmSync(`${partial}-journal`, { force: true });
  }
});
