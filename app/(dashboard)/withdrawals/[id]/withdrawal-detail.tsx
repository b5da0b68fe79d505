'use client';
import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { BackLink, DetailList, ErrorState, Loading, Money, PageHeader, StatusBadge } from '../../../_components/ui';
import { NotFoundCard } from '../../../_components/not-found-card';
import { apiErrorCode } from '../../../_lib/api-errors';
import { formatDateTime } from '../../../_lib/dates';
import { formatDocument, formatPixKey } from '../../../_lib/documents';
import { formatBRL } from '../../../_lib/money';
import { useTRPC } from '../../../_lib/trpc';
import { payoutCopy as copy } from '../payout-copy';

/** A failed batch's reason in the reader's words; a reason without a known code is shown as the rail gave it. */
function BatchFailure({ code, reason }: { code: keyof typeof copy.failure | null; reason: string | null }) {
  return (
    <div className="alert alert-error batch-failure" data-testid="batch-failure">
      <strong>{copy.failureReason}:</strong> {code ? copy.failure[code] : reason} {copy.failedReturned}
    </div>
  );
}

export function WithdrawalDetail({ id }: { id: string }) {
  const trpc = useTRPC();
  const q = useQuery({
    ...trpc.withdrawals.get.queryOptions({ identifier: id }),
    // poll while any batch is still settling; stop once every batch is final
    refetchInterval: (query) => (query.state.data?.receipt.some((b) => b.status === 'PENDING') ? 1_000 : false),
  });
  if (q.isPending) return <><BackLink href="/withdrawals">Withdrawals</BackLink><Loading /></>;
  if (q.isError) {
    if (apiErrorCode(q.error) === 'NOT_FOUND') return <NotFoundCard title="Saque não encontrado" back="/withdrawals" backLabel="Voltar para os saques" />;
    return <><BackLink href="/withdrawals">Withdrawals</BackLink><ErrorState error={q.error} onRetry={() => q.refetch()} /></>;
  }
  const w = q.data;
  const pending = w.receipt.filter((b) => b.status === 'PENDING').length;
  const op = w.operation;
  return (
    <>
      <BackLink href="/withdrawals">Withdrawals</BackLink>
      <PageHeader title={`Withdrawal ${formatBRL(w.amount)}`} subtitle={<span className="mono">{w.id}</span>}
        actions={<span data-testid="withdrawal-status"><StatusBadge kind="withdrawal" status={w.status} /></span>} />
      {pending > 0 ? (
        <div className="alert alert-info" role="status">
          {pending} of {w.receipt.length} {w.receipt.length === 1 ? 'batch is' : 'batches are'} settling; this page updates by itself.
        </div>
      ) : null}
      <section className="card" aria-labelledby="op-title">
        <h2 id="op-title">Request</h2>
        <DetailList rows={[
          ['Amount', <Money key="a" cents={w.amount} />],
          ['Status', <StatusBadge key="s" kind="withdrawal" status={w.status} />],
          ['Pix key', <span key="k"><span className="muted small">{op.key_type}</span> {formatPixKey(op.key_type, op.key)}</span>],
          ['Recipient', op.details.name],
          ['Recipient document', formatDocument(op.details.document)],
          ['Description', op.description],
          ['External reference', op.external_ref],
          ['Postback URL', op.postback],
          ['Created', formatDateTime(w.created_at)],
          ['Updated', formatDateTime(w.updated_at)],
        ]} />
      </section>
      <section className="card" aria-labelledby="batches-title">
        <h2 id="batches-title">Batches and receipts ({w.receipt.length})</h2>
        <ol className="batches" aria-live="polite">
          {w.receipt.map((b, i) => (
            <li key={b.identifier} className="batch" data-testid="batch">
              <div className="batch-head">
                <strong>Batch {i + 1}</strong>
                <StatusBadge kind="batch" status={b.status} />
              </div>
              {b.status === 'ERROR' ? <BatchFailure code={b.failure_code} reason={b.failure_reason} /> : null}
              <DetailList rows={[
                [copy.batchAmount, <Money key="m" cents={b.amount} />],
                ['Identifier', <span key="i" className="mono">{b.identifier}</span>],
                // a failed batch never reached anyone: no receipt fields to show empty
                ...(b.status === 'ERROR' ? [] : [
                  ['End-to-end id', b.endtoend ? <span key="e" className="mono">{b.endtoend}</span> : <span key="e" className="muted">after settlement</span>],
                  ['Receiver', b.receiver_name],
                  ['Receiver bank', b.receiver_bank ? <span key="b">{b.receiver_bank}{b.receiver_bank_ispb ? <span className="muted"> · ISPB {b.receiver_bank_ispb}</span> : null}</span> : null],
                ] satisfies [string, ReactNode][]),
              ]} />
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}

