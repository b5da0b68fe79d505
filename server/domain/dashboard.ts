import { and, eq, sql } from 'drizzle-orm';
import { accounts, dashboardUsers, DEFAULT_LOCALE } from '../../db/schema';
import { DomainError } from '../errors';
import type { Services } from '../services';
import { getAccount, rotateClientToken } from './accounts';
import { merchantBalance } from './ledger';
import { decryptSecret } from './webhooks/secrets';

/**
 * Reads only the dashboard needs. Money in and out come from the ledger: a line on a system book
 * (the outside world) in one of the account's entries is money crossing the account's boundary;
 * moves between the merchant's own books (available → withdrawals in flight, → blocked) are not.
 */

/** Days are bucketed in Brasília time (UTC−3, no daylight saving since 2019). */
const LOCAL_OFFSET = '-3 hours';
const LOCAL_OFFSET_MS = -3 * 3600_000;
export const OVERVIEW_DAYS = 30;

export interface DailyVolume { date: string; money_in: number; money_out: number }

function localDay(d: Date): string {
  return new Date(d.getTime() + LOCAL_OFFSET_MS).toISOString().slice(0, 10);
}

export async function signedInUser(s: Services, auth: { accountId: string; userId?: string }) {
  const account = await getAccount(s.db.read, auth.accountId);
  const user = auth.userId
    ? await s.db.read.select({ email: dashboardUsers.email, locale: dashboardUsers.locale }).from(dashboardUsers)
      .where(and(eq(dashboardUsers.id, auth.userId), eq(dashboardUsers.accountId, auth.accountId))).get()
    : undefined;
  return { email: user?.email ?? '', account_id: account.id, account_name: account.name, expires_at: null, locale: user?.locale ?? DEFAULT_LOCALE };
}

export async function overview(s: Services, accountId: string) {
  const db = s.db.read;
  const now = s.clock.now();
  const account = await getAccount(db, accountId);
  const balance = await merchantBalance(db, accountId);
  // first local day of the window, as a UTC instant, so the entries index range-scans it
  const firstDay = localDay(new Date(now.getTime() - (OVERVIEW_DAYS - 1) * 86_400_000));
  const since = new Date(Date.parse(`${firstDay}T00:00:00.000Z`) - LOCAL_OFFSET_MS).toISOString();
  const rows = await db.all<{ day: string; money_in: number; money_out: number }>(sql`
    SELECT date(e.created_at, ${LOCAL_OFFSET}) AS day,
           coalesce(sum(CASE WHEN l.amount < 0 THEN -l.amount ELSE 0 END), 0) AS money_in,
           coalesce(sum(CASE WHEN l.amount > 0 THEN l.amount ELSE 0 END), 0) AS money_out
    FROM ledger_entries e
    JOIN ledger_lines l ON l.entry_id = e.id
    JOIN ledger_books b ON b.id = l.book_id
    WHERE e.account_id = ${accountId} AND e.created_at >= ${since} AND b.account_id IS NULL
    GROUP BY day`);
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const daily: DailyVolume[] = [];
  for (let i = OVERVIEW_DAYS - 1; i >= 0; i--) {
    const date = localDay(new Date(now.getTime() - i * 86_400_000));
    const r = byDay.get(date);
    daily.push({ date, money_in: r?.money_in ?? 0, money_out: r?.money_out ?? 0 });
  }
  // recent activity: the account's latest events, newest first (events_account_idx)
  // a dispute's page is its charge's: its event names the transaction it belongs to
  const recent = await db.all<{ id: string; type: string; resource_id: string; created_at: string; amount: number | null; status: string | null; transaction_id: string | null }>(sql`
    SELECT id, type, resource_id, created_at,
           coalesce(json_extract(payload, '$.amount'), json_extract(payload, '$.total')) AS amount,
           json_extract(payload, '$.status') AS status,
           json_extract(payload, '$.transaction_id') AS transaction_id
    FROM events WHERE account_id = ${accountId} ORDER BY seq DESC LIMIT 10`);
  return {
    account_name: account.name,
    currency: 'BRL' as const,
    available: balance.available,
    blocked: balance.blocked,
    in_flight: balance.inFlight,
    money_in: daily.reduce((n, d) => n + d.money_in, 0),
    money_out: daily.reduce((n, d) => n + d.money_out, 0),
    daily,
    recent: recent.map((r) => ({
      id: r.id, type: r.type, resource_id: r.resource_id, created_at: r.created_at,
      amount: typeof r.amount === 'number' && Number.isSafeInteger(r.amount) ? r.amount : null,
      status: typeof r.status === 'string' ? r.status : null,
      transaction_id: typeof r.transaction_id === 'string' ? r.transaction_id : null,
    })),
    timestamp: now.toISOString(),
  };
}

export async function developerCredentials(s: Services, accountId: string) {
  const account = await getAccount(s.db.read, accountId);
  return { account_id: account.id, account_name: account.name, code: account.code, api_key: account.apiKey };
}

/** The key postbacks are signed with; stored encrypted because it must stay readable to sign. */
export async function postbackSecret(s: Services, accountId: string) {
  const row = await s.db.read.select({ enc: accounts.postbackSecretEnc }).from(accounts).where(eq(accounts.id, accountId)).get();
  if (!row) throw new DomainError('NOT_FOUND', 'account not found');
  return { postback_secret: decryptSecret(row.enc, s.masterKey) };
}

/** A new client token, shown once; the old one and every access token it issued stop working. */
export async function rotateToken(s: Services, accountId: string) {
  const r = await rotateClientToken({ db: s.db, masterKey: s.masterKey, now: () => s.clock.now() }, accountId);
  return { code: r.code, token: r.token };
}
