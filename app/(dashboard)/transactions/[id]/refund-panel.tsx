'use client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { inferRouterOutputs } from '@trpc/server';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import type { z } from 'zod';
import type { AppRouter } from '@/server/routers';
import { REFUND_REASON_MAX, refundTransactionRequest } from '@/server/routers/transactions/schemas';
import { ConfirmDialog, Money, TextField } from '../../../_components/ui';
import { ApiForm, useApiForm } from '../../../_lib/api-form';
import { formatDateTime } from '../../../_lib/dates';
import { centsToInput, formatBRL, parseBRL } from '../../../_lib/money';
import { useTRPC } from '../../../_lib/trpc';

type Transaction = inferRouterOutputs<AppRouter>['transactions']['get'];
type RefundStatus = Transaction['refunds'][number]['status'];

const TONE: Record<RefundStatus, string> = { PENDING: 'wait', PAID: 'ok', ERROR: 'bad' };

/** A refund's status as a merchant says it ("Estornado"), the API's code kept in data-status for tests. */
function RefundBadge({ status }: { status: RefundStatus }) {
  const t = useTranslations('refunds');
  return <span className={`badge badge-${TONE[status]}`} data-status={status}>{t(`status.${status}`)}</span>;
}

/**
 * Refunds of an APPROVED charge: the ones made so far and a form for a partial or full refund, which
 * asks for confirmation before sending. The server decides what is refundable (a dispute, the balance);
 * this only spares a round trip for what it can see. While a dispute is open, or once it is lost, the
 * form stays in sight but disabled, with the reason (docs/decisions.md "Refunds": those refunds answer 422).
 */
export function RefundPanel({ t: x, dispute, onRefunded }: { t: Transaction; dispute: 'OPEN' | 'LOST' | null; onRefunded: () => Promise<void> }) {
  const t = useTranslations('refunds');
  const tv = useTranslations('validation');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const form = useApiForm();
  const left = x.total - x.refunded_amount;
  const [mode, setMode] = useState<'full' | 'partial'>('full');
  const [amountText, setAmountText] = useState('');
  const [reason, setReason] = useState('');
  const [pending, setPending] = useState<z.output<typeof refundTransactionRequest> | null>(null);
  const refund = useMutation(trpc.transactions.refund.mutationOptions({
    onSuccess: async (view) => {
      queryClient.setQueryData(trpc.transactions.get.queryKey({ id: x.id }), view);
      setPending(null);
      setMode('full');
      setAmountText('');
      setReason('');
      await onRefunded();
    },
    onError: (err) => { setPending(null); form.showApiError(err); },
  }));

  function review() {
    const typed = amountText.trim();
    const amount = mode === 'full' ? undefined : typed ? parseBRL(typed) : undefined;
    const extra: Record<string, string> = {};
    if (mode === 'partial' && amount === undefined) extra.amount = tv('required');
    else if (mode === 'partial' && amount === null) extra.amount = tv('amountFormat');
    else if (typeof amount === 'number' && amount > left) extra.amount = t('tooMuch', { amount: formatBRL(left) });
    const input = form.check(refundTransactionRequest, { id: x.id, amount: amount ?? undefined, reason: reason.trim() || undefined }, { extra });
    if (input) setPending(input);
  }

  const blocked = dispute === 'OPEN' ? t('disputeOpen') : dispute === 'LOST' ? t('disputeLost') : null;
  const off = blocked !== null || refund.isPending;
  const preview = mode === 'partial' ? parseBRL(amountText) : null;

  return (
    <section className="card" aria-labelledby="refunds-title" data-testid="refunds">
      <h2 id="refunds-title">{t('title')}</h2>
      <p className="muted">
        {t.rich('summary', {
          refunded: () => <span data-testid="refunded-amount"><Money cents={x.refunded_amount} /></span>,
          total: () => <Money cents={x.total} />,
        })} {t('help')}
      </p>
      {x.refunds.length > 0 ? (
        <ul className="activity" aria-label={t('listLabel')}>
          {x.refunds.map((r) => (
            <li key={r.id} data-testid="refund">
              <div className="activity-main">
                <span className="mono small">{r.id}</span>
                <span className="muted small">{t('requested', { when: formatDateTime(r.created_at) })}
                  {r.endtoend ? <> · <span className="mono">{t('endToEnd', { id: r.endtoend })}</span></> : null}
                  {r.status === 'ERROR' ? <> · {t('returned')}</> : null}</span>
              </div>
              <div className="activity-side"><Money cents={r.amount} /><RefundBadge status={r.status} /></div>
            </li>
          ))}
        </ul>
      ) : null}
      {left <= 0 ? (
        <p className="muted small" data-testid="fully-refunded">{t('fullyRefunded')}</p>
      ) : (
        <ApiForm form={form} onSubmit={review} label={t('formLabel')}>
          {blocked ? <p className="alert alert-info" role="status" data-testid="refund-blocked">{blocked}</p> : null}
          <fieldset disabled={off}>
            <legend>{t('howMuch')}</legend>
            <div className="checkbox-row" role="radiogroup">
              <label className="checkbox"><input type="radio" name="refund-mode" checked={mode === 'full'} onChange={() => setMode('full')} /> {t('full', { amount: formatBRL(left) })}</label>
              <label className="checkbox"><input type="radio" name="refund-mode" checked={mode === 'partial'} onChange={() => { setMode('partial'); if (!amountText) setAmountText(centsToInput(left)); }} /> {t('partial')}</label>
            </div>
          </fieldset>
          {mode === 'partial' ? (
            <TextField label={t('amount')} name="amount" inputMode="decimal" placeholder="1.234,56" autoComplete="off" value={amountText}
              onChange={(e) => setAmountText(e.target.value)} error={form.fields.amount} disabled={off}
              hint={preview !== null && preview > 0 && preview <= left ? formatBRL(preview) : t('amountHint', { amount: formatBRL(left) })} />
          ) : null}
          <TextField label={t('reason')} name="reason" value={reason} maxLength={REFUND_REASON_MAX} onChange={(e) => setReason(e.target.value)}
            error={form.fields.reason} disabled={off} hint={t('reasonHint', { max: REFUND_REASON_MAX })} />
          <div className="button-row">
            <button type="submit" className="button secondary" disabled={off}>{t('submit')}</button>
          </div>
        </ApiForm>
      )}
      <ConfirmDialog open={pending !== null} title={t('confirmTitle')} confirmLabel={t('confirm')} busy={refund.isPending}
        onCancel={() => setPending(null)} onConfirm={() => pending && refund.mutate(pending)}>
        <p>{t('confirmText', { amount: formatBRL(pending?.amount ?? left), name: x.customer.name })}</p>
      </ConfirmDialog>
    </section>
  );
}
