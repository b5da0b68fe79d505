import { csvAmount, csvTime } from '@/contract/csv';
import { csvExport } from '../../../_lib/csv-export';

export const dynamic = 'force-dynamic';

/** GET /withdrawals/export?q=&status=&from=&to= — the filtered withdrawals as CSV, streamed. */
export function GET(request: Request) {
  return csvExport(request, {
    name: 'saques',
    header: () => ['criado_em', 'id', 'situacao', 'valor', 'recebedor', 'documento', 'tipo_chave', 'chave', 'referencia_externa', 'lotes', 'e2e'],
    page: async (caller, f, cursor, t) => {
      const r = await caller.withdrawals.search({ q: f.q, status: f.status as never, from: f.from, to: f.to, cursor, limit: 100 });
      return {
        nextCursor: r.next_cursor,
        rows: r.items.map((w) => [
          csvTime(w.created_at), w.id, t.status(`withdrawal.${w.status}`), csvAmount(w.amount), w.operation.details.name, w.operation.details.document,
          t.terms(`keyType.${w.operation.key_type}`), w.operation.key, w.operation.external_ref ?? '', w.receipt.map((b) => b.identifier).join(' '),
          w.receipt.map((b) => b.endtoend ?? '').filter(Boolean).join(' '),
        ]),
      };
    },
  });
}
