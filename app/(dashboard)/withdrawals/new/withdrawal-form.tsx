'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/routers';
import { PIX_KEY_TYPES } from '@/server/domain/enums';
import { maskDocument, normalizeDocument } from '@/server/domain/pix/documents';
import { withdrawalRequest, type WithdrawalRequestInput } from '@/server/routers/withdrawals/schemas';
import { BackLink, DetailList, Money, PageHeader, SelectField, TextField } from '../../../_components/ui';
import { ApiForm, useApiForm } from '../../../_lib/api-form';
import { apiErrorCode } from '../../../_lib/api-errors';
import { formatPixKey } from '../../../_lib/documents';
import { parseBRL } from '../../../_lib/money';
import { normalizePhoneKey, PIX_KEY_HINTS } from '../../../_lib/pix-keys';
import { useTRPC } from '../../../_lib/trpc';
import { fill, payoutCopy as copy } from '../payout-copy';

type KeyType = (typeof PIX_KEY_TYPES)[number];
type KeyEntry = inferRouterOutputs<AppRouter>['pix']['lookupKey'];

const AMOUNT_FORMAT = 'enter an amount in reais, like 1.234,56';

/**
 * A payout in two steps: the form is checked with the API's schema, the key is looked up in the Pix
 * directory, and only after the merchant has seen who holds it (name, masked document, bank, ISPB)
 * and confirmed does the withdrawal go out. Changing anything goes back to the form.
 */
export function WithdrawalForm() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const balance = useQuery(trpc.dashboard.overview.queryOptions());
  const [form, setForm] = useState({ amount: '', key_type: 'CPF' as KeyType, key: '', name: '', document: '', description: '', external_ref: '', postback: '' });
  const [review, setReview] = useState<{ input: WithdrawalRequestInput; entry: KeyEntry } | null>(null);
  const [lookingUp, setLookingUp] = useState(false);
  const f = useApiForm();
  const { fields } = f;
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) => setForm((f) => ({ ...f, [k]: e.target.value }));

  const create = useMutation(trpc.withdrawals.create.mutationOptions({
    onSuccess: async (created) => {
      await queryClient.invalidateQueries({ queryKey: trpc.withdrawals.list.pathKey() });
      await queryClient.invalidateQueries({ queryKey: trpc.dashboard.overview.pathKey() });
      // the answer names the batches; any batch identifier finds its withdrawal
      const w = await queryClient.fetchQuery(trpc.withdrawals.get.queryOptions({ identifier: created.data[0].identifier }));
      router.push(`/withdrawals/${w.id}`);
    },
    // back to the form, with the API's messages next to what was typed
    onError: (err) => { setReview(null); f.showApiError(err); },
  }));

  async function submit() {
    const amount = form.amount.trim() ? parseBRL(form.amount) : undefined;
    const input = {
      amount: amount ?? undefined,
      key_type: form.key_type,
      // phone keys as Brazilians write them, "(11) 98765-4321", in the form the API stores
      key: form.key_type === 'PHONE' ? normalizePhoneKey(form.key) : form.key,
      details: { name: form.name, document: form.document },
      ...(form.description.trim() ? { description: form.description } : {}),
      ...(form.external_ref.trim() ? { external_ref: form.external_ref } : {}),
      ...(form.postback.trim() ? { postback: form.postback.trim() } : {}),
    };
    // the API's own schema: the same rules, the same messages, and nothing is sent when it fails
    const valid = f.check(withdrawalRequest, input, { extra: form.amount.trim() && amount === null ? { amount: AMOUNT_FORMAT } : {} });
    if (!valid) return;
    setLookingUp(true);
    try {
      // always a fresh answer: a key can move between banks or holders
      const entry = await queryClient.fetchQuery({ ...trpc.pix.lookupKey.queryOptions({ key: valid.key, key_type: valid.key_type }), staleTime: 0 });
      setReview({ input: valid, entry });
    } catch (err) {
      const code = apiErrorCode(err);
      if (code === 'NOT_FOUND') f.refuse({ key: copy.keyNotFound }, copy.keyNotFound);
      else if (code === 'SERVICE_UNAVAILABLE') f.setError(copy.lookupUnavailable);
      else f.showApiError(err);
    } finally {
      setLookingUp(false);
    }
  }

  const hint = PIX_KEY_HINTS[form.key_type];
  const preview = parseBRL(form.amount);
  const busy = create.isPending || create.isSuccess;
  return (
    <>
      <BackLink href="/withdrawals">Withdrawals</BackLink>
      <PageHeader title="New withdrawal" subtitle={balance.data ? <>Available: <Money cents={balance.data.available} /></> : 'Send money from your balance to a Pix key.'} />
      {review ? (
        <PayoutReview review={review} busy={busy} onEdit={() => setReview(null)} onConfirm={() => create.mutate(review.input)} />
      ) : (
        <ApiForm form={f} onSubmit={submit} className="card form" label="New withdrawal">
          <div className="form-grid">
            <TextField label="Amount (R$)" name="amount" inputMode="decimal" placeholder="1.234,56" autoComplete="off" value={form.amount} onChange={set('amount')} error={fields.amount}
              hint={preview !== null && preview > 0 ? <>= <Money cents={preview} /></> : 'Reais with a comma for centavos.'} />
            <TextField label="Description (optional)" name="description" maxLength={140} value={form.description} onChange={set('description')} error={fields.description} />
            <SelectField label="Key type" name="key_type" value={form.key_type} onChange={set('key_type')} error={fields.key_type}>
              {PIX_KEY_TYPES.map((t) => <option key={t} value={t}>{PIX_KEY_HINTS[t].label}</option>)}
            </SelectField>
            <TextField label={`Pix key (${hint.label})`} name="key" type={hint.type} inputMode={hint.inputMode} placeholder={hint.placeholder} autoComplete={hint.autoComplete}
              value={form.key} onChange={set('key')} error={fields.key} hint={hint.hint} />
            <TextField label="Recipient name" name="details.name" autoComplete="off" value={form.name} onChange={set('name')} error={fields['details.name'] ?? fields.details} />
            <TextField label="Recipient CPF or CNPJ" name="details.document" autoComplete="off" placeholder="123.456.789-09" value={form.document} onChange={set('document')} error={fields['details.document']} hint="Punctuation is optional." />
            <TextField label="External reference (optional)" name="external_ref" value={form.external_ref} onChange={set('external_ref')} error={fields.external_ref} hint="Your own id; unique per account." />
            <TextField label="Postback URL (optional)" name="postback" type="url" inputMode="url" placeholder="https://example.com/pix/updates" value={form.postback} onChange={set('postback')} error={fields.postback} />
          </div>
          <div className="button-row">
            <button type="submit" className="button primary" disabled={lookingUp}>{lookingUp ? copy.reviewing : copy.review}</button>
          </div>
        </ApiForm>
      )}
    </>
  );
}

