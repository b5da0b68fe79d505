// The ledger's books checked whole after money moved, for the API Pix tests against the running server
// (their token: pix-api-client.ts pixApiToken).
import { peek } from './peek';

/** The ledger audit: every line sums to zero and every book's balance is the sum of its lines. */
export const ledgerAudit = (databasePath: string) => peek(databasePath, async (db) => ({
  total: Number((await db.get<{ s: number }>('SELECT coalesce(sum(amount), 0) AS s FROM ledger_lines'))!.s),
  mismatched: Number((await db.get<{ n: number }>('SELECT count(*) AS n FROM ledger_books b WHERE b.balance <> coalesce((SELECT sum(amount) FROM ledger_lines l WHERE l.book_id = b.id), 0)'))!.n),
}));
