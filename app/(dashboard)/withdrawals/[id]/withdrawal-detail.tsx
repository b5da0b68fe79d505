'use client';
import { useQuery } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { BackLink, DetailList, ErrorState, Loading, Money, PageHeader, StatusBadge } from '../../../_components/ui';
import { NotFoundCard } from '../../../_components/not-found-card';
import { apiErrorCode } from '../../../_lib/api-errors';
import { formatDateTime } from '../../../_lib/dates';
import { formatDocument, formatPixKey } from '../../../_lib/documents';
import { formatBRL } from '../../../_lib/money';
import { useTRPC } from '../../../_lib/trpc';

export function WithdrawalDetail({ id }: { id: string }) {
  const t = useTranslations('withdrawals');
  const tt = useTranslations('terms');
  const trpc = useTRPC();
  const q = useQuery({
    ...trpc.withdrawals.get.queryOptions({ identifier: id }),
    // poll while any batch is still settling; stop once every batch is final
    refetchInterval: (query) => (query.state.data?.receipt.some((b) => b.status === 'PENDING') ? 1_000 : false),
  });
  const back = <BackLink href="/withdrawals">{t('title')}</BackLink>;
  if (q.isPending) return <>{back}<Loading /></>;
  if (q.isError) {
    if (apiErrorCode(q.error) === 'NOT_FOUND') return <NotFoundCard title={t('detail.notFound')} back="/withdrawals" backLabel={t('detail.backToList')} />;
    return <>{back}<ErrorState error={q.error} onRetry={() => q.refetch()} /></>;
  }
  const w = q.data;
  const pending = w.receipt.filter((b) => b.status === 'PENDING').length;
  const op = w.operation;
  return (
    <>
      {back}
      <PageHeader title={t('detail.title', { amount: formatBRL(w.amount) })} subtitle={<span className="mono">{w.id}</span>}
        actions={<span data-testid="withdrawal-status"><StatusBadge kind="withdrawal" status={w.status} /></span>} />
      {pending > 0 ? (
        <div className="alert alert-info" role="status">{t('detail.settling', { pending, total: w.receipt.length })}</div>
      ) : null}
      <section className="card" aria-labelledby="op-title">
        <h2 id="op-title">{t('detail.request')}</h2>
        <DetailList rows={[
          [t('detail.amount'), <Money key="a" cents={w.amount} />],
          [t('detail.status'), <StatusBadge key="s" kind="withdrawal" status={w.status} />],
          [t('detail.pixKey'), <span key="k"><span className="muted small">{tt(`keyType.${op.key_type}`)}</span> {formatPixKey(op.key_type, op.key)}</span>],
          [t('detail.recipient'), op.details.name],
          [t('detail.recipientDocument'), formatDocument(op.details.document)],
          [t('detail.description'), op.description],
          [t('detail.externalRef'), op.external_ref],
          [t('detail.postback'), op.postback],
          [t('detail.created'), formatDateTime(w.created_at)],
          [t('detail.updated'), formatDateTime(w.updated_at)],
        ]} />
      </section>
      <section className="card" aria-labelledby="batches-title">
        <h2 id="batches-title">{t('detail.batches', { count: w.receipt.length })}</h2>
        <ol className="batches" aria-live="polite">
          {w.receipt.map((b, i) => (
            <li key={b.identifier} className="batch" data-testid="batch">
              <div className="batch-head">
                <strong>{t('detail.batch', { n: i + 1 })}</strong>
                <StatusBadge kind="batch" status={b.status} />
              </div>
              {b.status === 'ERROR' ? <p className="muted small">{t('detail.batchFailed')}</p> : null}
              <DetailList rows={[
                [t('detail.identifier'), <span key="i" className="mono">{b.identifier}</span>],
                [t('detail.endToEnd'), b.endtoend ? <span key="e" className="mono">{b.endtoend}</span> : (b.status === 'PENDING' ? <span key="e" className="muted">{t('detail.afterSettlement')}</span> : null)],
                [t('detail.receiver'), b.receiver_name],
                [t('detail.receiverBank'), b.receiver_bank ? <span key="b">{b.receiver_bank}{b.receiver_bank_ispb ? <span className="muted"> · {t('detail.ispb', { ispb: b.receiver_bank_ispb })}</span> : null}</span> : null],
              ]} />
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}
