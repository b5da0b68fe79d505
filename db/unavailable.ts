/**
 * Whether a failure means "the database cannot take this right now" rather than a fault of ours: a
 * write that kept meeting concurrent writes (db/pg/writer.ts gave up retrying it), or a PostgreSQL that
 * is down, restarting or unreachable while the process runs. The edge answers those 503 with
 * retry-after (docs/decisions.md "Engines"; losing the database is a wait for the client, never a 500); the
 * pool reconnects by itself when the database is back. Returns the seconds to wait, or null for any other
 * error.
 */
export function databaseUnavailable(err: unknown): number | null {
  for (let e: unknown = err, i = 0; e && i < 6; e = (e as { cause?: unknown }).cause, i++) {
    if ((e as Error).name === 'WriteContentionError') return (e as { retryAfterSeconds?: number }).retryAfterSeconds ?? 1;
    const code = (e as { code?: unknown }).code;
    if (typeof code !== 'string') continue;
    // SQLSTATE class 08 (connection exception), 57P01-03 (shutdown, crash, not accepting yet), 53300 (too many connections)
    if (/^08[0-9A-Z]{3}$/.test(code) || /^57P0[1-3]$/.test(code) || code === '53300') return 1;
    // the driver's own: postgres.js and node's socket errors
    if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED'].includes(code)) return 1;
  }
  return null;
}
