import Database from 'better-sqlite3';
import { engineAtStartOrExit } from '../db/engine';
import { holdSharedUse } from '../db/in-use';
import { CommandError, option, requireDatabaseFile, runCommand, verifyDatabase } from './database-file';

/**
 * `npm run audit [-- --db FILE]`: the ledger audit over DATABASE_PATH (or FILE), read-only, safe while
 * the server runs. Prints each check; exits 1 naming the first break.
 */
// these commands work on the SQLite file; with DATABASE_URL they stop rather than touch DATABASE_PATH
await engineAtStartOrExit();
await runCommand('audit', () => {
  const path = option(process.argv.slice(2), 'db') || process.env.DATABASE_PATH || './data/payments.db';
  requireDatabaseFile(path, 'database');
  const inUse = holdSharedUse(path);
  const conn = new Database(path, { readonly: true, fileMustExist: true });
  try {
    conn.pragma('busy_timeout = 5000');
    const { report } = verifyDatabase(conn, path);
    for (const c of report.checks) process.stdout.write(`${c.ok ? 'ok   ' : 'BREAK'} ${c.name}${c.detail ? `: ${c.detail}` : ''}\n`);
    if (!report.ok) throw new CommandError(`the books do not balance: ${report.firstBreak}`);
    process.stdout.write(`audit: ${path}: the books balance\n`);
  } finally {
    conn.close();
    inUse.release();
  }
});
