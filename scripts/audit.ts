import Database from 'better-sqlite3';
import { engineAtStartOrExit } from '../db/engine';
import { holdSharedUse } from '../db/in-use';
import type { AuditReport } from '../server/domain/audit';
import { CommandError, option, requireDatabaseFile, runCommand, verifyDatabase } from './database-file';

/**
 * `npm run audit [-- --db FILE]`: the ledger audit, read-only, safe while the server runs. On SQLite
 * over DATABASE_PATH (or FILE), after integrity_check; with DATABASE_URL over PostgreSQL, in one
 * read-only snapshot (a consistent view while instances keep writing). Prints each check; exits 1
 * naming the first break.
 */
const engine = await engineAtStartOrExit(process.env);

function print(report: AuditReport, where: string) {
  for (const c of report.checks) process.stdout.write(`${c.ok ? 'ok   ' : 'BREAK'} ${c.name}${c.detail ? `: ${c.detail}` : ''}\n`);
  if (!report.ok) throw new CommandError(`the books do not balance: ${report.firstBreak}`);
  process.stdout.write(`audit: ${where}: the books balance\n`);
}

await runCommand('audit', async () => {
  if (engine.kind === 'postgres') {
    if (option(process.argv.slice(2), 'db')) throw new CommandError('--db names an SQLite file; unset DATABASE_URL to audit one');
    const { openPostgres } = await import('../db/pg/open');
    const { storesOver } = await import('../db/stores');
    const { auditBooks } = await import('../server/domain/audit');
    const pg = openPostgres(engine.url, { max: 1 });
    try {
      print(await storesOver(pg.read).snapshot((db) => auditBooks(db)), engine.where);
    } finally {
      await pg.close();
    }
    return;
  }
  const path = option(process.argv.slice(2), 'db') || engine.path;
  requireDatabaseFile(path, 'database');
  const inUse = holdSharedUse(path);
  const conn = new Database(path, { readonly: true, fileMustExist: true });
  try {
    conn.pragma('busy_timeout = 5000');
    const { report } = await verifyDatabase(conn, path);
    print(report, path);
  } finally {
    conn.close();
    inUse.release();
  }
});
