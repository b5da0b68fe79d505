import { getTranslations } from 'next-intl/server';
import type { PagesCaller } from '@/server/pages-caller';
import { csvStream, type CsvCell } from '@/server/domain/exports';
import { currentSession, requestCaller } from './session-server';

type Page = { rows: CsvCell[][]; nextCursor: string | null };
type StatusT = Awaited<ReturnType<typeof getTranslations<'status'>>>;
type TermsT = Awaited<ReturnType<typeof getTranslations<'terms'>>>;

/**
 * The domain's refusal inside what the procedure threw. By shape, not `instanceof`: the caller comes
 * from server/main.ts, whose error classes are not the ones Next bundled into this route.
 */
function refusal(e: unknown): { status: number; detail: string } | null {
  for (let x = e as { name?: string; status?: unknown; detail?: string; cause?: unknown } | undefined, i = 0; x && i < 4; x = x.cause as typeof x, i++) {
    if (x.name === 'DomainError' && typeof x.status === 'number') return { status: x.status, detail: x.detail ?? '' };
  }
  const t = e as { code?: string; message?: string };
  return t.code === 'BAD_REQUEST' ? { status: 400, detail: t.message ?? 'bad request' } : null;
}

/**
 * A list's CSV download: the signed-in person's account (through the list's search procedure), the list's own filters from the query string,
 * streamed page by page (keyset) with the person's language for statuses. A filter the search refuses
 * (a malformed day or document) answers 400 before anything is streamed.
 */
export async function csvExport(request: Request, o: {
  name: string;
  header: (t: { status: StatusT; terms: TermsT }) => string[];
  page: (caller: PagesCaller, filters: Record<string, string | undefined>, cursor: string | null, t: { status: StatusT; terms: TermsT }) => Promise<Page>;
}): Promise<Response> {
  const session = await currentSession();
  if (!session) return new Response('sign in first\n', { status: 401, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  const params = new URL(request.url).searchParams;
  const filters = Object.fromEntries([...params.entries()].filter(([k, v]) => k !== 'pages' && v !== ''));
  const t = {
    status: await getTranslations({ locale: session.locale, namespace: 'status' }),
    terms: await getTranslations({ locale: session.locale, namespace: 'terms' }),
  };
  const caller = await requestCaller();
  let first: Page;
  try {
    first = await o.page(caller, filters, null, t);
  } catch (e) {
    const d = refusal(e);
    if (d?.status === 400) return new Response(`${d.detail}\n`, { status: 400, headers: { 'content-type': 'text/plain; charset=utf-8' } });
    throw e;
  }
  let served = false;
  const stream = csvStream(o.header(t), async (cursor) => {
    if (!served) { served = true; return first; }
    return o.page(caller, filters, cursor, t);
  });
  const day = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date());
  return new Response(stream, {
    headers: {
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="${o.name}-${day}.csv"`,
      'cache-control': 'no-store',
    },
  });
}
