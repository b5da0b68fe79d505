import type postgres from 'postgres';

/**
 * How many distinct statements (SQL texts) run as named prepared statements; any further one runs unnamed
 * as before. Each is prepared once per pooled connection and stays there, so this bounds what the server
 * holds per connection even if some statement's text varied with its input (a list of N values).
 */
export const MAX_PREPARED_STATEMENTS = 500;

/**
 * The postgres.js client handed to drizzle, with every parameterized statement sent as a named prepared
 * statement (postgres.js's own default for its tagged queries). drizzle runs its queries through
 * `sql.unsafe(text, params, { prepare: false })` unless given a statement name, and postgres.js sends an
 * unnamed statement with parameters in TWO round trips (Parse + Describe to learn the parameter types, then
 * Bind + Execute), parsed and planned again each time. Prepared, a statement costs its first use per
 * connection that, and every later use one round trip (Bind + Execute) with no parse: on the bench's
 * POST /withdraw/pix (about 50 statements per withdrawal, its settlement and events included) the round
 * trips, each a socket write and a wake-up of the server process, were most of the API's CPU.
 * The parameters are serialized with the types the server described, as before; only the caching differs.
 *
 * The clients of transactions and savepoints (postgres.js makes one per `begin`) are wrapped the same way.
 */
export function preparingClient<C extends postgres.Sql<any>>(client: C, admitted = new Set<string>()): C {
  const prepare = (text: string) => {
    if (admitted.has(text)) return true;
    if (admitted.size >= MAX_PREPARED_STATEMENTS) return false;
    admitted.add(text);
    return true;
  };
  const wrapScope = (fn: (tx: any) => unknown) => (tx: any) => fn(preparingClient(tx, admitted));
  return new Proxy(client, {
    get(target, prop, receiver) {
      if (prop === 'unsafe') {
        return (text: string, args?: unknown, options?: Record<string, unknown>) => {
          if (!Array.isArray(args) || args.length === 0 || !prepare(text)) return target.unsafe(text, args as any[], options as any);
          return target.unsafe(text, args as any[], { ...options, prepare: true } as any);
        };
      }
      if (prop === 'begin' || prop === 'savepoint') {
        const original = Reflect.get(target, prop, receiver) as (...a: unknown[]) => unknown;
        return (...a: unknown[]) => {
          const last = a.length - 1;
          if (typeof a[last] === 'function') a[last] = wrapScope(a[last] as (tx: any) => unknown);
          return original(...a);
        };
      }
      return Reflect.get(target, prop, receiver);
    },
  });
}
