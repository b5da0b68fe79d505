'use client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { TRANSACTION_METHODS } from '@/server/domain/enums';
import { createTransactionRequest } from '@/server/routers/transactions/schemas';
import { BackLink, Money, PageHeader, SelectField, TextField } from '../../../_components/ui';
import type { FieldErrors } from '../../../_lib/api-errors';
import { ApiForm, useApiForm } from '../../../_lib/api-form';
import { formatBRL, parseBRL } from '../../../_lib/money';
import { useTRPC } from '../../../_lib/trpc';

type Method = (typeof TRANSACTION_METHODS)[number];
interface ItemRow { key: number; title: string; unitPrice: string; quantity: string; tangible: boolean }

const METHOD_LABEL: Record<Method, string> = { PIX: 'Pix (QR code)', CARD: 'Card', INVOICE: 'Invoice (boleto)' };
const AMOUNT_FORMAT = 'enter an amount in reais, like 1.234,56';
let nextKey = 1;
const newItem = (): ItemRow => ({ key: nextKey++, title: '', unitPrice: '', quantity: '1', tangible: false });

/** "3" → 3; anything else goes to the schema as typed, so its message is the API's. */
const asInt = (s: string): number | string | undefined => (s.trim() === '' ? undefined : /^\d{1,9}$/.test(s.trim()) ? Number(s.trim()) : s);
const optional = (s: string) => (s.trim() ? s.trim() : undefined);

