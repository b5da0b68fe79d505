import type { RouterCaller } from '@trpc/server/unstable-core-do-not-import';
import type { AppRouter } from './routers';

/**
 * How the pages reach data on the server: through the procedures, with the process's services.
 * Next bundles the pages apart from server/main.ts, so the caller is handed over on globalThis
 * (same process) instead of a module the two would each load once.
 */
export type PagesCaller = ReturnType<RouterCaller<AppRouter['_def']['_config']['$types'], AppRouter['_def']['record']>>;
type MakeCaller = (headers: Record<string, string | undefined>) => PagesCaller;

const KEY = Symbol.for('pix-payments.pages-caller');

const holder = globalThis as typeof globalThis & { [KEY]?: MakeCaller };

/**
 * server/main.ts: let the pages call procedures as a request with these headers would. This module
 * imports nothing at run time, so the pages' bundle does not pull the server in through it.
 */
export function providePagesCaller(make: MakeCaller): void {
  holder[KEY] = make;
}

/** A caller acting with the given request headers (the session cookie, for instance). */
export function pagesCaller(headers: Record<string, string | undefined>): PagesCaller {
  const make = holder[KEY];
  if (!make) throw new Error('the pages run inside server/main.ts, which provides their caller');
  return make(headers);
}
