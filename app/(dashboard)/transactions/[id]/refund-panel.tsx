'use client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { z } from 'zod';
import { REFUND_REASON_MAX, refundTransactionRequest } from '@/server/routers/transactions/schemas';
import { ConfirmDialog, Money, StatusBadge, TextField } from '../../../_components/ui';
import { ApiForm, useApiForm } from '../../../_lib/api-form';
import { formatDateTime } from '../../../_lib/dates';
import { centsToInput, formatBRL, parseBRL } from '../../../_lib/money';
import { useTRPC } from '../../../_lib/trpc';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/routers';

type Transaction = inferRouterOutputs<AppRouter>['transactions']['get'];

/**
 * Refunds of an APPROVED charge: the ones made so far and a form for a partial or full refund, which
 * asks for confirmation before sending. The server decides what is refundable (a dispute, the balance);
 * this only spares a round trip for what it can see.
 */
export function RefundPanel({ t, disputeHolds, onRefunded }: { t: Transaction; disputeHolds: boolean; onRefunded: () => Promise<void> }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useApiForm();
  const left = t.total - t.refunded_amount;
  const [mode, setMode] = useState<'full' | 'partial'>('full');
  const [amountText, setAmountText] = useState('');
  const [reason, setReason] = useState('');
  const [pending, setPending] = useState<z.output<typeof refundTransactionRequest> | null>(null);
  const refund = useMutation(trpc.transactions.refund.mutationOptions({
    onSuccess: async (view) => {
      queryClient.setQueryData(trpc.transactions.get.queryKey({ id: t.id }), view);
      setPending(null);
      setAmountText('');
      setReason('');
      await onRefunded();
    },
    onError: (err) => { setPending(null); form.showApiError(err); },
  }));

  function review() {
    const amount = mode === 'full' ? undefined : parseBRL(amountText);
    const extra: Record<string, string> = {};
    if (mode === 'partial' && amount === null) extra.amount = 'Type an amount in reais, like 12,50';
    else if (amount !== undefined && amount !== null && amount > left) extra.amount = `At most ${formatBRL(left)} can still be refunded`;
    const input = form.check(refundTransactionRequest, { id: t.id, amount: amount ?? undefined, reason: reason.trim() || undefined }, { extra });
    if (input) setPending(input);
  }

  return (
    <section className="card" aria-labelledby="refunds-title" data-testid="refunds">
      <h2 id="refunds-title">Refunds</h2>
      <p className="muted">Refunded <span data-testid="refunded-amount"><Money cents={t.refunded_amount} /></span> of <Money cents={t.total} />.
        A refund leaves your available balance at once and reaches the customer when the rail settles it.</p>
      {t.refunds.length > 0 ? (
        <ul className="activity">
          {t.refunds.map((r) => (
            <li key={r.id} data-testid="refund">
              <div className="activity-main">
                <span className="mono small">{r.id}</span>
                <span className="muted small">{formatDateTime(r.created_at)}{r.endtoend ? <> · <span className="mono">{r.endtoend}</span></> : null}</span>
              </div>
              <div className="activity-side"><Money cents={r.amount} /><StatusBadge kind="batch" status={r.status} /></div>
            </li>
          ))}
        </ul>
      ) : null}
      {disputeHolds ? (
        <p className="alert alert-info" role="status">This charge has an open or lost dispute: it cannot be refunded.</p>
      ) : left <= 0 ? (
        <p className="muted small">Fully refunded.</p>
      ) : (
        <ApiForm form={form} onSubmit={review} label="Refund">
          <fieldset>
            <legend>How much</legend>
            <div className="checkbox-row" role="radiogroup">
              <label className="checkbox"><input type="radio" name="refund-mode" checked={mode === 'full'} onChange={() => setMode('full')} /> Everything left ({formatBRL(left)})</label>
              <label className="checkbox"><input type="radio" name="refund-mode" checked={mode === 'partial'} onChange={() => { setMode('partial'); if (!amountText) setAmountText(centsToInput(left)); }} /> Part of it</label>
            </div>
          </fieldset>
          {mode === 'partial' ? (
            <TextField label="Refund amount (R$)" inputMode="decimal" value={amountText} onChange={(e) => setAmountText(e.target.value)} error={form.fields.amount} />
          ) : null}
          <TextField label="Reason (optional)" value={reason} maxLength={REFUND_REASON_MAX} onChange={(e) => setReason(e.target.value)} error={form.fields.reason} />
          <div className="button-row">
            <button type="submit" className="button secondary" disabled={refund.isPending}>Refund…</button>
          </div>
        </ApiForm>
      )}
      <ConfirmDialog open={pending !== null} title="Refund this charge?" confirmLabel="Refund" busy={refund.isPending}
        onCancel={() => setPending(null)} onConfirm={() => pending && refund.mutate(pending)}>
        <p>{formatBRL(pending?.amount ?? left)} goes back to {t.customer.name} and leaves your available balance now. This cannot be undone.</p>
      </ConfirmDialog>
    </section>
  );
}
