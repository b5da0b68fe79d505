// The PostgreSQL driver and schema are loaded only when DATABASE_URL asks for them: the SQLite path
// (every command's start-up included) pays nothing for the second engine.

/**
 * Which database engine this process uses, decided once at start from the environment
 * (docs/decisions.md "Engines"): no DATABASE_URL → SQLite at DATABASE_PATH, as always; DATABASE_URL=postgres://… →
 * PostgreSQL 15 or later. A URL that cannot be used stops the process at start with one clear line.
 */
export type Engine = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string; where: string };

/** Why the configured database cannot be used; its message is the one line the process prints. */
export class EngineConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EngineConfigError';
  }
}

/** host:port/database, never the credentials (the message ends up in terminals and logs). */
function where(u: URL): string {
  return `${u.hostname}:${u.port || '5432'}${u.pathname}`;
}

export function chooseEngine(env: Record<string, string | undefined> = process.env): Engine {
  const raw = env.DATABASE_URL?.trim();
  if (!raw) return { kind: 'sqlite', path: env.DATABASE_PATH || './data/payments.db' };
  const shape = 'DATABASE_URL must look like postgres://user:password@host:5432/database';
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new EngineConfigError(`${shape}; the value given is not a URL`);
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw new EngineConfigError(`${shape}; "${u.protocol.replace(/:$/, '')}" is not a supported engine (PostgreSQL only; leave DATABASE_URL unset for SQLite at DATABASE_PATH)`);
  }
  if (!u.hostname) throw new EngineConfigError(`${shape}; it names no host`);
  if (u.port && !(Number(u.port) >= 1 && Number(u.port) <= 65535)) throw new EngineConfigError(`${shape}; port ${u.port} is not a port`);
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!database || database.includes('/')) throw new EngineConfigError(`${shape}; it names no database (the path after the host)`);
  return { kind: 'postgres', url: raw, where: where(u) };
}

/** The tables this service creates on PostgreSQL (db/pg/schema), which a database may already hold. */
export async function ownTables(): Promise<Set<string>> {
  const [{ getTableConfig }, { isTable }, pgSchema] = await Promise.all([import('drizzle-orm/pg-core'), import('drizzle-orm'), import('./pg/schema')]);
  const names = new Set<string>();
  for (const value of Object.values(pgSchema)) if (isTable(value)) names.add(getTableConfig(value as never).name);
  return names;
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'nothing listens there',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
  ETIMEDOUT: 'it did not answer',
  CONNECT_TIMEOUT: 'it did not answer in time',
  EHOSTUNREACH: 'the host is unreachable',
  '28P01': 'it refused the user name or password',
  '28000': 'it refused the connection for this user',
  '3D000': 'the database does not exist',
};

/**
 * Connects once and checks that the database can be ours: PostgreSQL 15 or later, and no table in
 * the public schema that this service did not create (a shared or wrong database must not be written
 * into). Throws EngineConfigError with one line otherwise.
 */
export async function checkPostgres(engine: Extract<Engine, { kind: 'postgres' }>, o: { connectTimeoutMs?: number } = {}): Promise<{ version: number; empty: boolean }> {
  const { default: postgres } = await import('postgres');
  const sql = postgres(engine.url, { max: 1, connect_timeout: Math.ceil((o.connectTimeoutMs ?? 5000) / 1000), onnotice: () => {} });
  let version: number;
  try {
    version = Number((await sql`SHOW server_version_num`)[0].server_version_num);
  } catch (err) {
    await sql.end({ timeout: 1 }).catch(() => {});
    const code = (err as { code?: string }).code ?? '';
    const reason = REASONS[code] ?? (/timeout/i.test(String((err as Error).message)) ? 'it did not answer in time' : `${code || 'error'}: ${String((err as Error).message).split('\n')[0]}`);
    throw new EngineConfigError(`cannot use the PostgreSQL database at ${engine.where} (DATABASE_URL): ${reason}`);
  }
  try {
    if (version < 150000) throw new EngineConfigError(`the database at ${engine.where} runs PostgreSQL ${Math.floor(version / 10000)}; this service needs 15 or later`);
    // before the foreign-table check: a newer release's new tables are not foreign, this code is too old
    const [{ appliedMigrations, PG_MIGRATIONS }, { pendingAfter, shippedMigrations }] = await Promise.all([import('./pg/migrate'), import('./migration-history')]);
    pendingAfter(await appliedMigrations(sql), shippedMigrations(PG_MIGRATIONS));
    const rows = await sql<{ name: string }[]>`SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'f') ORDER BY 1`;
    const own = await ownTables();
    const foreign = rows.map((r) => r.name).filter((n) => !own.has(n));
    if (foreign.length) {
      const list = foreign.slice(0, 5).join(', ') + (foreign.length > 5 ? `, … (${foreign.length} in all)` : '');
      throw new EngineConfigError(`the database at ${engine.where} (DATABASE_URL) holds tables this service did not create (${list}); give it an empty database of its own`);
    }
    return { version, empty: rows.length === 0 };
  } catch (err) {
    if (err instanceof EngineConfigError) throw err;
    throw new EngineConfigError(`cannot use the PostgreSQL database at ${engine.where} (DATABASE_URL): ${String((err as Error).message).split('\n')[0]}`);
  } finally {
    await sql.end({ timeout: 1 }).catch(() => {});
  }
}

/**
 * For the entry points (server, worker, commands): the engine to use, or — for a DATABASE_URL that
 * cannot be used — one line on stderr and exit code 2, no stack trace. On PostgreSQL the database is
 * checked and brought up to db/pg/migrations. Commands that only exist for SQLite's file (backup,
 * restore) pass `postgres: false` and are refused on PostgreSQL with one line.
 */
export async function engineAtStartOrExit(env: Record<string, string | undefined> = process.env, o: { postgres?: boolean } = {}): Promise<Engine> {
  try {
    const engine = chooseEngine(env);
    if (engine.kind === 'sqlite') return engine;
    await checkPostgres(engine);
    if (o.postgres === false) throw new EngineConfigError(`DATABASE_URL points at PostgreSQL (${engine.where}): this command works on SQLite's database file only; unset DATABASE_URL to use it with SQLite at DATABASE_PATH`);
    const { migratePostgres } = await import('./pg/migrate');
    try {
      await migratePostgres(engine.url);
    } catch (err) {
      throw new EngineConfigError(`cannot migrate the PostgreSQL database at ${engine.where} (DATABASE_URL): ${String((err as Error).message).split('\n')[0]}`);
    }
    return engine;
  } catch (err) {
    const line = err instanceof EngineConfigError ? err.message : `cannot choose the database engine: ${String((err as Error)?.message ?? err).split('\n')[0]}`;
    process.stderr.write(`${line}\n`);
    process.exit(2);
  }
}
