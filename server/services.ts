import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { openDatabase, type AppDatabase } from '../db';
import { systemClock, type Clock } from './clock';
import { loadConfig, type Config } from './config';
import { loadMasterKey } from './domain/master-key';
import { loadPixSigningKey } from './domain/pix-signing-key';
import { createPayloadSigner, type PayloadSigner } from './domain/pix-api/jws';
import { openLimits } from '../db/stores/limits';
import type { RateLimits } from '../contract/rate-limits';
import type { Metrics } from './observability/metrics';
import type { Readiness } from './observability/readiness';

/** Everything a procedure or job needs, built once per process (or per test). */
export interface Services {
  config: Config;
  db: AppDatabase;
  clock: Clock;
  masterKey: Buffer;
  /**
   * Signs the API Pix payloads of dynamic QR codes and gives the JWKS to publish. Loaded (the key file
   * created, the first time) on first use rather than at start: generating an RSA key costs about half a
   * second of CPU, which every test server would pay for nothing.
   */
  payloadSigner: () => Promise<PayloadSigner>;
  /** Names this process's claims on background work (`claimed_by`): host/pid/random, unique per Services. */
  instance: string;
  /** Request and credential limits: in memory on SQLite, rows shared by every instance on PostgreSQL. */
  limits: RateLimits;
  /** Background jobs register here to be nudged when new due work is written. */
  wake: { [job: string]: () => void };
  /** Set by the processes that expose them (server/main.ts); absent in tests that do not need them. */
  metrics?: Metrics;
  readiness?: Readiness;
}

/** `db`: an already opened database (a test's own PostgreSQL database); otherwise the configured one. */
export function createServices(opts: { config?: Config; clock?: Clock; db?: AppDatabase } = {}): Services {
  const config = opts.config ?? loadConfig();
  const clock = opts.clock ?? systemClock;
  const db = opts.db ?? openDatabase(config.databasePath);
  const now = () => clock.now().getTime();
  return {
    config,
    db,
    clock,
    masterKey: loadMasterKey(config.databasePath, config.secretsKeyPath),
    payloadSigner: lazyPayloadSigner(config),
    instance: `${hostname()}/${process.pid}/${randomBytes(3).toString('hex')}`,
    limits: openLimits(db.read, config.rateLimitRps, now),
    wake: {},
  };
}

function lazyPayloadSigner(config: Config): () => Promise<PayloadSigner> {
  let signer: Promise<PayloadSigner> | null = null;
  return () => {
    signer ??= loadPixSigningKey({
      databasePath: config.databasePath,
      keyPath: config.pixSigningKeyPath,
      secretsKeyPath: config.secretsKeyPath,
      certPath: config.pixSigningCertPath,
    })
      .then(createPayloadSigner)
      .catch((err: unknown) => {
        signer = null; // a failure is not kept: the next use tries again (and says why again)
        throw err;
      });
    return signer;
  };
}

/**
 * The services as one request sees them: the same everything, except that its write jobs carry the
 * request's id (an event a job records keeps it, and the webhook delivery log shows it).
 */
export function servicesForRequest(s: Services, requestId: string): Services {
  return { ...s, db: { ...s.db, write: writesFor(s.db, requestId) } };
}

// a factory, not an arrow assigned to a property: tsx (esbuild keepNames) would name it on every request
function writesFor(db: Services['db'], requestId: string): Services['db']['write'] {
  return (job) => db.write(job, { requestId });
}

export function wake(s: Services, job: string) {
  s.wake[job]?.();
}