/** The step where money has not moved yet: who the directory says holds the key, and the amount. */
function PayoutReview({ review, busy, onEdit, onConfirm }: {
  review: { input: WithdrawalRequestInput; entry: KeyEntry }; busy: boolean; onEdit: () => void; onConfirm: () => void;
}) {
  const { input, entry } = review;
  // the typed document is kept (the API requires it), but should be the holder's: compare what the mask shows
  const typed = normalizeDocument(input.details.document);
  const mismatch = maskDocument(typed) !== entry.holder.document_masked;
  return (
    <section className="card payout-review" aria-labelledby="review-title" data-testid="payout-review">
      <h2 id="review-title">{copy.reviewTitle}</h2>
      <p className="muted">{copy.reviewLead}</p>
      <p className="payout-holder" data-testid="holder-name">{entry.holder.name}</p>
      <DetailList rows={[
        [copy.document, <span key="d" className="mono" data-testid="holder-document">{entry.holder.document_masked}</span>],
        [copy.bank, <span key="b" data-testid="holder-bank">{entry.bank.name}</span>],
        [copy.ispb, <span key="i" className="mono" data-testid="holder-ispb">{entry.bank.ispb}</span>],
        [copy.key, <span key="k"><span className="muted small">{PIX_KEY_HINTS[entry.key_type].label}</span> {formatPixKey(entry.key_type, entry.key)}</span>],
        [copy.amount, <strong key="a"><Money cents={input.amount} /></strong>],
      ]} />
      {mismatch ? <div className="alert alert-warn" role="status" data-testid="document-mismatch">{fill(copy.documentMismatch, { typed: input.details.document })}</div> : null}
      <div className="button-row">
        <button type="button" className="button secondary" onClick={onEdit} disabled={busy}>{copy.edit}</button>
        <button type="button" className="button primary" onClick={onConfirm} disabled={busy} autoFocus>{busy ? copy.sending : copy.confirm}</button>
      </div>
    </section>
  );
}
