import { TRPCError } from '@trpc/server';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContextInner } from '../../server/context';
import { DOMAIN_ERRORS, DomainError, toDomainError, toTRPCError } from '../../server/errors';
import { restErrorBody } from '../../server/http/presenter';
import { createCallerFactory, publicProcedure, router } from '../../server/trpc';
import { makeTestServices, type TestServices } from '../support/services';

let s: TestServices;
beforeAll(async () => { s = await makeTestServices(); });
afterAll(async () => { await s.cleanup(); });

const now = new Date('2026-03-01T10:00:00.000Z');

describe('the one error path', () => {
  it('maps every domain code to one HTTP status and one tRPC code', () => {
    for (const [code, m] of Object.entries(DOMAIN_ERRORS)) {
      const t = toTRPCError(new DomainError(code as keyof typeof DOMAIN_ERRORS, 'x'));
      expect(t.code).toBe(m.trpc);
      expect(toDomainError(t).status).toBe(m.status);
    }
  });

  it('answers 500 without internals on both paths', async () => {
    const leaky = new Error('SqliteError: no such column secret_column in SELECT token_hash FROM accounts');
    const body = restErrorBody(toDomainError(leaky), 'payments', now);
    expect(body).toEqual({ statusCode: 500, error: 'Internal Server Error', message: 'internal error', timestamp: now.toISOString() });
    expect(restErrorBody(toDomainError(leaky), 'webhooks', now)).toEqual({ code: 500, message: 'internal error', timestamp: now.toISOString() });

    const broken = router({ boom: publicProcedure.input(z.void()).query(() => { throw leaky; }) });
    const caller = createCallerFactory(broken)(createContextInner({ services: s }));
    const err = await caller.boom().then(() => null, (e) => e);
    expect(err).toBeInstanceOf(TRPCError);
    expect(err.code).toBe('INTERNAL_SERVER_ERROR');
    expect(err.message).toBe('internal error');
    // what a tRPC client receives is the formatted shape: no stack, no SQL
    const shape = broken._def._config.errorFormatter({ shape: { message: err.message, code: -32603, data: { code: 'INTERNAL_SERVER_ERROR', httpStatus: 500, path: 'boom' } }, error: err, type: 'query', path: 'boom', input: undefined, ctx: undefined } as never) as { message: string; data: Record<string, unknown> };
    expect(JSON.stringify(shape)).not.toMatch(/secret_column|Sqlite|stack/i);
    expect(shape.data.domainCode).toBe('INTERNAL');
  });

  it('gives 400 a list of readable messages naming each field, plus issues', () => {
    const e = new DomainError('VALIDATION', 'x', { issues: [{ path: 'amount', message: 'must be an integer number of cents' }, { path: 'key', message: 'not a valid CPF' }] });
    expect(restErrorBody(e, 'payments', now)).toEqual({
      statusCode: 400, error: 'Bad Request', message: ['amount: must be an integer number of cents', 'key: not a valid CPF'],
      issues: [{ path: 'amount', message: 'must be an integer number of cents' }, { path: 'key', message: 'not a valid CPF' }], timestamp: now.toISOString(),
    });
    expect(restErrorBody(e, 'webhooks', now)).toMatchObject({ code: 400, errors: [{ path: 'amount' }, { path: 'key' }] });
  });

  it('keeps a contract-fixed body (WITHDRAW_FAIL) and adds the timestamp', () => {
    const e = new DomainError('INSUFFICIENT_FUNDS', 'no', { restBody: { statusCode: 422, message: 'WITHDRAW_FAIL', data: [], error: { code: 'INSUFFICIENT_FUNDS', detail: 'no' } } });
    expect(restErrorBody(e, 'payments', now)).toEqual({ statusCode: 422, message: 'WITHDRAW_FAIL', data: [], error: { code: 'INSUFFICIENT_FUNDS', detail: 'no' }, timestamp: now.toISOString() });
  });
});
