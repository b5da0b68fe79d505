import { DEFAULT_LOCALE } from '../../contract/enums';
import { DomainError } from '../errors';
import type { Services } from '../services';
import { getAccount, rotateClientToken } from './accounts';
import { merchantBalance } from './ledger';
import { addDays, localDay, startOfLocalDay } from './local-time';
import { decryptSecret } from './webhooks/secrets';
import { recordAudit, recordDisclosure, type DashboardActor } from './audit-trail';
import { confirmPassword, endOtherSessions, sessionsOfAccount } from './sessions';
import { pixApiClientOf, rotatePixClientSecret } from './pix-api/oauth';

/**
 * Reads only the dashboard needs. Money in and out come from the ledger: a line on a system book
 * (the outside world) in one of the account's entries is money crossing the account's boundary;
 * moves between the merchant's own books (available → withdrawals in flight, → blocked) are not.
 */

/** Days are bucketed in Brasília time (UTC−3, no daylight saving since 2019). */
const LOCAL_OFFSET = '-3 hours';
const LOCAL_OFFSET_MS = -3 * 3600_000;
export const OVERVIEW_DAYS = 30;
/** How many of the account's latest events the overview shows. */
const RECENT_EVENTS = 10;

export interface DailyVolume { date: string; money_in: number; money_out: number }


export async function signedInUser(s: Services, auth: { accountId: string; userId?: string }) {
  const account = await getAccount(s, auth.accountId);
  const user = auth.userId
    ? await s.db.read.sessions.dashboardUser(auth.accountId, auth.userId)
    : undefined;
  return { email: user?.email ?? '', account_id: account.id, account_name: account.name, expires_at: null, locale: user?.locale ?? DEFAULT_LOCALE };
}

/** The money of one period, by what moved it: sales apart from top-ups, payouts and chargebacks. */
export interface PeriodMoney { sales: number; sales_count: number; top_ups: number; payouts: number; chargebacks: number }
export interface DailyMoney extends DailyVolume { sales: number; top_ups: number; payouts: number }

const emptyPeriod = (): PeriodMoney => ({ sales: 0, sales_count: 0, top_ups: 0, payouts: 0, chargebacks: 0 });

export async function overview(s: Services, accountId: string) {
  const db = s.db.read;
  const now = s.clock.now();
  const account = await getAccount(s, accountId);
  const balance = await merchantBalance(db, accountId);
  const today = localDay(now);
  const yesterday = addDays(today, -1);
  const monthStart = `${today.slice(0, 8)}01`;
  // first local day of the window (30 days, or the whole month when it began earlier), as a UTC
  // instant, so the entries index range-scans it
  const firstDay = localDay(new Date(now.getTime() - (OVERVIEW_DAYS - 1) * 86_400_000));
  const since = startOfLocalDay(monthStart < firstDay ? monthStart : firstDay).toISOString();
  // per Brasília day, per kind of entry and system book: the lines that cross the account's boundary
  const rows = await db.reports.moneyAcrossBoundary(accountId, since, LOCAL_OFFSET);
  const byDay = new Map<string, DailyMoney>();
  const periods = { today: emptyPeriod(), yesterday: emptyPeriod(), month: emptyPeriod() };
  for (const r of rows) {
    const d = byDay.get(r.day) ?? { date: r.day, money_in: 0, money_out: 0, sales: 0, top_ups: 0, payouts: 0 };
    d.money_in += r.money_in;
    d.money_out += r.money_out;
    // sales are approved charges; a sandbox top-up is money in but no sale; payouts leave to the Pix rail
    const sale = r.entry_kind === 'transaction_credit' ? r.money_in : 0;
    const topUp = r.entry_kind === 'sandbox_topup' ? r.money_in : 0;
    const payout = r.book === 'pix_out' ? r.money_out : 0;
    const chargeback = r.book === 'chargebacks' ? r.money_out : 0;
    d.sales += sale;
    d.top_ups += topUp;
    d.payouts += payout;
    byDay.set(r.day, d);
    const inPeriods = [r.day === today ? periods.today : null, r.day === yesterday ? periods.yesterday : null, r.day >= monthStart ? periods.month : null];
    for (const p of inPeriods) {
      if (!p) continue;
      p.sales += sale;
      p.sales_count += r.entry_kind === 'transaction_credit' ? r.entries : 0;
      p.top_ups += topUp;
      p.payouts += payout;
      p.chargebacks += chargeback;
    }
  }
  const daily: DailyMoney[] = [];
  for (let i = OVERVIEW_DAYS - 1; i >= 0; i--) {
    const date = addDays(today, -i);
    daily.push(byDay.get(date) ?? { date, money_in: 0, money_out: 0, sales: 0, top_ups: 0, payouts: 0 });
  }
  // recent activity: the account's latest events, newest first (events_account_idx), once each
  // a dispute's page is its charge's: its event names the transaction it belongs to
  const recent = await db.reports.recentEvents(accountId, RECENT_EVENTS);
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    account_name: account.name,
    currency: 'BRL' as const,
    available: balance.available,
    blocked: balance.blocked,
    in_flight: balance.inFlight,
    money_in: daily.reduce((n, d) => n + d.money_in, 0),
    money_out: daily.reduce((n, d) => n + d.money_out, 0),
    periods,
    daily,
    recent: recent.map((r) => ({
      id: r.id, type: r.type, resource_id: r.resource_id, created_at: r.created_at,
      amount: typeof r.amount === 'number' && Number.isSafeInteger(r.amount) ? r.amount : null,
      status: text(r.status),
      transaction_id: text(r.transaction_id),
      method: text(r.method),
      counterparty: text(r.who),
    })),
    timestamp: now.toISOString(),
  };
}

