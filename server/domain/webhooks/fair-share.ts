/*
 * Fair delivery: the sender's slots are shared between accounts and destination hosts,
 * so one merchant whose receiver accepts and never answers cannot hold every socket. Per process:
 *  - at most `total` deliveries in flight;
 *  - at most `perAccount` of one account: a merchant's own webhooks and postbacks share its slots;
 *  - at most `perHost` to one destination host (host:port, what the keep-alive pool is keyed by);
 *  - due work is taken round-robin between accounts, one delivery per account per round, oldest first
 *    within an account, the rotation continuing after the account served last.
 * A delivery that cannot start because of a cap is simply not taken: it stays PENDING and due, costs no
 * attempt, and is taken by a later pass (a finished send wakes the sender).
 */

export interface SlotCaps {
  total: number;
  perAccount: number;
  perHost: number;
}

/** A due delivery as the scheduler sees it. */
export interface Candidate {
  id: string;
  account_id: string;
  url: string;
}

/**
 * The host a delivery's slots are counted under: `host[:port]` of its URL (lowercase, default port
 * omitted, as WHATWG URL gives it). An unparsable URL counts under itself; the sender refuses it at once.
 */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** What is in flight, by account and by host. */
export class SlotUse {
  private readonly byAccount = new Map<string, number>();
  private readonly byHost = new Map<string, number>();
  private readonly held = new Map<string, { account: string; host: string }>();

  constructor(readonly caps: SlotCaps) {}

  get total(): number { return this.held.size; }
  get room(): number { return Math.max(0, this.caps.total - this.held.size); }
  accountRoom(account: string): number { return Math.max(0, this.caps.perAccount - (this.byAccount.get(account) ?? 0)); }
  hostRoom(host: string): number { return Math.max(0, this.caps.perHost - (this.byHost.get(host) ?? 0)); }
  /** Accounts at their cap (left out of the search for due work). */
  fullAccounts(): string[] {
    return [...this.byAccount].filter(([, n]) => n >= this.caps.perAccount).map(([a]) => a);
  }

  /** Whether some host is at its cap (its deliveries are passed over, so a pass looks at a few more). */
  anyHostFull(): boolean {
    for (const n of this.byHost.values()) if (n >= this.caps.perHost) return true;
    return false;
  }

  take(deliveryId: string, account: string, host: string): void {
    if (this.held.has(deliveryId)) return;
    this.held.set(deliveryId, { account, host });
    this.byAccount.set(account, (this.byAccount.get(account) ?? 0) + 1);
    this.byHost.set(host, (this.byHost.get(host) ?? 0) + 1);
  }

  give(deliveryId: string): void {
    const h = this.held.get(deliveryId);
    if (!h) return;
    this.held.delete(deliveryId);
    const dec = (m: Map<string, number>, k: string) => {
      const n = (m.get(k) ?? 1) - 1;
      if (n <= 0) m.delete(k);
      else m.set(k, n);
    };
    dec(this.byAccount, h.account);
    dec(this.byHost, h.host);
  }
}

/**
 * The accounts with due work in the order this pass serves them: those after `after` (the account served
 * last) first, then from the start, leaving out accounts at their cap; at most `limit` (with R free
 * slots, no more than R accounts can get one).
 */
export function rotation(accounts: string[], after: string | null, use: SlotUse, limit: number): string[] {
  const sorted = [...accounts].sort();
  const cut = after === null ? 0 : sorted.findIndex((a) => a > after);
  const ordered = cut <= 0 ? sorted : [...sorted.slice(cut), ...sorted.slice(0, cut)];
  return ordered.filter((a) => use.accountRoom(a) > 0).slice(0, limit);
}

/**
 * Chooses which candidates start now, round-robin between accounts (in `accounts` order), each account's
 * candidates oldest first, within the free slots, each account's room and each host's room. Candidates
 * passed over (their host is full) are left due. Does not record the choice in `use`.
 */
export function pickFairly<C extends Candidate>(accounts: string[], candidates: C[], use: SlotUse): C[] {
  const queues = new Map<string, C[]>(accounts.map((a) => [a, []]));
  for (const c of candidates) queues.get(c.account_id)?.push(c);
  const taken = new Map<string, number>();
  const hostTaken = new Map<string, number>();
  const picked: C[] = [];
  let room = use.room;
  let progress = true;
  while (room > 0 && progress) {
    progress = false;
    for (const account of accounts) {
      if (room === 0) break;
      const queue = queues.get(account)!;
      if (use.accountRoom(account) - (taken.get(account) ?? 0) <= 0) continue;
      // this account's oldest candidate whose host has room; the others before it stay due
      while (queue.length) {
        const c = queue.shift()!;
        const host = hostOf(c.url);
        if (use.hostRoom(host) - (hostTaken.get(host) ?? 0) <= 0) continue;
        picked.push(c);
        taken.set(account, (taken.get(account) ?? 0) + 1);
        hostTaken.set(host, (hostTaken.get(host) ?? 0) + 1);
        room -= 1;
        progress = true;
        break;
      }
    }
  }
  return picked;
}
