import { readFileSync } from 'node:fs';

/**
 * What both engines' start-up needs to know before drizzle's migrator runs. Drizzle applies every
 * migration dated after the database's last one and records each as (hash, created_at = the journal's
 * `when`); it says nothing when the database holds a migration this code does not ship (a newer
 * release ran on it), and its error for a failed statement is the whole statement. The start-up refuses
 * the first and turns the second into one line.
 */

/** Why the database cannot be brought up to this code's migrations; its message is the one line printed. */
export class MigrationError extends Error {
  constructor(message: string, o?: { cause?: unknown }) {
    super(message, o);
    this.name = 'MigrationError';
  }
}

export interface ShippedMigration { tag: string; when: number }

/** The migrations of a folder, in the order its journal lists them (meta/_journal.json, as drizzle reads it). */
export function shippedMigrations(folder: string): ShippedMigration[] {
  const journal = JSON.parse(readFileSync(`${folder}/meta/_journal.json`, 'utf8')) as { entries: ShippedMigration[] };
  return journal.entries.map((e) => ({ tag: e.tag, when: e.when }));
}

/**
 * Refuses a database that holds a migration this code does not ship: a newer release migrated it, and
 * older code would write rows that release's schema or triggers do not expect. Returns the migrations
 * still to apply (dated after the database's last, as drizzle chooses them).
 */
export function pendingAfter(applied: readonly { createdAt: number }[], shipped: readonly ShippedMigration[]): ShippedMigration[] {
  const known = new Set(shipped.map((m) => m.when));
  const unknown = applied.filter((a) => !known.has(a.createdAt)).sort((a, b) => b.createdAt - a.createdAt);
  if (unknown.length) {
    const ours = shipped[shipped.length - 1];
    const newest = unknown[0].createdAt;
    const which = `migration dated ${new Date(newest).toISOString()}${unknown.length > 1 ? ` and ${unknown.length - 1} more` : ''}`;
    throw new MigrationError(ours && newest > ours.when
      ? `the database was migrated by a newer release (${which} is unknown to this code, whose last is ${ours.tag}); run that release or restore a backup`
      : `the database holds a migration no release of this code made (${which}); restore a backup made by this release`);
  }
  const last = applied.reduce((m, a) => Math.max(m, a.createdAt), -Infinity);
  return shipped.filter((m) => m.when > last);
}

/** The one line for a migration run that failed and was rolled back (all pending migrations are one transaction). */
export function migrationFailed(err: unknown, pending: readonly ShippedMigration[]): MigrationError {
  // drizzle wraps the driver's error in "Failed query: <the statement>"; the driver's own message says why
  let cause: unknown = err;
  while (cause instanceof Error && cause.cause instanceof Error) cause = cause.cause;
  const why = String(cause instanceof Error ? cause.message : cause).split('\n')[0];
  const tags = pending.map((m) => m.tag).join(', ') || 'none';
  return new MigrationError(`migrating the database failed, nothing was changed (pending: ${tags}): ${why}`, { cause: err });
}
