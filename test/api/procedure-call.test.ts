import { z } from 'zod';
import { TRPCError } from '@trpc/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContextInner, type Context } from '../../server/context';
import { procedureCall } from '../../server/http/procedure-call';
import { createCallerFactory, publicProcedure, router } from '../../server/trpc';
import { makeTestServices, type TestServices } from '../support/services';

/**
 * The REST edge walks a procedure's middlewares itself (server/http/procedure-call.ts). Whatever it
 * is given, it must answer what tRPC's own caller answers: same data (same keys, same order), same
 * error code and cause, with the middlewares' context changes seen by the resolver.
 */
const tagged = publicProcedure.use(({ ctx, next }) => next({ ctx: { ...ctx, transport: 'rest' as const, tag: 'seen' } }));

const probes = router({
  echo: tagged
    .input(z.object({ amount: z.number().int().positive(), note: z.string().max(5).optional() }))
    .output(z.object({ note: z.string().optional(), amount: z.number(), tag: z.string() }))
    // extra keys are stripped by the output schema, and its key order is the one the JSON shows
    .query(({ ctx, input }) => ({ amount: input.amount, extra: 'dropped', tag: (ctx as Context & { tag: string }).tag, note: input.note })),
  asyncRule: publicProcedure
    .input(z.object({ word: z.string() }).refine(async (v) => v.word === 'ok', { message: 'only ok' }))
    .output(z.object({ word: z.string() }))
    .mutation(({ input }) => input),
  badOutput: publicProcedure
    .input(z.void())
    .output(z.object({ n: z.number().int() }))
    .query(() => ({ n: 1.5 })),
});

let s: TestServices;
beforeAll(async () => { s = await makeTestServices(); });
afterAll(async () => { await s.cleanup(); });

type Outcome = { ok: true; json: string } | { ok: false; code: string; message: string; cause: string | undefined };

async function outcome(p: Promise<unknown>): Promise<Outcome> {
  try {
    return { ok: true, json: JSON.stringify(await p) };
  } catch (err) {
    expect(err).toBeInstanceOf(TRPCError);
    const e = err as TRPCError;
    return { ok: false, code: e.code, message: e.message, cause: e.cause?.constructor.name };
  }
}

describe('procedureCall', () => {
  const cases: [keyof typeof probes._def.procedures, unknown][] = [
    ['echo', { amount: 250, note: 'hi' }],
    ['echo', { amount: 250 }],
    ['echo', { amount: '250' }],
    ['echo', { amount: -1, note: 'far too long' }],
    ['echo', null],
    ['asyncRule', { word: 'ok' }],
    ['asyncRule', { word: 'no' }],
    ['asyncRule', { word: 7 }],
    ['badOutput', undefined],
  ];
  it.each(cases)('%s(%j) answers as tRPC\'s caller does', async (name, input) => {
    const ctx = () => createContextInner({ services: s });
    const caller = createCallerFactory(probes)(ctx());
    const viaTrpc = await outcome((caller[name] as (i: unknown) => Promise<unknown>)(input));
    const viaEdge = await outcome(procedureCall(probes._def.procedures[name], name)(ctx(), input));
    expect(viaEdge).toEqual(viaTrpc);
  });

  it('still checks every answer against the output schema, and runs what the middlewares added', async () => {
    const bad = await outcome(procedureCall(probes._def.procedures.badOutput, 'badOutput')(createContextInner({ services: s }), undefined));
    expect(bad).toMatchObject({ ok: false, code: 'INTERNAL_SERVER_ERROR', message: 'internal error' });
    const good = await outcome(procedureCall(probes._def.procedures.echo, 'echo')(createContextInner({ services: s }), { note: 'a', amount: 3 }));
    expect(good).toEqual({ ok: true, json: '{"note":"a","amount":3,"tag":"seen"}' });
  });
});
