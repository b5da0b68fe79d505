import { csvAmount, csvTime } from '@/contract/csv';
import { csvExport } from '../../../_lib/csv-export';

export const dynamic = 'force-dynamic';

/** GET /transactions/export?q=&status=&method=&from=&to= — the filtered transactions as CSV, streamed. */
export function GET(request: Request) {
  return csvExport(request, {
    name: 'transacoes',
    header: () => ['criada_em', 'id', 'situacao', 'forma', 'valor', 'cliente', 'email', 'documento', 'referencia_externa', 'e2e', 'contestacao'],
    page: async (caller, f, cursor, t) => {
      const r = await caller.transactions.search({
        q: f.q, status: f.status as never, method: f.method as never, from: f.from, to: f.to, cursor, limit: 100,
      });
      return {
        nextCursor: r.next_cursor,
        rows: r.items.map((x) => [
          csvTime(x.created_at), x.id, t.status(`transaction.${x.status}`), t.terms(`method.${x.method}`), csvAmount(x.total),
          x.customer.name, x.customer.email, x.customer.document, x.external_ref ?? '', x.endtoend ?? '', x.dispute ? t.status(`dispute.${x.dispute}`) : '',
        ]),
      };
    },
  });
}
