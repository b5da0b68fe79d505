import Database from 'better-sqlite3';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { drizzleOver } from '../db/client';
import { storesOver } from '../db/stores';
import { auditBooks, lastLedgerEntry, type AuditReport } from '../server/domain/audit';

/** What backup, restore and audit tell the person running them: one clear line, then exit 1. */
export class CommandError extends Error {}

const SQLITE_HEADER = 'SQLite format 3\0';

/** Refuses a path that is missing or is not an SQLite database, before anything opens it. */
export function requireDatabaseFile(path: string, what: string): void {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new CommandError(`${what} ${path} is not a file`);
    size = st.size;
  } catch (err) {
    if (err instanceof CommandError) throw err;
    throw new CommandError(`${what} ${path} does not exist or cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const header = Buffer.alloc(16);
  const fd = openSync(path, 'r');
  try { readSync(fd, header, 0, 16, 0); } finally { closeSync(fd); }
  if (size < 512 || header.toString('latin1') !== SQLITE_HEADER) throw new CommandError(`${what} ${path} is not an SQLite database`);
}

export interface Verification { report: AuditReport; lastEntry: { id: string; kind: string; createdAt: string } | null; bytes: number }

/** integrity_check, then the ledger audit, on an open connection (a copy, or the live file read-only). */
export async function verifyDatabase(conn: Database.Database, path: string): Promise<Verification> {
  let integrity: string[];
  try {
    integrity = (conn.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
  } catch (err) {
    throw new CommandError(`${path} cannot be checked: ${(err as Error).message}`);
  }
  if (integrity.length !== 1 || integrity[0] !== 'ok') throw new CommandError(`${path} fails integrity_check: ${integrity.slice(0, 3).join('; ')}`);
  const hasLedger = conn.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'ledger_entries'`).get();
  if (!hasLedger) throw new CommandError(`${path} is an SQLite database but not this service's (no ledger)`);
  const db = storesOver(drizzleOver(conn));
  return { report: await auditBooks(db), lastEntry: await lastLedgerEntry(db), bytes: statSync(path).size };
}

/**
 * Checks a fresh copy made by the backup API: made standalone first (one file, no -wal beside it),
 * then integrity_check and the audit. `label` names it in messages.
 */
export async function verifyCopy(copyPath: string, label: string): Promise<Verification> {
  const copy = new Database(copyPath);
  try {
    copy.pragma('journal_mode = DELETE');
    return await verifyDatabase(copy, label);
  } finally {
    copy.close();
  }
}

export function humanBytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = n;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
}

/** `--name value` from argv (npm passes what follows `--`). */
export function option(argv: string[], name: string): string | null {
  const i = argv.indexOf(`--${name}`);
  if (i >= 0) return argv[i + 1] && !argv[i + 1].startsWith('--') ? argv[i + 1] : '';
  const eq = argv.find((a) => a.startsWith(`--${name}=`));
  return eq ? eq.slice(name.length + 3) : null;
}

/** Runs a command's body: a CommandError (or anything else) becomes one line on stderr and exit 1. */
export async function runCommand(name: string, body: () => Promise<void> | void): Promise<void> {
  // a copy of the database is as sensitive as the database: owner-only, like the server's files
  process.umask(0o077);
  try {
    await body();
  } catch (err) {
    const msg = err instanceof Error ? err.message.split('\n')[0] : String(err);
    process.stderr.write(`${name}: ${msg}\n`);
    process.exit(1);
  }
}
