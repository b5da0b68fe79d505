import type { IncomingMessage, ServerResponse } from 'node:http';
import { once } from 'node:events';
import { createContextInner, requestOrigin } from '../context';
import { csvText } from '../domain/exports';
import { accountStatement, type StatementMovement } from '../domain/statement';
import { STATEMENT_MAX_LIMIT } from '../domain/statement-types';
import { appRouter } from '../routers';
import type { Services } from '../services';
import { DomainError } from '../errors';
import { createCallerFactory, merchantAuth } from '../trpc';

export const STATEMENT_CSV_PATH = '/api/statement.csv';

const createCaller = createCallerFactory(appRouter);

const HEADER = ['id', 'created_at', 'type', 'amount_cents', 'balance_after_cents', 'resource_type', 'resource_id', 'description'];

/**
 * RFC 4180 quoting; text neutralised as the dashboard's exports do (csvText: a quote before a formula
 * character at the start or behind a separator). Its text is the server's own (ids, entry types,
 * ledger descriptions), so it is quoted only when it must be, which keeps the columns plain to split.
 */
export function statementField(v: string | number): string {
  if (typeof v === 'number') return String(v);
  const safe = csvText(v);
  return /[",;\t\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function row(m: StatementMovement): string {
  return [m.id, m.created_at, m.type, m.amount, m.balance_after, m.resource.type, m.resource.id, m.description].map(statementField).join(',') + '\r\n';
}

/**
 * GET /api/statement.csv?from&to: the statement of the filtered range as CSV, streamed page by page
 * (200 lines at a time) with backpressure, so a range of a million lines never sits in memory. The
 * first page goes through the account.statement procedure, which authenticates (the dashboard's
 * session cookie, or a bearer token), validates the query and counts once against the rate limit; the
 * following pages ask the same domain function with the cursor it handed out.
 */
export async function streamStatementCsv(services: Services, req: IncomingMessage, res: ServerResponse, url: URL, headers: Record<string, string | undefined>): Promise<void> {
  const from = url.searchParams.get('from') ?? undefined;
  const to = url.searchParams.get('to') ?? undefined;
  const unknown = [...url.searchParams.keys()].filter((k) => k !== 'from' && k !== 'to');
  const { ip, https } = requestOrigin(services, req);
  const ctx = createContextInner({ services, headers, ip, https, transport: 'rest' });
  ctx.auth = await merchantAuth(ctx, 'query');
  if (!ctx.auth) throw new DomainError('UNAUTHORIZED', 'sign in to the dashboard (or send Authorization: Bearer <access_token>)');
  const accountId = ctx.auth.accountId;
  // errors of the first page (400, 429) propagate before any byte is written
  const first = await createCaller(ctx).account.statement({ from, to, limit: STATEMENT_MAX_LIMIT, ...Object.fromEntries(unknown.map((k) => [k, url.searchParams.get(k)])) });
  const name = `statement${from ? `-from-${from}` : ''}${to ? `-to-${to}` : ''}.csv`.replace(/[^\w.-]/g, '_');
  res.statusCode = 200;
  res.setHeader('content-type', 'text/csv; charset=utf-8');
  res.setHeader('content-disposition', `attachment; filename="${name}"`);
  res.setHeader('cache-control', 'no-store');
  res.write('\ufeff' + HEADER.join(',') + '\r\n'); // the BOM makes spreadsheets read UTF-8
  let page = first;
  for (;;) {
    let chunk = '';
    for (const m of page.data) chunk += row(m);
    if (chunk && !res.write(chunk)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
    if (res.destroyed || !page.next_cursor) break;
    page = await accountStatement(services, accountId, { from, to, limit: STATEMENT_MAX_LIMIT, cursor: page.next_cursor });
  }
  res.end();
}