export async function developerCredentials(s: Services, accountId: string) {
  const account = await getAccount(s, accountId);
  return { account_id: account.id, account_name: account.name, code: account.code, api_key: account.apiKey };
}

/**
 * The key postbacks are signed with; stored encrypted because it must stay readable to sign. Only after
 * the password (under the sign-in limits), and recorded before it is answered.
 */
export async function postbackSecret(s: Services, who: DashboardActor, password: string) {
  await confirmPassword(s, who.userId, password, who.clientAddress);
  const enc = await s.db.read.accounts.postbackSecretEncrypted(who.accountId);
  if (enc === undefined) throw new DomainError('NOT_FOUND', 'account not found');
  await recordDisclosure(s, who, 'postback_secret.reveal');
  return { postback_secret: decryptSecret(enc, s.masterKey) };
}

/**
 * A new client token, shown once; the old one and every access token it issued stop working. The
 * token opens the webhook API (and so every webhook secret), so it takes the password; the account's
 * other dashboard sessions end with it (a stolen session cannot outlive the rotation), and it is recorded.
 */
export async function rotateToken(s: Services, who: DashboardActor, password: string) {
  await confirmPassword(s, who.userId, password, who.clientAddress);
  const r = await rotateClientToken(s, who.accountId, async (tx, at) => {
    await endOtherSessions(tx, sessionsOfAccount(who.accountId), who.sessionId, at);
    await recordAudit(tx, who, 'client_token.rotate', at);
  });
  return { code: r.code, token: r.token };
}

/** The account's API Pix client: its public id and scopes (the secret is never shown again). */
export async function pixApiCredentials(s: Services, accountId: string) {
  return { client: await pixApiClientOf(s.db.read, accountId) };
}

/**
 * A new API Pix client secret, shown once (a client is made now for an account created before API Pix
 * credentials existed); the old secret and every token it got stop working. Only after the password,
 * and recorded in the same job.
 */
export async function rotatePixSecret(s: Services, who: DashboardActor, password: string) {
  await confirmPassword(s, who.userId, password, who.clientAddress);
  return rotatePixClientSecret(s, who.accountId, (tx, at) => recordAudit(tx, who, 'pix_client_secret.rotate', at));
}
