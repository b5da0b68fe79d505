'use client';
import type { ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { BackLink, DetailList, ErrorState, Loading, Money, PageHeader, StatusBadge } from '../../../_components/ui';
import { NotFoundCard } from '../../../_components/not-found-card';
import { apiErrorCode } from '../../../_lib/api-errors';
import { formatDateTime } from '../../../_lib/dates';
import { formatDocument, formatPixKey } from '../../../_lib/documents';
import { formatBRL } from '../../../_lib/money';
import { useTRPC } from '../../../_lib/trpc';
import type { FailureCode } from '@/contract/enums';

/**
 * A failed batch's reason in the reader's words. The rail's `failure_reason` is an English sentence for
 * the API; a failure without a known code gets a general sentence in the reader's language instead.
 */
function BatchFailure({ code }: { code: FailureCode | null }) {
  const tp = useTranslations('payout');
  return (
    <div className="alert alert-error batch-failure" data-testid="batch-failure">
      <strong>{tp('failureReason')}:</strong> {tp(`failure.${code ?? 'other'}`)} {tp('failedReturned')}
    </div>
  );
}

export function WithdrawalDetail({ id }: { id: string }) {
  const t = useTranslations('withdrawals.detail');
  const tw = useTranslations('withdrawals');
  const tp = useTranslations('payout');
  const tt = useTranslations('terms');
  const trpc = useTRPC();
  const q = useQuery({
    ...trpc.withdrawals.get.queryOptions({ identifier: id }),
    // poll while any batch is still settling; stop once every batch is final
    refetchInterval: (query) => (query.state.data?.receipt.some((b) => b.status === 'PENDING') ? 1_000 : false),
  });
  if (q.isPending) return <><BackLink href="/withdrawals">{tw('title')}</BackLink><Loading /></>;
  if (q.isError) {
    if (apiErrorCode(q.error) === 'NOT_FOUND') return <NotFoundCard title={t('notFound')} back="/withdrawals" backLabel={t('backToList')} />;
    return <><BackLink href="/withdrawals">{tw('title')}</BackLink><ErrorState error={q.error} onRetry={() => q.refetch()} /></>;
  }
  const w = q.data;
  const pending = w.receipt.filter((b) => b.status === 'PENDING').length;
  const op = w.operation;
  return (
    <>
      <BackLink href="/withdrawals">{tw('title')}</BackLink>
      <PageHeader title={t('title', { amount: formatBRL(w.amount) })} subtitle={<span className="mono">{w.id}</span>}
        actions={<span data-testid="withdrawal-status"><StatusBadge kind="withdrawal" status={w.status} /></span>} />
      {pending > 0 ? (
        <div className="alert alert-info" role="status">
          {t('settling', { pending, total: w.receipt.length })}
        </div>
      ) : null}
      <section className="card" aria-labelledby="op-title">
        <h2 id="op-title">{t('request')}</h2>
        <DetailList rows={[
          [t('amount'), <Money key="a" cents={w.amount} />],
          [t('status'), <StatusBadge key="s" kind="withdrawal" status={w.status} />],
          [t('pixKey'), <span key="k"><span className="muted small">{tt(`keyType.${op.key_type}`)}</span> {formatPixKey(op.key_type, op.key)}</span>],
          [t('recipient'), op.details.name],
          [t('recipientDocument'), formatDocument(op.details.document)],
          [t('description'), op.description],
          [t('externalRef'), op.external_ref],
          [t('postback'), op.postback],
          [t('created'), formatDateTime(w.created_at)],
          [t('updated'), formatDateTime(w.updated_at)],
        ]} />
      </section>
      <section className="card" aria-labelledby="batches-title">
        <h2 id="batches-title">{t('batches', { count: w.receipt.length })}</h2>
        <ol className="batches" aria-live="polite">
          {w.receipt.map((b, i) => (
            <li key={b.identifier} className="batch" data-testid="batch">
              <div className="batch-head">
                <strong>{t('batch', { n: i + 1 })}</strong>
                <StatusBadge kind="batch" status={b.status} />
              </div>
              {b.status === 'ERROR' ? <BatchFailure code={b.failure_code} /> : null}
              <DetailList rows={[
                [tp('batchAmount'), <Money key="m" cents={b.amount} />],
                [t('identifier'), <span key="i" className="mono">{b.identifier}</span>],
                // a failed batch never reached anyone: no receipt fields to show empty
                ...(b.status === 'ERROR' ? [] : [
                  [t('endToEnd'), b.endtoend ? <span key="e" className="mono">{b.endtoend}</span> : <span key="e" className="muted">{t('afterSettlement')}</span>],
                  [t('receiver'), b.receiver_name],
                  [t('receiverBank'), b.receiver_bank ? <span key="b">{b.receiver_bank}{b.receiver_bank_ispb ? <span className="muted"> · {t('ispb', { ispb: b.receiver_bank_ispb })}</span> : null}</span> : null],
                ] satisfies [string, ReactNode][]),
              ]} />
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}

