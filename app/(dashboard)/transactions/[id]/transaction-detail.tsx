'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { QRCodeSVG } from 'qrcode.react';
import type { ReactNode } from 'react';
import { PixShare } from '../../../_components/pix-share';
import { BackLink, ChargeBadge, chargeShownStatus, CopyButton, DetailList, ErrorState, FormError, Loading, Money, PageHeader, StatusBadge, useStatusLabel } from '../../../_components/ui';
import { NotFoundCard } from '../../../_components/not-found-card';
import { apiErrorCode } from '../../../_lib/api-errors';
import { formatDateTime } from '../../../_lib/dates';
import { formatDigitableLine, formatDocument, formatPhone } from '../../../_lib/documents';
import { formatBRL } from '../../../_lib/money';
import { useTRPC } from '../../../_lib/trpc';
import { RefundPanel } from './refund-panel';

export function TransactionDetail({ id }: { id: string }) {
  const t = useTranslations('transactions');
  const tt = useTranslations('terms');
  // why a charge was refused, in words: the API's codes (card_declined, expired) never reach the screen
  const refusedText = (code: string) => t(`detail.refused.${t.has(`detail.refused.${code}` as 'detail.refused.other') ? code : 'other'}` as 'detail.refused.other');
  const statusLabel = useStatusLabel();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tx = useQuery({
    ...trpc.transactions.get.queryOptions({ id }),
    // a pending charge may be paid or expire at any moment, a pending refund settle
    refetchInterval: (query) => (query.state.data?.status === 'PENDING' || query.state.data?.refunds.some((r) => r.status === 'PENDING') ? 3_000 : false),
  });
  const found = tx.isSuccess;
  const payment = useQuery({ ...trpc.transactions.paymentDetails.queryOptions({ transactionId: id }), enabled: found });
  const disputes = useQuery({ ...trpc.transactions.disputes.queryOptions({ transactionId: id }), enabled: found });

  const refresh = async () => {
    await Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.transactions.get.queryKey({ id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.transactions.paymentDetails.queryKey({ transactionId: id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.transactions.disputes.queryKey({ transactionId: id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.transactions.search.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.transactions.disputeList.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.dashboard.overview.pathKey() }),
    ]);
  };
  const pay = useMutation(trpc.sandbox.pay.mutationOptions({ onSuccess: refresh }));
  const openDispute = useMutation(trpc.sandbox.openDispute.mutationOptions({ onSuccess: refresh }));
  const resolve = useMutation(trpc.sandbox.resolveDispute.mutationOptions({ onSuccess: refresh }));
  const actionError = pay.error ?? openDispute.error ?? resolve.error;

  const back = <BackLink href="/transactions">{t('title')}</BackLink>;
  if (tx.isPending) return <>{back}<Loading /></>;
  if (tx.isError) {
    if (apiErrorCode(tx.error) === 'NOT_FOUND') return <NotFoundCard title={t('detail.notFound')} back="/transactions" backLabel={t('detail.backToList')} />;
    return <>{back}<ErrorState error={tx.error} onRetry={() => tx.refetch()} /></>;
  }
  const x = tx.data;
  const p = payment.data;
  const openCase = disputes.data?.find((d) => d.status === 'OPEN');
  const lostCase = disputes.data?.find((d) => d.status === 'LOST');
  const dispute = openCase?.status ?? lostCase?.status ?? null;
  const canPay = x.status === 'PENDING' && (x.method === 'PIX' || x.method === 'INVOICE');
  const canDispute = x.method === 'CARD' && x.status === 'APPROVED' && disputes.isSuccess && disputes.data.length === 0;
  const busy = pay.isPending || openDispute.isPending || resolve.isPending;
  const method = tt(`method.${x.method}`);
  const shownStatus = chargeShownStatus(x.status, x.refunded_amount, x.total);
  const status = statusLabel('transaction', shownStatus).toLowerCase();

  return (
    <>
      {back}
      <PageHeader title={t('detail.title', { kind: x.method, amount: formatBRL(x.total).replace(' ', '\u00a0') /* "R$" never ends a line alone */ })} subtitle={<span className="mono">{x.id}</span>}
        actions={<span data-testid="transaction-status"><ChargeBadge status={shownStatus} dispute={dispute} /></span>} />

      {openCase ? (
        <p className="alert alert-warn" role="status" data-testid="dispute-alert">{t('detail.disputeOpen', { amount: formatBRL(openCase.amount) })}</p>
      ) : lostCase ? (
        <p className="alert alert-error" role="status" data-testid="dispute-alert">{t('detail.disputeLost', { amount: formatBRL(lostCase.amount) })}</p>
      ) : null}

      {x.method === 'PIX' && p?.qrcode && x.status === 'PENDING' ? (
        <section className="card" aria-labelledby="pix-title">
          <h2 id="pix-title">{t('detail.payWithPix')}</h2>
          <div className="qr-layout">
            <div className="qr-box"><QRCodeSVG value={p.qrcode} size={208} marginSize={2} title={t('detail.qrTitle')} /></div>
            <div className="qr-text">
              <p className="muted">{t('detail.pixHelp')}
                {p.expires_at ? <> {t('detail.expires', { when: formatDateTime(p.expires_at) })}</> : null}</p>
              <p className="brcode" data-testid="brcode">{p.qrcode}</p>
              <div className="button-row">
                <CopyButton text={p.qrcode} label={t('detail.copyPix')} />
              </div>
              <PixShare brcode={p.qrcode} title={t('detail.shareTitle', { amount: formatBRL(x.total) })} fileName={`pix-${x.id}.png`} />
            </div>
          </div>
        </section>
      ) : null}

      <section className="card" aria-labelledby="sandbox-title">
        <h2 id="sandbox-title">{t('detail.sandbox')}</h2>
        <p className="muted">{t('detail.sandboxHelp', { kind: x.method })}</p>
        <FormError error={actionError} />
        <div className="button-row">
          {canPay ? <button type="button" className="button primary" disabled={busy} onClick={() => pay.mutate({ id: x.id })}>{pay.isPending ? t('detail.paying') : t('detail.pay')}</button> : null}
          {canDispute ? <button type="button" className="button secondary" disabled={busy} onClick={() => openDispute.mutate({ id: x.id })}>{openDispute.isPending ? t('detail.opening') : t('detail.openDispute')}</button> : null}
          {openCase ? (
            <>
              <button type="button" className="button primary" disabled={busy} onClick={() => resolve.mutate({ id: openCase.id, outcome: 'won' })}>{t('detail.winDispute')}</button>
              <button type="button" className="button danger" disabled={busy} onClick={() => resolve.mutate({ id: openCase.id, outcome: 'lost' })}>{t('detail.loseDispute')}</button>
            </>
          ) : null}
          {!canPay && !canDispute && !openCase ? <p className="muted small">{disputes.data?.length ? t('detail.noActionClosed', { status }) : t('detail.noAction', { status })}</p> : null}
        </div>
      </section>

      <section className="card" aria-labelledby="tx-title">
        <h2 id="tx-title">{t('detail.details')}</h2>
        <DetailList rows={[
          [t('detail.total'), <Money key="t" cents={x.total} />],
          ...(x.refunded_amount > 0 ? [[t('detail.refunded'), <Money key="r" cents={x.refunded_amount} />] as [string, ReactNode]] : []),
          [t('detail.status'), <ChargeBadge key="s" status={shownStatus} dispute={dispute} />],
          [t('detail.method'), method],
          [t('detail.endToEnd'), x.endtoend ? <span key="e" className="mono">{x.endtoend}</span> : null],
          [t('detail.externalRef'), x.external_ref],
          [t('detail.postback'), x.postback],
          ...(p?.card ? [[t('detail.card'), t('detail.cardSummary', { brand: p.card.brand, last4: p.card.last4, holder: p.card.holder_name, installments: p.card.installments })] as [string, string]] : []),
          ...(p?.invoice ? [
            [t('detail.invoice'), <span key="i"><span className="mono">{p.invoice.id}</span> · {t('detail.due', { date: p.invoice.due_date.split('-').reverse().join('/') })}</span>] as [string, ReactNode],
            [t('detail.digitableLine'), (
              <span key="d" className="digitable">
                <span className="mono" data-testid="digitable-line">{formatDigitableLine(p.invoice.digitable_line)}</span>
                <CopyButton text={p.invoice.digitable_line} label={t('detail.copyLine')} />
              </span>
            )] as [string, ReactNode],
          ] : []),
          ...(p?.refused_reason ? [[t('detail.refusedBecause'), refusedText(p.refused_reason)] as [string, string]] : []),
          [t('detail.created'), formatDateTime(x.created_at)],
          [t('detail.updated'), formatDateTime(x.updated_at)],
        ]} />
      </section>

      {x.status === 'APPROVED' && disputes.isSuccess ? <RefundPanel t={x} dispute={dispute === 'OPEN' || dispute === 'LOST' ? dispute : null} onRefunded={refresh} /> : null}

      <section className="card" aria-labelledby="customer-title">
        <h2 id="customer-title">{t('detail.customer')}</h2>
        <DetailList rows={[
          [t('detail.name'), x.customer.name], [t('detail.email'), x.customer.email], [t('detail.document'), formatDocument(x.customer.document)],
          [t('detail.phone'), x.customer.phone ? formatPhone(x.customer.phone) : null],
        ]} />
      </section>

      <section className="card" aria-labelledby="items-title">
        <h2 id="items-title">{t('detail.items')}</h2>
        <div className="table-wrap">
          <table className="list">
            <thead><tr><th>{t('detail.item')}</th><th className="num">{t('detail.unitPrice')}</th><th className="num">{t('detail.quantity')}</th><th className="num">{t('detail.subtotal')}</th></tr></thead>
            <tbody>
              {x.items.map((it, i) => (
                <tr key={i}>
                  <td data-label={t('detail.item')}><span>{it.title}{it.tangible ? <span className="muted small"> · {t('detail.physical')}</span> : null}</span></td>
                  <td data-label={t('detail.unitPrice')} className="num"><Money cents={it.unitPrice} /></td>
                  <td data-label={t('detail.quantity')} className="num">{it.quantity}</td>
                  <td data-label={t('detail.subtotal')} className="num"><Money cents={it.unitPrice * it.quantity} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      {disputes.data && disputes.data.length > 0 ? (
        <section className="card" aria-labelledby="disputes-title" data-testid="disputes">
          <h2 id="disputes-title">{t('detail.disputes')}</h2>
          <ul className="activity">
            {disputes.data.map((d) => (
              <li key={d.id}>
                <div className="activity-main"><span className="mono small">{d.id}</span><span className="muted small">{t('detail.disputeOpened', { when: formatDateTime(d.created_at) })}</span></div>
                <div className="activity-side"><Money cents={d.amount} /><StatusBadge kind="dispute" status={d.status} /></div>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}
