import postgres from 'postgres';

/** The channel db/pg/sql/triggers.sql's notify_work() notifies, with the changed table's name as payload. */
export const WORK_CHANNEL = 'pix_work';

const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 5_000;

/**
 * A commit wakes the other instances (instances are stateless, so work one commits must reach the
 * others without waiting for their poll): one dedicated connection per
 * process LISTENs on pix_work, and `onWork(table)` is called for each notification, with the name of the
 * table whose rows changed (events, deliveries, withdrawal_batches, refunds). A notification sent while
 * the connection was down is lost, so on every (re)connect `onWork(null)` says "wake everything".
 *
 * The connection is postgres.js's own (max 1, no idle or lifetime limit), with the notifications taken
 * from its `onnotify`. Its reconnect is this file's, not `sql.listen`'s (which re-listens once on close
 * and drops the failure): when the connection ends, LISTEN is tried again after a jittered, growing pause
 * (100 ms doubling up to 5 s) until it succeeds or `close()` is called.
 */
export function listenForWork(url: string, onWork: (table: string | null) => void): { close(): Promise<void> } {
  let closed = false;
  let connecting: Promise<void> | null = null;
  /** The connection closed while a (re)connect was under way: once it is done, connect again. */
  let closedMeanwhile = false;
  let pause: NodeJS.Timeout | null = null;
  let wakePause: (() => void) | null = null;
  const options = {
    max: 1,
    // (no idle timeout is postgres.js's default; no lifetime limit either: the connection stays)
    max_lifetime: null,
    fetch_types: false,
    onnotice: () => {},
    connection: { application_name: 'pix-work-listener' },
    // (postgres.js passes it to its connections; its types only know it through sql.listen)
    onnotify(channel: string, payload: string) {
      if (channel === WORK_CHANNEL && !closed) onWork(payload || null);
    },
    onclose() {
      if (closed) return;
      if (connecting) closedMeanwhile = true;
      else connect();
    },
  };
  const sql = postgres(url, options as postgres.Options<Record<string, never>>);

  function connect(): void {
    if (closed || connecting) return;
    connecting = (async () => {
      for (let attempt = 0; !closed; attempt++) {
        closedMeanwhile = false;
        try {
          await sql`LISTEN pix_work`;
          if (closed) return;
          // anything sent while nobody listened is gone: every loop looks again
          onWork(null);
          return;
        } catch {
          if (closed) return;
          const ceiling = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** attempt);
          await new Promise<void>((resolve) => {
            wakePause = resolve;
            pause = setTimeout(resolve, ceiling / 2 + Math.random() * ceiling / 2);
            pause.unref();
          });
          pause = null;
          wakePause = null;
        }
      }
    })().finally(() => {
      connecting = null;
      if (closedMeanwhile && !closed) {
        closedMeanwhile = false;
        connect();
      }
    });
  }

  connect();
  return {
    async close() {
      if (closed) return;
      closed = true;
      if (pause) clearTimeout(pause);
      wakePause?.();
      await connecting?.catch(() => {});
      await sql.end({ timeout: 1 }).catch(() => {});
    },
  };
}
