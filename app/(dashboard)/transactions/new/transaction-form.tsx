'use client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { TRANSACTION_METHODS } from '@/contract/enums';
import { documentKind } from '@/contract/pix/documents';
import { createTransactionRequest } from '@/server/routers/transactions/schemas';
import { BackLink, Money, PageHeader, SelectField, TextField } from '../../../_components/ui';
import type { FieldErrors } from '../../../_lib/api-errors';
import { ApiForm, useApiForm } from '../../../_lib/api-form';
import { formatBRL, parseBRL } from '../../../_lib/money';
import { useTRPC } from '../../../_lib/trpc';

type Method = (typeof TRANSACTION_METHODS)[number];
interface ItemRow { key: number; title: string; unitPrice: string; quantity: string; tangible: boolean }

let nextKey = 1;
const newItem = (): ItemRow => ({ key: nextKey++, title: '', unitPrice: '', quantity: '1', tangible: false });

/** "3" → 3; anything else goes to the schema as typed, so its message is the API's. */
const asInt = (s: string): number | string | undefined => (s.trim() === '' ? undefined : /^\d{1,9}$/.test(s.trim()) ? Number(s.trim()) : s);
const optional = (s: string) => (s.trim() ? s.trim() : undefined);

export function TransactionForm() {
  const t = useTranslations('transactions');
  const tv = useTranslations('validation');
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [method, setMethod] = useState<Method>('PIX');
  const [items, setItems] = useState<ItemRow[]>(() => [newItem()]);
  const [customer, setCustomer] = useState({ name: '', email: '', document: '', phone: '' });
  const [card, setCard] = useState({ number: '', holder_name: '', expiration_month: '', expiration_year: '', cvv: '' });
  const [installments, setInstallments] = useState('1');
  const [extra, setExtra] = useState({ externalRef: '', postback: '' });
  const f = useApiForm();
  const { fields } = f;

  const create = useMutation(trpc.transactions.create.mutationOptions({
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: trpc.transactions.list.pathKey() });
      router.push(`/transactions/${created.id}`);
    },
    onError: f.showApiError,
  }));

  const prices = items.map((it) => (it.unitPrice.trim() ? parseBRL(it.unitPrice) : undefined));
  const quantities = items.map((it) => asInt(it.quantity));
  const total = prices.every((p, i) => typeof p === 'number' && typeof quantities[i] === 'number')
    ? prices.reduce<number>((n, p, i) => n + (p as number) * (quantities[i] as number), 0) : null;

  function submit() {
    const input = {
      amount: total && total > 0 ? total : undefined,
      method,
      items: items.map((it, i) => ({
        title: it.title, unitPrice: prices[i] ?? undefined, quantity: quantities[i], ...(it.tangible ? { tangible: true } : {}),
      })),
      customer: {
        name: customer.name, email: customer.email, document: customer.document,
        ...(optional(customer.phone) ? { phone: customer.phone.trim() } : {}),
      },
      ...(method === 'CARD' ? { card, installments: asInt(installments) } : {}),
      ...(optional(extra.externalRef) ? { externalRef: extra.externalRef.trim() } : {}),
      ...(optional(extra.postback) ? { postback: extra.postback.trim() } : {}),
    };
    const unreadable: FieldErrors = {};
    prices.forEach((p, i) => { if (p === null) unreadable[`items.${i}.unitPrice`] = tv('amountFormat'); });
    // every problem at once: the document's check digits are the API's rule too, checked after the schema
    if (customer.document.trim() && !documentKind(customer.document)) unreadable['customer.document'] = tv('document');
    // the total is derived from the items: when they are incomplete, their own messages say so
    const valid = f.check(createTransactionRequest, input, { extra: unreadable, ignore: total === null ? ['amount'] : [] });
    if (valid) create.mutate(valid);
  }

  const setItem = (key: number, patch: Partial<ItemRow>) => setItems((list) => list.map((it) => (it.key === key ? { ...it, ...patch } : it)));
  const busy = create.isPending || create.isSuccess;
  return (
    <>
      <BackLink href="/transactions">{t('title')}</BackLink>
      <PageHeader title={t('form.title')} subtitle={t('form.subtitle')} />
      <ApiForm form={f} onSubmit={submit} className="card form" label={t('form.title')}>
        <fieldset>
          <legend>{t('form.method')}</legend>
          <div className="checkbox-row" role="radiogroup">
            {TRANSACTION_METHODS.map((m) => (
              <label key={m} className="checkbox">
                <input type="radio" name="method" value={m} checked={method === m} onChange={() => setMethod(m)} /> {t(`form.methodLabel.${m}`)}
              </label>
            ))}
          </div>
          {fields.method ? <p className="field-error">{fields.method}</p> : null}
        </fieldset>

        <fieldset>
          <legend>{t('form.items')}</legend>
          {fields.items ? <p className="field-error">{fields.items}</p> : null}
          {items.map((it, i) => (
            <div key={it.key} className="form-grid item-row">
              <TextField className="full" label={t('form.itemTitle', { n: i + 1 })} value={it.title} onChange={(e) => setItem(it.key, { title: e.target.value })} error={fields[`items.${i}.title`]} />
              <TextField label={t('form.unitPrice')} inputMode="decimal" placeholder="49,90" value={it.unitPrice} onChange={(e) => setItem(it.key, { unitPrice: e.target.value })} error={fields[`items.${i}.unitPrice`]} />
              <TextField label={t('form.quantity')} inputMode="numeric" value={it.quantity} onChange={(e) => setItem(it.key, { quantity: e.target.value })} error={fields[`items.${i}.quantity`]} />
              <div className="full button-row">
                <label className="checkbox"><input type="checkbox" checked={it.tangible} onChange={(e) => setItem(it.key, { tangible: e.target.checked })} /> {t('form.physical')}</label>
                {items.length > 1 ? <button type="button" className="button small secondary" onClick={() => setItems((l) => l.filter((x) => x.key !== it.key))}>{t('form.remove', { n: i + 1 })}</button> : null}
              </div>
            </div>
          ))}
          <div className="button-row spaced-top">
            <button type="button" className="button small secondary" onClick={() => setItems((l) => [...l, newItem()])} disabled={items.length >= 100}>{t('form.addItem')}</button>
            <p className="total" aria-live="polite">{t('form.total')} {total !== null ? <strong data-testid="charge-total"><Money cents={total} /></strong> : <span className="muted">—</span>}</p>
          </div>
          {fields.amount ? <p className="field-error">{t('form.totalError', { message: fields.amount })}</p> : null}
        </fieldset>

        <fieldset>
          <legend>{t('form.customer')}</legend>
          <div className="form-grid">
            <TextField label={t('form.name')} autoComplete="off" value={customer.name} onChange={(e) => setCustomer({ ...customer, name: e.target.value })} error={fields['customer.name']} />
            <TextField label={t('form.email')} type="email" autoComplete="off" value={customer.email} onChange={(e) => setCustomer({ ...customer, email: e.target.value })} error={fields['customer.email']} />
            <TextField label={t('form.document')} autoComplete="off" placeholder="123.456.789-09" value={customer.document} onChange={(e) => setCustomer({ ...customer, document: e.target.value })} error={fields['customer.document']} />
            <TextField label={t('form.phone')} type="tel" autoComplete="off" placeholder="(11) 98765-4321" value={customer.phone} onChange={(e) => setCustomer({ ...customer, phone: e.target.value })} error={fields['customer.phone']} />
          </div>
        </fieldset>

        {method === 'CARD' ? (
          <fieldset>
            <legend>{t('form.card')}</legend>
            <div className="form-grid">
              <TextField label={t('form.cardNumber')} inputMode="numeric" autoComplete="off" placeholder="4111 1111 1111 1111" value={card.number} onChange={(e) => setCard({ ...card, number: e.target.value })} error={fields['card.number'] ?? fields.card}
                hint={t('form.cardHint')} />
              <TextField label={t('form.holder')} autoComplete="off" value={card.holder_name} onChange={(e) => setCard({ ...card, holder_name: e.target.value })} error={fields['card.holder_name']} />
              <TextField label={t('form.month')} inputMode="numeric" placeholder="MM" maxLength={2} value={card.expiration_month} onChange={(e) => setCard({ ...card, expiration_month: e.target.value })} error={fields['card.expiration_month']} />
              <TextField label={t('form.year')} inputMode="numeric" placeholder="AAAA" maxLength={4} value={card.expiration_year} onChange={(e) => setCard({ ...card, expiration_year: e.target.value })} error={fields['card.expiration_year']} />
              <TextField label={t('form.cvv')} inputMode="numeric" autoComplete="off" maxLength={4} value={card.cvv} onChange={(e) => setCard({ ...card, cvv: e.target.value })} error={fields['card.cvv']} />
              <SelectField label={t('form.installments')} value={installments} onChange={(e) => setInstallments(e.target.value)} error={fields.installments}>
                {Array.from({ length: 12 }, (_, i) => <option key={i + 1} value={String(i + 1)}>{total ? t('form.installmentOf', { n: i + 1, amount: formatBRL(Math.ceil(total / (i + 1))) }) : t('form.installment', { n: i + 1 })}</option>)}
              </SelectField>
            </div>
          </fieldset>
        ) : null}

        <div className="form-grid">
          <TextField label={t('form.externalRef')} value={extra.externalRef} onChange={(e) => setExtra({ ...extra, externalRef: e.target.value })} error={fields.externalRef} hint={t('form.externalRefHint')} />
          <TextField label={t('form.postback')} type="url" inputMode="url" placeholder="https://exemplo.com.br/pix/atualizacoes" value={extra.postback} onChange={(e) => setExtra({ ...extra, postback: e.target.value })} error={fields.postback} />
        </div>
        <div className="button-row">
          <button type="submit" className="button primary" disabled={busy}>{busy ? t('form.submitting') : t(`form.submit.${method}`)}</button>
        </div>
      </ApiForm>
    </>
  );
}
