'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { QRCodeSVG } from 'qrcode.react';
import type { ReactNode } from 'react';
import { BackLink, CopyButton, DetailList, ErrorState, FormError, Loading, Money, PageHeader, StatusBadge } from '../../../_components/ui';
import { NotFoundCard } from '../../../_components/not-found-card';
import { apiErrorCode, describeApiError } from '../../../_lib/api-errors';
import { formatDateTime } from '../../../_lib/dates';
import { formatDocument, formatPhone } from '../../../_lib/documents';
import { formatBRL } from '../../../_lib/money';
import { useTRPC } from '../../../_lib/trpc';
import { RefundPanel } from './refund-panel';

export function TransactionDetail({ id }: { id: string }) {
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
      queryClient.invalidateQueries({ queryKey: trpc.transactions.list.pathKey() }),
      queryClient.invalidateQueries({ queryKey: trpc.dashboard.overview.pathKey() }),
    ]);
  };
  const pay = useMutation(trpc.sandbox.pay.mutationOptions({ onSuccess: refresh }));
  const openDispute = useMutation(trpc.sandbox.openDispute.mutationOptions({ onSuccess: refresh }));
  const resolve = useMutation(trpc.sandbox.resolveDispute.mutationOptions({ onSuccess: refresh }));
  const actionError = pay.error ?? openDispute.error ?? resolve.error;

  if (tx.isPending) return <><BackLink href="/transactions">Transactions</BackLink><Loading /></>;
  if (tx.isError) {
    if (apiErrorCode(tx.error) === 'NOT_FOUND') return <NotFoundCard what="Transaction" back="/transactions" backLabel="Transactions" />;
    return <><BackLink href="/transactions">Transactions</BackLink><ErrorState error={tx.error} onRetry={() => tx.refetch()} /></>;
  }
  const t = tx.data;
  const p = payment.data;
  const openCase = disputes.data?.find((d) => d.status === 'OPEN');
  const disputeHolds = !!disputes.data?.some((d) => d.status === 'OPEN' || d.status === 'LOST');
  const canPay = t.status === 'PENDING' && (t.method === 'PIX' || t.method === 'INVOICE');
  const canDispute = t.method === 'CARD' && t.status === 'APPROVED' && disputes.isSuccess && disputes.data.length === 0;
  const busy = pay.isPending || openDispute.isPending || resolve.isPending;

  return (
    <>
      <BackLink href="/transactions">Transactions</BackLink>
      <PageHeader title={`${t.method} charge ${formatBRL(t.total)}`} subtitle={<span className="mono">{t.id}</span>}
        actions={<span data-testid="transaction-status"><StatusBadge status={t.status} /></span>} />

      {t.method === 'PIX' && p?.qrcode && t.status === 'PENDING' ? (
        <section className="card" aria-labelledby="pix-title">
          <h2 id="pix-title">Pay with Pix</h2>
          <div className="qr-layout">
            <div className="qr-box"><QRCodeSVG value={p.qrcode} size={208} marginSize={2} title="Pix QR code" /></div>
            <div>
              <p className="muted">Scan the QR code in a bank app, or paste the code below (Pix Copia e Cola).
                {p.expires_at ? <> Expires {formatDateTime(p.expires_at)}.</> : null}</p>
              <p className="brcode" data-testid="brcode">{p.qrcode}</p>
              <CopyButton text={p.qrcode} label="Copy Pix Copia e Cola" />
            </div>
          </div>
        </section>
      ) : null}

      <section className="card" aria-labelledby="sandbox-title">
        <h2 id="sandbox-title">Sandbox</h2>
        <p className="muted">Act as the payer or the card network to see how the charge moves.</p>
        {openCase ? (
          <p className="alert alert-info" role="status">A dispute of <Money cents={openCase.amount} /> is open: that amount is held from your available
            balance until it is won (released) or lost (kept as a chargeback).</p>
        ) : null}
        <FormError message={actionError ? describeApiError(actionError).message : null} />
        <div className="button-row">
          {canPay ? <button type="button" className="button primary" disabled={busy} onClick={() => pay.mutate({ id: t.id })}>{pay.isPending ? 'Paying…' : 'Pay (sandbox)'}</button> : null}
          {canDispute ? <button type="button" className="button secondary" disabled={busy} onClick={() => openDispute.mutate({ id: t.id })}>{openDispute.isPending ? 'Opening…' : 'Open a dispute'}</button> : null}
          {openCase ? (
            <>
              <button type="button" className="button primary" disabled={busy} onClick={() => resolve.mutate({ id: openCase.id, outcome: 'won' })}>Win the dispute</button>
              <button type="button" className="button danger" disabled={busy} onClick={() => resolve.mutate({ id: openCase.id, outcome: 'lost' })}>Lose the dispute</button>
            </>
          ) : null}
          {!canPay && !canDispute && !openCase ? <p className="muted small">No sandbox action applies: this {t.method} charge is {t.status.toLowerCase()}{disputes.data?.length ? ' and its dispute is closed' : ''}.</p> : null}
        </div>
      </section>

      <section className="card" aria-labelledby="tx-title">
        <h2 id="tx-title">Details</h2>
        <DetailList rows={[
          ['Total', <Money key="t" cents={t.total} />],
          ...(t.refunded_amount > 0 ? [['Refunded', <Money key="r" cents={t.refunded_amount} />] as [string, ReactNode]] : []),
          ['Status', <StatusBadge key="s" status={t.status} />],
          ['Method', t.method],
          ['End-to-end id', t.endtoend ? <span key="e" className="mono">{t.endtoend}</span> : null],
          ['External reference', t.external_ref],
          ['Postback URL', t.postback],
          ...(p?.card ? [['Card', `${p.card.brand} •••• ${p.card.last4} · ${p.card.holder_name} · ${p.card.installments}×`] as [string, string]] : []),
          ...(p?.invoice ? [['Invoice', <span key="i"><span className="mono">{p.invoice.id}</span> · due {p.invoice.due_date}</span>] as [string, ReactNode], ['Digitable line', <span key="d" className="mono">{p.invoice.digitable_line}</span>] as [string, ReactNode]] : []),
          ...(p?.refused_reason ? [['Refused because', p.refused_reason] as [string, string]] : []),
          ['Created', formatDateTime(t.created_at)],
          ['Updated', formatDateTime(t.updated_at)],
        ]} />
      </section>

      {t.status === 'APPROVED' && disputes.isSuccess ? <RefundPanel t={t} disputeHolds={disputeHolds} onRefunded={refresh} /> : null}

      <section className="card" aria-labelledby="customer-title">
        <h2 id="customer-title">Customer</h2>
        <DetailList rows={[
          ['Name', t.customer.name], ['Email', t.customer.email], ['Document', formatDocument(t.customer.document)], ['Phone', t.customer.phone ? formatPhone(t.customer.phone) : null],
        ]} />
      </section>

      <section className="card" aria-labelledby="items-title">
        <h2 id="items-title">Items</h2>
        <div className="table-wrap">
          <table className="list">
            <thead><tr><th>Item</th><th className="num">Unit price</th><th className="num">Quantity</th><th className="num">Subtotal</th></tr></thead>
            <tbody>
              {t.items.map((it, i) => (
                <tr key={i}>
                  <td data-label="Item"><span>{it.title}{it.tangible ? <span className="muted small"> · physical</span> : null}</span></td>
                  <td data-label="Unit price" className="num"><Money cents={it.unitPrice} /></td>
                  <td data-label="Quantity" className="num">{it.quantity}</td>
                  <td data-label="Subtotal" className="num"><Money cents={it.unitPrice * it.quantity} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      {disputes.data && disputes.data.length > 0 ? (
        <section className="card" aria-labelledby="disputes-title" data-testid="disputes">
          <h2 id="disputes-title">Disputes</h2>
          <ul className="activity">
            {disputes.data.map((d) => (
              <li key={d.id}>
                <div className="activity-main"><span className="mono small">{d.id}</span><span className="muted small">opened {formatDateTime(d.created_at)}</span></div>
                <div className="activity-side"><Money cents={d.amount} /><StatusBadge status={d.status} /></div>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}
