import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

/**
 * The process's structured log: JSON lines on stdout (pino). Secrets never reach a line, by two
 * guards: redaction of the fields that carry them wherever they are nested, and a last pass over the
 * finished line that masks anything shaped like one of our secrets or a card number (error messages
 * and stacks are free text, so field paths alone cannot promise it).
 */

const SECRET_FIELDS = [
  'authorization', 'cookie', 'set-cookie', 'x-token', 'x-api-key', 'token', 'access_token', 'accessToken',
  'password', 'passwordHash', 'cvv', 'card_number', 'cardNumber', 'secret', 'webhook_secret', 'secretEnc',
  'secret_enc', 'api_key', 'apiKey', 'sessionToken', 'csrfToken',
  // the password change and the postback secret's answer
  'new_password', 'newPassword', 'postback_secret',
];

/** pino redact paths: each secret field at the top level and up to three levels down, plus `card.number`. */
export const REDACT_PATHS: string[] = [
  ...SECRET_FIELDS.flatMap((f) => {
    const k = /^[A-Za-z_]\w*$/.test(f) ? f : `["${f}"]`;
    const dot = k.startsWith('[') ? '' : '.';
    return [k, `*${dot}${k}`, `*.*${dot}${k}`, `*.*.*${dot}${k}`];
  }),
  'card.number', '*.card.number', '*.*.card.number',
];

const CENSOR = '[REDACTED]';

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
    sum += d;
  }
  return sum % 10 === 0;
}

// Prefixes of the secrets this service issues (client token, access token, session, CSRF, webhook secret,
// project key), and bearer credentials in any header-like text.
const SECRET_SHAPES = /\b(sk|at|ses|csrf|whsec|pk)_[A-Za-z0-9_\-+/=]{12,}/g;
const BEARER = /(bearer\s+)[^\s"',]+/gi;
// card numbers start 2–6 (Mastercard 2/5, Amex 3, Visa 4, Discover/Elo 6); with the Luhn check this
// spares most ordinary long numbers (epoch milliseconds start with 1)
const CARD_LIKE = /(?<![\d])[2-6](?:[ -]?\d){11,17}\d(?![\d])/g;

/** Masks secret-shaped text in a finished log line (also exported for the redaction test). */
export function scrubSecrets(line: string): string {
  return line
    .replace(SECRET_SHAPES, (_m, p: string) => `${p}_${CENSOR}`)
    .replace(BEARER, (_m, p: string) => `${p}${CENSOR}`)
    .replace(CARD_LIKE, (m) => {
      const digits = m.replace(/[ -]/g, '');
      return digits.length >= 13 && digits.length <= 19 && luhnValid(digits) ? CENSOR : m;
    });
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function levelFromEnv(): string {
  const raw = (process.env.LOG_LEVEL ?? '').trim().toLowerCase();
  if (!raw) return 'info';
  if (!LEVELS.includes(raw)) throw new Error(`LOG_LEVEL must be one of ${LEVELS.join(', ')}, got "${raw}"`);
  return raw;
}

function prettyInstalled(): boolean {
  try {
    createRequire(import.meta.url).resolve('pino-pretty');
    return true;
  } catch {
    return false;
  }
}

export function createLogger(o: { level?: string; pretty?: boolean; destination?: DestinationStream } = {}): Logger {
  const options: LoggerOptions = {
    level: o.level ?? levelFromEnv(),
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACT_PATHS, censor: CENSOR },
    serializers: { err: pino.stdSerializers.err },
    hooks: { streamWrite: scrubSecrets },
  };
  // pino-pretty is a dev dependency: `npm run dev` uses it when installed, production never needs it
  if (o.pretty && !o.destination && prettyInstalled()) {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' } } });
  }
  return pino(options, o.destination ?? bufferedStdout());
}

/** Lines gather up to this many bytes before one write to stdout (about 15 request lines). */
const LOG_BUFFER_BYTES = 4096;
/** How often the buffer is flushed; a line waits at most about this long (twice, behind a slow write). */
const LOG_FLUSH_MS = 100;
const URGENT = /^\{"level":"(warn|error|fatal)"/;

/**
 * stdout, written in batches. One write per line cost a withdrawal 12 % of its CPU and a GET 7 %
 * (`npm run bench:ab`): each is a write on libuv's pool and a wake-up of whoever reads the pipe.
 * Warnings and errors leave at once with what is queued before them (behind a write still in flight,
 * at the next tick); the rest waits for the next tick of LOG_FLUSH_MS. pino flushes the buffer
 * synchronously when the process exits, so only a SIGKILL (or the power) can lose the last moment's
 * info lines; the database, not the log, is the record of money.
 */
function bufferedStdout(): DestinationStream & { flush(): void } {
  // sonic-boom's own timer, not one of ours: a flush asked for while a write is in flight does nothing,
  // so only a timer that asks again on every tick can promise that a queued line leaves
  const out = pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES, periodicFlush: LOG_FLUSH_MS });
  return {
    write(line: string) {
      out.write(line);
      if (URGENT.test(line)) out.flush();
    },
    flush: () => out.flush(),
  };
}

/** The process's logger; `configureLogging` replaces it once at start (pretty in dev). */
export let log: Logger = createLogger({ level: LEVELS.includes(process.env.LOG_LEVEL ?? '') ? process.env.LOG_LEVEL : 'info' });

export function configureLogging(o: { pretty?: boolean } = {}): Logger {
  log = createLogger({ pretty: o.pretty });
  return log;
}

let accessLog: { of: Logger; child: Logger } | null = null;

/**
 * The logger of the one line per request. That line has fixed fields, none of them a secret, so it
 * skips pino's path redaction, which cost about 25 times the rest of writing the line (measured: 226
 * against 9 µs, about 8 % of a withdrawal's CPU); the last pass over the finished line still runs.
 */
export function requestLogger(): Logger {
  if (accessLog?.of !== log) accessLog = { of: log, child: log.child({}, { redact: { paths: [] } }) };
  return accessLog.child;
}
