import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createContextInner } from '../../server/context';
import { createApiHandler } from '../../server/http/api';
import { log } from '../../server/log';
import { createCallerFactory, publicProcedure, router } from '../../server/trpc';
import { makeTestServices, type TestServices } from '../support/services';

/**
 * An answer that fails its own output schema (as a balance above 2^53 once did) has been computed,
 * maybe committed: the caller must hear 500 INTERNAL, logged, never a 400 that says "your fault".
 */
const broken = router({
  tooBig: publicProcedure
    .meta({ envelope: 'payments', openapi: { method: 'GET', path: '/too-big', protect: false } })
    .input(z.void())
    .output(z.object({ available: z.number().int().max(Number.MAX_SAFE_INTEGER) }))
    .query(() => ({ available: 2 ** 60 })),
});

function causes(e: unknown): string[] {
  const out: string[] = [];
  for (let i = 0; e instanceof Error && i < 5; e = e.cause, i++) out.push(e.message);
  return out;
}

let s: TestServices;
let server: Server;
let url: string;
beforeAll(async () => {
  s = await makeTestServices();
  const api = createApiHandler(s, broken);
  server = createServer((req, res) => void api.handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await s.cleanup();
});

describe('an answer that fails its output schema', () => {
  it('is a logged 500 INTERNAL over REST, never a 400', async () => {
    const logged = vi.spyOn(log, 'error').mockImplementation(() => {});
    try {
      const res = await fetch(`${url}/too-big`);
      expect(res.status).toBe(500);
      expect(await res.json()).toMatchObject({ statusCode: 500, error: 'Internal Server Error', message: 'internal error' });
      // the log keeps what went wrong (the cause chain reaches tRPC's output check)
      expect(logged.mock.calls.some((c) => /internal error/.test(String(c[1])) && causes((c[0] as unknown as { err: unknown }).err).includes('Output validation failed'))).toBe(true);
    } finally {
      logged.mockRestore();
    }
  });

  it('is INTERNAL_SERVER_ERROR over tRPC and for in-process callers', async () => {
    const logged = vi.spyOn(log, 'error').mockImplementation(() => {});
    try {
      const res = await fetch(`${url}/api/trpc/tooBig`);
      expect(res.status).toBe(500);
      expect((await res.json()).error.data).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', httpStatus: 500, domainCode: 'INTERNAL' });
      const caller = createCallerFactory(broken)(createContextInner({ services: s }));
      await expect(caller.tooBig()).rejects.toMatchObject({ code: 'INTERNAL_SERVER_ERROR', message: 'internal error' });
    } finally {
      logged.mockRestore();
    }
  });
});
