import { parseTrustedProxies, type TrustedProxies } from './http/client-address';

/** Configuration from the environment; every variable has a working default (docs/operations.md lists them). */
export interface Config {
  port: number;
  host: string;
  databasePath: string;
  sandbox: boolean;
  sandboxSettlementDelayMs: number;
  /** SANDBOX_RAIL_LATENCY_MS: how long each sandbox rail call takes, as a PSP's network round trip would. */
  sandboxRailLatencyMs: number;
  /**
   * SANDBOX_RAIL_JOURNAL: a directory where the sandbox rail keeps what it paid, one file per batch or refund,
   * shared by every instance on the machine, and answers a repeat by it (a PSP honours the idempotency key);
   * `npm run chaos` reads it to prove nothing was paid twice. Unset (the default): no journal.
   */
  sandboxRailJournal: string | null;
  pixMaxBatchCents: number;
  pixExpiresSeconds: number;
  webhookAllowPrivateUrls: boolean;
  webhookRetryScheduleSeconds: number[];
  webhookTimeoutMs: number;
  /** WEBHOOK_CONNECT_TIMEOUT_MS: a delivery whose TCP (and TLS) connection is not up by then fails. */
  webhookConnectTimeoutMs: number;
  /** WEBHOOK_HEADERS_TIMEOUT_MS: a delivery whose receiver has not sent its status line and headers by then fails. */
  webhookHeadersTimeoutMs: number;
  /** WEBHOOK_MAX_IN_FLIGHT: deliveries one process sends at once, across every account. */
  webhookMaxInFlight: number;
  /** WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT: of those, at most this many of one account. */
  webhookMaxInFlightPerAccount: number;
  /** WEBHOOK_MAX_IN_FLIGHT_PER_HOST: of those, at most this many to one destination host (host:port). */
  webhookMaxInFlightPerHost: number;
  rateLimitRps: number;
  /** Runs the event dispatcher inside the server (false when `npm run worker` does it). */
  runDispatcher: boolean;
  /** How often background loops look for due rows when nothing woke them. */
  jobPollMs: number;
  /**
   * JOB_LEASE_MS: how long a claimed batch or refund stays out of the other instances' reach while its
   * instance asks the rail; longer than a rail call, so a live instance is never second-guessed, and the
   * wait before a dead instance's claims are taken over.
   */
  jobLeaseMs: number;
  /**
   * JOB_AFFINITY_MS: a withdrawal batch is settled by the instance that created it (or last claimed it), so
   * that its settlement shares that instance's write groups, which already hold the merchant's books;
   * another instance takes it only once it has been due this long (that instance is busy, stopped or gone).
   * Without it, every instance's settlement pass claimed a share of one busy merchant's batches and wrote
   * them in small groups of its own, which took turns with the creating instance's groups (measured: two
   * instances served 0.5× one). 10 s by default: under load the creating instance's settlement runs up to a
   * few seconds behind, and at 2 s another instance still took about half of one hot merchant's batches; a
   * third of the lease, so a stopped instance's work waits little longer than its claims do. Events keep the
   * same affinity (server/jobs/delivery.ts). 0 turns the affinity off.
   */
  jobAffinityMs: number;
  secretsKeyPath: string | null;
  /**
   * PIX_SIGNING_KEY_PATH: the PEM file of the RSA key that signs API Pix payloads (created there if
   * absent); by default pix-signing-key.pem beside the secrets key. PIX_SIGNING_KEY (the PEM itself) wins.
   */
  pixSigningKeyPath: string | null;
  /** PIX_SIGNING_CERT_PATH: that key's certificate chain (PEM, leaf first), published in the JWKS (x5c) when set. */
  pixSigningCertPath: string | null;
  /**
   * PIX_PUBLIC_BASE: the host (and optional path) where payers' banks reach this service over https, without
   * the scheme, e.g. `pix.example.com`. Dynamic BR Codes carry `{base}/qr/v2/{token}` (a cob) or
   * `{base}/qr/v2/cobv/{token}` (a cobv), and the payloads' `jku` is `https://{base}/qr/v2/jwks`. The default
   * is the listening address, good for the sandbox only. At most 37 characters (the location URL fits 77).
   */
  pixPublicBase: string;
  merchantCity: string;
  production: boolean;
  dev: boolean;
  /** COOKIE_SECURE=true marks the session cookie Secure even on plain http; it is Secure over https regardless. */
  cookieSecure: boolean | null;
  /** TRUSTED_PROXIES: the proxies whose X-Forwarded-For / X-Forwarded-Proto are believed (none by default). */
  trustedProxies: TrustedProxies;
  /** METRICS_TOKEN: the bearer token GET /metrics requires on the main port (null: refused there). */
  metricsToken: string | null;
  /** METRICS_PORT: also serve /metrics without a token on 127.0.0.1:<port> (null: not served). */
  metricsPort: number | null;
  /** SHUTDOWN_DRAIN_MS: after SIGTERM, how long /readyz answers 503 while the server still accepts. */
  shutdownDrainMs: number;
  /** HEADERS_TIMEOUT_MS: a request's head must have arrived this long after it began, or 408 and the connection closes. */
  headersTimeoutMs: number;
  /** REQUEST_TIMEOUT_MS: the whole request, body included, likewise (≥ the headers timeout). */
  requestTimeoutMs: number;
  /** MAX_CONNECTIONS: open connections in total; past it a new one is answered 503 (server/http/connections.ts). */
  maxConnections: number;
  /** MAX_CONNECTIONS_PER_ADDRESS: open connections per client address (IPv6: per /64), trusted proxies exempt; past it 429. */
  maxConnectionsPerAddress: number;
  /** LEDGER_AUDIT_INTERVAL_MS: how often the ledger audit runs in the background for /readyz. */
  ledgerAuditIntervalMs: number;
}

