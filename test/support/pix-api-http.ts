// The API Pix over HTTP for tests against the running server: a token from POST /oauth/token, and the
// ledger's books checked whole after money moved.
import { peek } from './peek';

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** A Bearer token of the API Pix client (every scope it has unless `scope` narrows them). */
export async function pixToken(url: string, clientId: string, clientSecret: string, scope?: string): Promise<string> {
  const res = await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { authorization: basic(clientId, clientSecret), 'content-type': 'application/x-www-form-urlencoded' },
    body: `grant_type=client_credentials${scope ? `&scope=${encodeURIComponent(scope)}` : ''}`,
  });
  if (res.status !== 200) throw new Error(`token request failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** The ledger audit: every line sums to zero and every book's balance is the sum of its lines. */
export const ledgerAudit = (databasePath: string) => peek(databasePath, async (db) => ({
  total: Number((await db.get<{ s: number }>('SELECT coalesce(sum(amount), 0) AS s FROM ledger_lines'))!.s),
  mismatched: Number((await db.get<{ n: number }>('SELECT count(*) AS n FROM ledger_books b WHERE b.balance <> coalesce((SELECT sum(amount) FROM ledger_lines l WHERE l.book_id = b.id), 0)'))!.n),
}));
