'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@/server/routers';
import { PIX_KEY_TYPES } from '@/contract/enums';
import { maskDocument, normalizeDocument } from '@/contract/pix/documents';
import { normalizePixKey } from '@/contract/pix/keys';
import { withdrawalRequest, type WithdrawalRequestInput } from '@/server/routers/withdrawals/schemas';
import { BackLink, DetailList, Money, PageHeader, SelectField, TextField } from '../../../_components/ui';
import { ApiForm, useApiForm } from '../../../_lib/api-form';
import { apiErrorCode } from '../../../_lib/api-errors';
import { formatPixKey } from '../../../_lib/documents';
import { fieldMessage } from '../../../_lib/field-messages';
import { formatBRL, parseBRL } from '../../../_lib/money';
import { normalizePhoneKey, PIX_KEY_INPUTS } from '../../../_lib/pix-keys';
import { useTRPC } from '../../../_lib/trpc';

type KeyType = (typeof PIX_KEY_TYPES)[number];
type KeyEntry = inferRouterOutputs<AppRouter>['pix']['lookupKey'];

/**
 * A payout in two steps: the form is checked with the API's schema, the key is looked up in the Pix
 * directory, and only after the merchant has seen who holds it (name, masked document, bank, ISPB)
 * and confirmed does the withdrawal go out. Changing anything goes back to the form.
 */
export function WithdrawalForm() {
  const t = useTranslations('withdrawals.form');
  const tp = useTranslations('payout');
  const tt = useTranslations('terms');
  const tv = useTranslations('validation');
  const tw = useTranslations('withdrawals');
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
    // the schema checks the key's rule only once everything else parses; the form says all that is wrong at once
    const keyRule = input.key.trim() ? normalizePixKey(input.key_type, input.key) : { ok: true as const };
    const valid = f.check(withdrawalRequest, input, { extra: {
      ...(form.amount.trim() && amount === null ? { amount: tv('amountFormat') } : {}),
      ...(keyRule.ok ? {} : { key: fieldMessage(tv, keyRule.message.replace(/^key: /, '')) }),
    } });
    if (!valid) return;
    setLookingUp(true);
    try {
      // always a fresh answer: a key can move between banks or holders
      const entry = await queryClient.fetchQuery({ ...trpc.pix.lookupKey.queryOptions({ key: valid.key, key_type: valid.key_type }), staleTime: 0 });
      setReview({ input: valid, entry });
    } catch (err) {
      const code = apiErrorCode(err);
      if (code === 'NOT_FOUND') f.refuse({ key: tp('keyNotFound') }, tp('keyNotFound'));
      else if (code === 'SERVICE_UNAVAILABLE') f.setError(tp('lookupUnavailable'));
      else f.showApiError(err);
    } finally {
      setLookingUp(false);
    }
  }

  const input = PIX_KEY_INPUTS[form.key_type];
  const keyLabel = tt(`keyType.${form.key_type}`);
  const preview = parseBRL(form.amount);
  const busy = create.isPending || create.isSuccess;
  return (
    <>
      <BackLink href="/withdrawals">{tw('title')}</BackLink>
      <PageHeader title={t('title')} subtitle={balance.data ? t('available', { amount: formatBRL(balance.data.available) }) : t('subtitle')} />
      {review ? (
        <PayoutReview review={review} busy={busy} onEdit={() => setReview(null)} onConfirm={() => create.mutate(review.input)} />
      ) : (
        <ApiForm form={f} onSubmit={submit} className="card form" label={t('title')}>
          <div className="form-grid">
            <TextField label={t('amount')} name="amount" inputMode="decimal" placeholder="1.234,56" autoComplete="off" value={form.amount} onChange={set('amount')} error={fields.amount}
              hint={preview !== null && preview > 0 ? t('amountPreview', { amount: formatBRL(preview) }) : t('amountHint')} />
            <TextField label={t('description')} name="description" maxLength={140} value={form.description} onChange={set('description')} error={fields.description} />
            <SelectField label={t('keyType')} name="key_type" value={form.key_type} onChange={set('key_type')} error={fields.key_type}>
              {PIX_KEY_TYPES.map((k) => <option key={k} value={k}>{tt(`keyType.${k}`)}</option>)}
            </SelectField>
            <TextField label={t('pixKey', { type: keyLabel })} name="key" type={input.type} inputMode={input.inputMode} placeholder={input.placeholder} autoComplete={input.autoComplete}
              value={form.key} onChange={set('key')} error={fields.key} hint={t(`keyHint.${form.key_type}`)} />
            <TextField label={t('recipientName')} name="details.name" autoComplete="off" value={form.name} onChange={set('name')} error={fields['details.name'] ?? fields.details} />
            <TextField label={t('recipientDocument')} name="details.document" autoComplete="off" placeholder="123.456.789-09" value={form.document} onChange={set('document')} error={fields['details.document']} hint={t('punctuationOptional')} />
            <TextField label={t('externalRef')} name="external_ref" value={form.external_ref} onChange={set('external_ref')} error={fields.external_ref} hint={t('externalRefHint')} />
            <TextField label={t('postback')} name="postback" type="url" inputMode="url" placeholder="https://example.com/pix/updates" value={form.postback} onChange={set('postback')} error={fields.postback} />
          </div>
          <div className="button-row">
            <button type="submit" className="button primary" disabled={lookingUp}>{lookingUp ? tp('reviewing') : tp('review')}</button>
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
  const tp = useTranslations('payout');
  const tt = useTranslations('terms');
  const { input, entry } = review;
  // the typed document is kept (the API requires it), but should be the holder's: compare what the mask shows
  const typed = normalizeDocument(input.details.document);
  const mismatch = maskDocument(typed) !== entry.holder.document_masked;
  return (
    <section className="card payout-review" aria-labelledby="review-title" data-testid="payout-review">
      <h2 id="review-title">{tp('reviewTitle')}</h2>
      <p className="muted">{tp('reviewLead')}</p>
      <p className="payout-holder" data-testid="holder-name">{entry.holder.name}</p>
      <DetailList rows={[
        [tp('document'), <span key="d" className="mono" data-testid="holder-document">{entry.holder.document_masked}</span>],
        [tp('bank'), <span key="b" data-testid="holder-bank">{entry.bank.name}</span>],
        [tp('ispb'), <span key="i" className="mono" data-testid="holder-ispb">{entry.bank.ispb}</span>],
        [tp('key'), <span key="k"><span className="muted small">{tt(`keyType.${entry.key_type}`)}</span> {formatPixKey(entry.key_type, entry.key)}</span>],
        [tp('amount'), <strong key="a"><Money cents={input.amount} /></strong>],
      ]} />
      {mismatch ? <div className="alert alert-warn" role="status" data-testid="document-mismatch">{tp('documentMismatch', { typed: input.details.document })}</div> : null}
      <div className="button-row">
        <button type="button" className="button secondary" onClick={onEdit} disabled={busy}>{tp('edit')}</button>
        <button type="button" className="button primary" onClick={onConfirm} disabled={busy} autoFocus>{busy ? tp('sending') : tp('confirm')}</button>
      </div>
    </section>
  );
}
