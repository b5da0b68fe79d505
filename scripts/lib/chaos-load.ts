import { randomBytes } from 'node:crypto';

/**
 * The client side of the fault campaign (scripts/chaos.ts): merchants' writes through the balancer that
 * tolerate the faults. Every write carries an Idempotency-Key; an attempt that got no definite answer
 * (a reset, a timeout, a 5xx, a 409 "still running") is tried again later with the same key and body, and
 * what counts is what the client was acknowledged (a 2xx it received).
 */
export type OpKind = 'withdraw' | 'charge' | 'pay' | 'refund';

export interface Answer { status: number; text: string; json: any; retryAfter: string | null; replayed: boolean; requestId: string | null }
export interface Failure { error: string }
export type Attempt = Answer | Failure;

export interface Op {
  kind: OpKind;
  /** null for pay, which is naturally idempotent (paying an APPROVED charge again answers it unchanged). */
  key: string | null;
  path: string;
  body: unknown;
  amount: number;
  attempts: Attempt[];
  /** The first 2xx the client got. */
  acked: Answer | null;
  /** The first answer that settles the op: a 2xx, or a 4xx other than "still running". */
  definite: Answer | null;
  /** For withdrawals: its external_ref, when it has one. */
  externalRef?: string;
  /** For pay and refund: the charge. */
  chargeId?: string;
}

export const isFailure = (a: Attempt): a is Failure => 'error' in a;
const ok = (a: Attempt): a is Answer => !isFailure(a) && a.status >= 200 && a.status < 300;
/** An answer the op stops at: success, or a refusal that is not "the same key is still running" nor a throttle. */
const settles = (a: Attempt): a is Answer => !isFailure(a) && a.status < 500 && !(a.status === 409 && a.retryAfter !== null) && a.status !== 429;

export async function send(base: string, token: string, op: Op, timeoutMs: number): Promise<Attempt> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  if (op.key) headers['idempotency-key'] = op.key;
  let attempt: Attempt;
  try {
    const res = await fetch(`${base}${op.path}`, { method: 'POST', headers, body: JSON.stringify(op.body), signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    let json: any = null;
    try { json = JSON.parse(text); } catch { /* not JSON (HAProxy's own 502/503 page) */ }
    attempt = { status: res.status, text, json, retryAfter: res.headers.get('retry-after'), replayed: res.headers.get('idempotent-replayed') === 'true', requestId: res.headers.get('x-request-id') };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    attempt = { error: e.cause?.code ?? e.name ?? 'error' };
  }
  op.attempts.push(attempt);
  if (ok(attempt)) op.acked ??= attempt;
  if (settles(attempt)) op.definite ??= attempt;
  return attempt;
}

export function get(base: string, token: string, path: string) {
  return fetch(`${base}${path}`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) })
    .then(async (r) => ({ status: r.status, json: await r.json().catch(() => null) as any }));
}

const key = () => `chaos-${randomBytes(9).toString('base64url')}`;
const customer = { name: 'Maria Silva', email: 'maria@example.com', document: '529.982.247-25' };

export function withdrawOp(n: number, withRef: boolean): Op {
  const amount = 100 + (n % 900);
  const externalRef = withRef ? `chaos-wd-${key()}` : undefined;
  return {
    kind: 'withdraw', key: key(), path: '/withdraw/pix', amount, attempts: [], acked: null, definite: null, externalRef,
    body: { amount, key: '+55 11 98765-4321', key_type: 'PHONE', details: { name: 'Beltrano', document: '11.222.333/0001-81' }, ...(externalRef ? { external_ref: externalRef } : {}) },
  };
}

export function chargeOp(): Op {
  return {
    kind: 'charge', key: key(), path: '/transaction', amount: 2_500, attempts: [], acked: null, definite: null,
    body: { amount: 2_500, method: 'PIX', customer, items: [{ title: 'Caneca', unitPrice: 1_000, quantity: 2, tangible: true }, { title: 'Frete', unitPrice: 500, quantity: 1, tangible: false }] },
  };
}

export function payOp(chargeId: string): Op {
  return { kind: 'pay', key: null, path: `/sandbox/transactions/${chargeId}/pay`, amount: 2_500, attempts: [], acked: null, definite: null, chargeId, body: {} };
}

export function refundOp(chargeId: string): Op {
  return { kind: 'refund', key: key(), path: `/transaction/${chargeId}/refund`, amount: 1_000, attempts: [], acked: null, definite: null, chargeId, body: { amount: 1_000, reason: 'chaos' } };
}

/**
 * One merchant's worker: withdraw, charge, pay that charge, refund part of it, in a loop until `running()`
 * says stop. Pay and refund follow only an acknowledged charge (and pay); each attempt is made once here,
 * and whatever was not acknowledged is resolved afterwards (`resolve`).
 */
export async function worker(o: { base: string; token: string; ops: Op[]; running: () => boolean; timeoutMs: number; seed: number }) {
  let n = o.seed;
  while (o.running()) {
    const wd = withdrawOp(n++, n % 2 === 0);
    o.ops.push(wd);
    await send(o.base, o.token, wd, o.timeoutMs);
    if (!o.running()) break;
    const charge = chargeOp();
    o.ops.push(charge);
    const c = await send(o.base, o.token, charge, o.timeoutMs);
    if (!charge.acked || !o.running()) continue;
    const pay = payOp((c as Answer).json.id);
    o.ops.push(pay);
    await send(o.base, o.token, pay, o.timeoutMs);
    if (!pay.acked || !o.running()) continue;
    const refund = refundOp(pay.chargeId!);
    o.ops.push(refund);
    await send(o.base, o.token, refund, o.timeoutMs);
  }
}

/**
 * After a fault: every op without a definite answer is sent again with its own key and body until it gets
 * one, by `deadline`; a pay whose charge never got a definite answer waits for it. Returns the ops left
 * without one (a failed check).
 */
export async function resolve(o: { base: string; token: string; ops: Op[]; deadline: number; timeoutMs: number }): Promise<Op[]> {
  for (;;) {
    const open = o.ops.filter((op) => !op.definite);
    if (open.length === 0 || Date.now() > o.deadline) return open;
    await Promise.all(open.map((op) => send(o.base, o.token, op, o.timeoutMs)));
    if (o.ops.some((op) => !op.definite)) await new Promise((r) => setTimeout(r, 250));
  }
}
