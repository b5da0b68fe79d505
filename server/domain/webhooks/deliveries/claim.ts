import type { Stores } from '../../../../db';
import type { DueDelivery } from '../../../../db/stores/deliveries';
import { pickFairly, rotation, SlotUse } from '../fair-share';

/*
 * Which due queue heads the sender takes next: round-robin between the accounts with due work, within the
 * caps of fair-share.ts; on PostgreSQL, where several instances send at once, taken under a claim (the
 * candidates' row locks, skipping those another claim holds, and a lease on what is taken).
 */

/** How long a claimed delivery stays out of the other instances' reach (PostgreSQL), renewed while its send is in flight. */
export const DELIVERY_LEASE_MS = 10_000;
/** How often the leases of the sends in flight are renewed: three renewals fit in one lease. */
export const DELIVERY_LEASE_RENEW_MS = 3_300;

/** One pass of the fair scheduler: what is in flight, and the account served last (the rotation goes on after it). */
export interface FairPass {
  use: SlotUse;
  after: string | null;
  /** The accounts with due work, when the caller has just read them. */
  accounts?: string[];
}

/** A pass that only bounds the total (the claim on its own, as tests call it): one account may take every slot. */
const soloPass = (limit: number): FairPass => ({ use: new SlotUse({ total: limit, perAccount: limit, perHost: limit }), after: null });

/** Up to the pass's free slots of due heads, round-robin between accounts within their caps and their hosts' (fair-share.ts). */
export async function chooseDue(tx: Stores, now: string, exclude: string[], pass: FairPass): Promise<DueDelivery[]> {
  const { use } = pass;
  if (use.room === 0) return [];
  const accounts = rotation(pass.accounts ?? await tx.deliveries.accountsWithDueWork(now), pass.after, use, use.room);
  // An account's room, and a few more while some host is full (its heads are passed over, left due). No
  // more than that: on PostgreSQL every candidate is locked until the claim commits, and a concurrent
  // claim skips what this one locked and did not take.
  const extra = use.anyHostFull() ? 4 : 0;
  const candidates = await tx.deliveries.dueHeads(now, accounts.map((id) => ({ id, limit: Math.min(use.accountRoom(id), use.room) + extra })), exclude);
  return pickFairly(accounts, candidates, use);
}

/**
 * PostgreSQL, several instances: in one write job, takes up to `limit` due queue heads whose lease (if
 * any) has run out, chosen fairly between accounts (`pass`: this instance's caps and what it has in
 * flight), skipping the rows another instance's claim holds (FOR UPDATE OF d SKIP LOCKED), stamps their
 * lease and returns what sending them needs. A claimed head stays PENDING, so the next delivery of its
 * queue is not due before this one is recorded: per-resource order holds across instances. When the
 * instance dies mid-send, the lease runs out and another instance's claim takes the delivery over.
 * The caps hold per instance: N instances send at most N times one account's cap at once.
 */
export async function claimDueHeads(tx: Stores, now: Date, exclude: string[], limit: number, leaseMs = DELIVERY_LEASE_MS, pass: FairPass = soloPass(limit)): Promise<DueDelivery[]> {
  const at = now.toISOString();
  const leaseUntil = new Date(now.getTime() + leaseMs).toISOString();
  const chosen = (await chooseDue(tx, at, exclude, pass)).slice(0, limit);
  if (chosen.length === 0) return [];
  // (the candidates' row locks, taken above, hold until this job commits)
  await tx.deliveries.lease(chosen.map((c) => c.id), leaseUntil);
  return chosen;
}

/** Moves the leases of these deliveries, still being sent by this instance, to now + lease (PostgreSQL). */
export async function renewLeases(tx: Stores, deliveryIds: string[], now: Date, leaseMs = DELIVERY_LEASE_MS): Promise<number> {
  if (deliveryIds.length === 0) return 0;
  return tx.deliveries.renewLeases(deliveryIds, new Date(now.getTime() + leaseMs).toISOString());
}