function int(name: string, def: number, min = 0): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`${name} must be an integer ≥ ${min}, got "${raw}"`);
  return n;
}

function bool(name: string, def: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  if (['true', '1', 'yes'].includes(raw.toLowerCase())) return true;
  if (['false', '0', 'no'].includes(raw.toLowerCase())) return false;
  throw new Error(`${name} must be true or false, got "${raw}"`);
}

function schedule(name: string, def: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def;
  const parts = raw.split(',').map((s) => Number(s.trim()));
  if (!parts.length || parts.some((n) => !Number.isFinite(n) || n < 0)) {
    throw new Error(`${name} must be comma-separated seconds, got "${raw}"`);
  }
  return parts;
}

function metricsToken(): string | null {
  const raw = process.env.METRICS_TOKEN;
  if (raw === undefined || raw === '') return null;
  // it guards an endpoint on the public port: refuse a guessable one
  if (raw.length < 16 || /\s/.test(raw)) throw new Error('METRICS_TOKEN must be at least 16 characters without spaces');
  return raw;
}

/** The two request timeouts; Node refuses a headers timeout longer than the request timeout, so say so here in its words. */
function requestTimeouts(): { headersTimeoutMs: number; requestTimeoutMs: number } {
  const headersTimeoutMs = int('HEADERS_TIMEOUT_MS', 10_000, 100);
  const requestTimeoutMs = int('REQUEST_TIMEOUT_MS', 30_000, 100);
  if (headersTimeoutMs > requestTimeoutMs) throw new Error(`HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not be longer than REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  return { headersTimeoutMs, requestTimeoutMs };
}

function pixPublicBase(): string {
  const given = process.env.PIX_PUBLIC_BASE?.trim();
  const base = given ? given.replace(/\/+$/, '') : `${process.env.HOST || '127.0.0.1'}:${process.env.PORT || '3000'}`;
  // a location URL is `{base}/qr/v2/cobv/{32 hex}` and field 26-25 of a BR Code holds at most 77 characters
  if (!/^[A-Za-z0-9.:\-]+(\/[A-Za-z0-9._\-]+)*$/.test(base) || base.length > 37) {
    throw new Error(`PIX_PUBLIC_BASE must be a host[:port][/path] without scheme, at most 37 characters (got ${JSON.stringify(base)})`);
  }
  return base;
}

export function loadConfig(overrides: Partial<Config> = {}): Config {
  const production = process.env.NODE_ENV === 'production';
  return {
    port: int('PORT', 3000),
    host: process.env.HOST || '127.0.0.1',
    databasePath: process.env.DATABASE_PATH || './data/payments.db',
    sandbox: bool('SANDBOX', true),
    sandboxSettlementDelayMs: int('SANDBOX_SETTLEMENT_DELAY_MS', 2000),
    sandboxRailLatencyMs: int('SANDBOX_RAIL_LATENCY_MS', 0),
    sandboxRailJournal: process.env.SANDBOX_RAIL_JOURNAL?.trim() || null,
    pixMaxBatchCents: int('PIX_MAX_BATCH_CENTS', 1_500_000, 1),
    pixExpiresSeconds: int('PIX_EXPIRES_SECONDS', 3600, 1),
    webhookAllowPrivateUrls: bool('WEBHOOK_ALLOW_PRIVATE_URLS', false),
    webhookRetryScheduleSeconds: schedule('WEBHOOK_RETRY_SCHEDULE', [0, 5, 300, 1800, 7200, 18000, 36000, 36000]),
    webhookTimeoutMs: int('WEBHOOK_TIMEOUT_MS', 15_000, 1),
    webhookConnectTimeoutMs: int('WEBHOOK_CONNECT_TIMEOUT_MS', 3_000, 1),
    webhookHeadersTimeoutMs: int('WEBHOOK_HEADERS_TIMEOUT_MS', 5_000, 1),
    webhookMaxInFlight: int('WEBHOOK_MAX_IN_FLIGHT', 64, 1),
    webhookMaxInFlightPerAccount: int('WEBHOOK_MAX_IN_FLIGHT_PER_ACCOUNT', 16, 1),
    webhookMaxInFlightPerHost: int('WEBHOOK_MAX_IN_FLIGHT_PER_HOST', 16, 1),
    rateLimitRps: int('RATE_LIMIT_RPS', 100),
    runDispatcher: bool('RUN_DISPATCHER', true),
    jobPollMs: int('JOB_POLL_MS', 250, 10),
    jobLeaseMs: int('JOB_LEASE_MS', 30_000, 100),
    jobAffinityMs: int('JOB_AFFINITY_MS', 10_000, 0),
    secretsKeyPath: process.env.SECRETS_KEY_PATH || null,
    pixSigningKeyPath: process.env.PIX_SIGNING_KEY_PATH || null,
    pixSigningCertPath: process.env.PIX_SIGNING_CERT_PATH || null,
    pixPublicBase: pixPublicBase(),
    merchantCity: process.env.MERCHANT_CITY || 'SAO PAULO',
    production,
    dev: false,
    cookieSecure: process.env.COOKIE_SECURE ? bool('COOKIE_SECURE', false) : null,
    trustedProxies: parseTrustedProxies(process.env.TRUSTED_PROXIES),
    metricsToken: metricsToken(),
    metricsPort: process.env.METRICS_PORT ? int('METRICS_PORT', 0) : null,
    shutdownDrainMs: int('SHUTDOWN_DRAIN_MS', production ? 5_000 : 0),
    ...requestTimeouts(),
    // generous: the bench's 50 connections, a browser's 6 per origin; a proxy is exempt from the per-address cap
    maxConnections: int('MAX_CONNECTIONS', 4_096, 1),
    maxConnectionsPerAddress: int('MAX_CONNECTIONS_PER_ADDRESS', 256, 1),
    ledgerAuditIntervalMs: int('LEDGER_AUDIT_INTERVAL_MS', 60_000, 100),
    ...overrides,
  };
}
