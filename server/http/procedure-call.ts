import type { AnyProcedure } from '@trpc/server';
import { getParseFn, getTRPCErrorFromUnknown, TRPCError } from '@trpc/server/unstable-core-do-not-import';
import { z } from 'zod';
import type { Context } from '../context';

/**
 * Calls a procedure from the REST edge: the same middlewares in the same order (error boundary,
 * credentials, rate limit, input and output validation, resolver) with the same errors, but without
 * the per-call costs of tRPC's generic caller, measured on GET /withdraw:
 * - tRPC copies the options and the context with a down-levelled object-spread helper (defineProperty
 *   per key) at every middleware, about 8 % of the request's CPU;
 * - it validates input and output with zod's parseAsync, and zod 4 compiles an object schema into a
 *   fast checker only for synchronous parses. Here a schema is parsed synchronously, falling back to
 *   parseAsync only for a schema that needs it (an async refinement). The output schema still checks
 *   every answer.
 * What a middleware sees (ctx, type, path, input, meta, next) is what tRPC gives it.
 */

type Result = { ok: true; data: unknown; ctx?: unknown } | { ok: false; error: TRPCError };
type Middleware = ((opts: Record<string, unknown>) => Promise<Result>) & { _type?: string };
type Parse = (value: unknown) => unknown;

export type ProcedureCall = (ctx: Context, rawInput: unknown) => Promise<unknown>;

/** Synchronous first: zod's compiled object checker only runs for sync parses. */
function parseOf(schema: unknown): Parse {
  if (schema instanceof z.ZodType) {
    return (value) => {
      try {
        return schema.parse(value);
      } catch (err) {
        if (err instanceof z.core.$ZodAsyncError) return schema.parseAsync(value);
        throw err;
      }
    };
  }
  return getParseFn(schema as never) as Parse;
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

export function procedureCall(procedure: AnyProcedure, path: string): ProcedureCall {
  const def = procedure._def as unknown as {
    middlewares: Middleware[]; inputs: unknown[]; output?: unknown; meta?: unknown; type: string;
  };
  const inputs = def.inputs.map(parseOf);
  let nextInput = 0;
  // the same chain, with tRPC's own input/output validators swapped for the synchronous-first ones
  const chain: Middleware[] = def.middlewares.map((mw): Middleware => {
    if (mw._type === 'input') {
      const parse = inputs[nextInput++];
      return async (opts) => {
        let parsed: unknown;
        try {
          parsed = await parse(await (opts.getRawInput as () => Promise<unknown>)());
        } catch (cause) {
          throw new TRPCError({ code: 'BAD_REQUEST', cause });
        }
        const input = isObject(opts.input) && isObject(parsed) ? { ...opts.input, ...parsed } : parsed;
        return (opts.next as (o: unknown) => Promise<Result>)({ input });
      };
    }
    if (mw._type === 'output') {
      const parse = parseOf(def.output);
      return async (opts) => {
        const result = await (opts.next as () => Promise<Result>)();
        if (!result.ok) return result;
        try {
          return { ...result, data: await parse(result.data) };
        } catch (cause) {
          throw new TRPCError({ message: 'Output validation failed', code: 'INTERNAL_SERVER_ERROR', cause });
        }
      };
    }
    return mw;
  });
  if (nextInput !== inputs.length) throw new Error('procedureCall: input validators and inputs do not pair up');

  interface State { ctx: Context; input: unknown; getRawInput: () => Promise<unknown> }
  type NextOptions = { ctx?: object; input?: unknown; getRawInput?: () => Promise<unknown> } | undefined;
  // The per-call closures are returned from factories rather than assigned to a named slot: tsx
  // (esbuild keepNames) wraps every named function expression in a defineProperty call, per request.
  const nextOf = (index: number, state: State) => (o: NextOptions) => run(index + 1, {
    ctx: o?.ctx ? { ...state.ctx, ...o.ctx } : state.ctx,
    input: o && 'input' in o ? o.input : state.input,
    getRawInput: o?.getRawInput ?? state.getRawInput,
  });
  const rawInputOf = (value: unknown) => async () => value;
  async function run(index: number, state: State): Promise<Result> {
    try {
      return await chain[index]({
        ctx: state.ctx, type: def.type, path, input: state.input, getRawInput: state.getRawInput,
        meta: def.meta, signal: undefined, batchIndex: 0, next: nextOf(index, state),
      });
    } catch (cause) {
      return { ok: false, error: getTRPCErrorFromUnknown(cause) };
    }
  }

  return async (ctx, rawInput) => {
    const result = await run(0, { ctx, input: undefined, getRawInput: rawInputOf(rawInput) });
    if (!result.ok) throw result.error;
    return result.data;
  };
}