export function TransactionForm() {
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
    prices.forEach((p, i) => { if (p === null) unreadable[`items.${i}.unitPrice`] = AMOUNT_FORMAT; });
    // the total is derived from the items: when they are incomplete, their own messages say so
    const valid = f.check(createTransactionRequest, input, { extra: unreadable, ignore: total === null ? ['amount'] : [] });
    if (valid) create.mutate(valid);
  }

  const setItem = (key: number, patch: Partial<ItemRow>) => setItems((list) => list.map((it) => (it.key === key ? { ...it, ...patch } : it)));
  const busy = create.isPending || create.isSuccess;
  return (
    <>
      <BackLink href="/transactions">Transactions</BackLink>
      <PageHeader title="New charge" subtitle="Charge a customer by Pix, card or invoice." />
      <ApiForm form={f} onSubmit={submit} className="card form" label="New charge">
        <fieldset>
          <legend>Payment method</legend>
          <div className="checkbox-row" role="radiogroup">
            {TRANSACTION_METHODS.map((m) => (
              <label key={m} className="checkbox">
                <input type="radio" name="method" value={m} checked={method === m} onChange={() => setMethod(m)} /> {METHOD_LABEL[m]}
              </label>
            ))}
          </div>
          {fields.method ? <p className="field-error">{fields.method}</p> : null}
        </fieldset>

        <fieldset>
          <legend>Items</legend>
          {fields.items ? <p className="field-error">{fields.items}</p> : null}
          {items.map((it, i) => (
            <div key={it.key} className="form-grid item-row">
              <TextField className="full" label={`Item ${i + 1} title`} value={it.title} onChange={(e) => setItem(it.key, { title: e.target.value })} error={fields[`items.${i}.title`]} />
              <TextField label="Unit price (R$)" inputMode="decimal" placeholder="49,90" value={it.unitPrice} onChange={(e) => setItem(it.key, { unitPrice: e.target.value })} error={fields[`items.${i}.unitPrice`]} />
              <TextField label="Quantity" inputMode="numeric" value={it.quantity} onChange={(e) => setItem(it.key, { quantity: e.target.value })} error={fields[`items.${i}.quantity`]} />
              <div className="full button-row">
                <label className="checkbox"><input type="checkbox" checked={it.tangible} onChange={(e) => setItem(it.key, { tangible: e.target.checked })} /> Physical good</label>
                {items.length > 1 ? <button type="button" className="button small secondary" onClick={() => setItems((l) => l.filter((x) => x.key !== it.key))}>Remove item {i + 1}</button> : null}
              </div>
            </div>
          ))}
          <div className="button-row spaced-top">
            <button type="button" className="button small secondary" onClick={() => setItems((l) => [...l, newItem()])} disabled={items.length >= 100}>Add item</button>
            <p className="total" aria-live="polite">Total: {total !== null ? <strong data-testid="charge-total"><Money cents={total} /></strong> : <span className="muted">—</span>}</p>
          </div>
          {fields.amount ? <p className="field-error">Total: {fields.amount}</p> : null}
        </fieldset>

        <fieldset>
          <legend>Customer</legend>
          <div className="form-grid">
            <TextField label="Name" autoComplete="off" value={customer.name} onChange={(e) => setCustomer({ ...customer, name: e.target.value })} error={fields['customer.name']} />
            <TextField label="Email" type="email" autoComplete="off" value={customer.email} onChange={(e) => setCustomer({ ...customer, email: e.target.value })} error={fields['customer.email']} />
            <TextField label="CPF or CNPJ" autoComplete="off" placeholder="123.456.789-09" value={customer.document} onChange={(e) => setCustomer({ ...customer, document: e.target.value })} error={fields['customer.document']} />
            <TextField label="Phone (optional)" type="tel" autoComplete="off" placeholder="+55 11 98765-4321" value={customer.phone} onChange={(e) => setCustomer({ ...customer, phone: e.target.value })} error={fields['customer.phone']} />
          </div>
        </fieldset>

        {method === 'CARD' ? (
          <fieldset>
            <legend>Card</legend>
            <div className="form-grid">
              <TextField label="Card number" inputMode="numeric" autoComplete="off" placeholder="4111 1111 1111 1111" value={card.number} onChange={(e) => setCard({ ...card, number: e.target.value })} error={fields['card.number'] ?? fields.card}
                hint="Sandbox: 4000 0000 0000 0002 is refused; other valid numbers are approved. Only the brand and last 4 digits are kept." />
              <TextField label="Name on card" autoComplete="off" value={card.holder_name} onChange={(e) => setCard({ ...card, holder_name: e.target.value })} error={fields['card.holder_name']} />
              <TextField label="Expiry month" inputMode="numeric" placeholder="MM" maxLength={2} value={card.expiration_month} onChange={(e) => setCard({ ...card, expiration_month: e.target.value })} error={fields['card.expiration_month']} />
              <TextField label="Expiry year" inputMode="numeric" placeholder="YYYY" maxLength={4} value={card.expiration_year} onChange={(e) => setCard({ ...card, expiration_year: e.target.value })} error={fields['card.expiration_year']} />
              <TextField label="CVV" inputMode="numeric" autoComplete="off" maxLength={4} value={card.cvv} onChange={(e) => setCard({ ...card, cvv: e.target.value })} error={fields['card.cvv']} />
              <SelectField label="Installments" value={installments} onChange={(e) => setInstallments(e.target.value)} error={fields.installments}>
                {Array.from({ length: 12 }, (_, i) => <option key={i + 1} value={String(i + 1)}>{i + 1}×{total ? ` of about ${formatBRL(Math.ceil(total / (i + 1)))}` : ''}</option>)}
              </SelectField>
            </div>
          </fieldset>
        ) : null}

        <div className="form-grid">
          <TextField label="External reference (optional)" value={extra.externalRef} onChange={(e) => setExtra({ ...extra, externalRef: e.target.value })} error={fields.externalRef} hint="Your own id; unique per account." />
          <TextField label="Postback URL (optional)" type="url" inputMode="url" placeholder="https://example.com/pix/updates" value={extra.postback} onChange={(e) => setExtra({ ...extra, postback: e.target.value })} error={fields.postback} />
        </div>
        <div className="button-row">
          <button type="submit" className="button primary" disabled={busy}>{busy ? 'Creating…' : `Create ${method === 'PIX' ? 'Pix' : method === 'CARD' ? 'card' : 'invoice'} charge`}</button>
        </div>
      </ApiForm>
    </>
  );
}
