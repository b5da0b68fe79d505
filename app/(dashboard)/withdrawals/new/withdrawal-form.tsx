'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { normalizePixKey } from '@/server/domain/pix/keys';
import { PIX_KEY_TYPE_VALUES, withdrawalRequest } from '@/server/routers/withdrawals/schemas';
import { BackLink, Money, PageHeader, SelectField, TextField } from '../../../_components/ui';
import type { FieldErrors } from '../../../_lib/api-errors';
import { ApiForm, useApiForm } from '../../../_lib/api-form';
import { fieldMessage } from '../../../_lib/field-messages';
import { formatBRL, parseBRL } from '../../../_lib/money';
import { normalizePhoneKey, PIX_KEY_INPUTS } from '../../../_lib/pix-keys';
import { useTRPC } from '../../../_lib/trpc';

type KeyType = (typeof PIX_KEY_TYPE_VALUES)[number];

export function WithdrawalForm() {
  const t = useTranslations('withdrawals');
  const tt = useTranslations('terms');
  const tv = useTranslations('validation');
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const balance = useQuery(trpc.dashboard.overview.queryOptions());
  const [form, setForm] = useState({ amount: '', key_type: 'CPF' as KeyType, key: '', name: '', document: '', description: '', external_ref: '', postback: '' });
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
    onError: f.showApiError,
  }));

  function submit() {
    const amount = form.amount.trim() ? parseBRL(form.amount) : undefined;
    // phone keys as Brazilians write them, in the form the API stores
    const key = form.key_type === 'PHONE' ? normalizePhoneKey(form.key) : form.key;
    const input = {
      amount: amount ?? undefined,
      key_type: form.key_type,
      key,
      details: { name: form.name, document: form.document },
      ...(form.description.trim() ? { description: form.description } : {}),
      ...(form.external_ref.trim() ? { external_ref: form.external_ref } : {}),
      ...(form.postback.trim() ? { postback: form.postback.trim() } : {}),
    };
    // every problem at once: the key's own rule is checked here too, since the schema only reaches
    // it once every other field is well-formed
    const extra: FieldErrors = {};
    if (form.amount.trim() && amount === null) extra.amount = tv('amountFormat');
    const keyCheck = key.trim() ? normalizePixKey(form.key_type, key) : null;
    if (keyCheck && !keyCheck.ok) extra.key = fieldMessage(tv, keyCheck.message);
    const valid = f.check(withdrawalRequest, input, { extra });
    if (valid) create.mutate(valid);
  }

  const inputs = PIX_KEY_INPUTS[form.key_type];
  const preview = parseBRL(form.amount);
  const busy = create.isPending || create.isSuccess;
  return (
    <>
      <BackLink href="/withdrawals">{t('title')}</BackLink>
      <PageHeader title={t('form.title')} subtitle={balance.data ? t('form.available', { amount: formatBRL(balance.data.available) }) : t('form.subtitle')} />
      <ApiForm form={f} onSubmit={submit} className="card form" label={t('form.title')}>
        <div className="form-grid">
          <TextField label={t('form.amount')} name="amount" inputMode="decimal" placeholder="1.234,56" autoComplete="off" value={form.amount} onChange={set('amount')} error={fields.amount}
            hint={preview !== null && preview > 0 ? <>= <Money cents={preview} /></> : t('form.amountHint')} />
          <TextField label={t('form.description')} name="description" maxLength={140} value={form.description} onChange={set('description')} error={fields.description} />
          <SelectField label={t('form.keyType')} name="key_type" value={form.key_type} onChange={set('key_type')} error={fields.key_type}>
            {PIX_KEY_TYPE_VALUES.map((k) => <option key={k} value={k}>{tt(`keyType.${k}`)}</option>)}
          </SelectField>
          <TextField label={t('form.pixKey', { type: tt(`keyType.${form.key_type}`) })} name="key" type={inputs.type} inputMode={inputs.inputMode} placeholder={inputs.placeholder} autoComplete={inputs.autoComplete}
            value={form.key} onChange={set('key')} error={fields.key} hint={t(`form.keyHint.${form.key_type}`)} />
          <TextField label={t('form.recipientName')} name="details.name" autoComplete="off" value={form.name} onChange={set('name')} error={fields['details.name'] ?? fields.details} />
          <TextField label={t('form.recipientDocument')} name="details.document" autoComplete="off" placeholder="123.456.789-09" value={form.document} onChange={set('document')} error={fields['details.document']} hint={t('form.punctuationOptional')} />
          <TextField label={t('form.externalRef')} name="external_ref" value={form.external_ref} onChange={set('external_ref')} error={fields.external_ref} hint={t('form.externalRefHint')} />
          <TextField label={t('form.postback')} name="postback" type="url" inputMode="url" placeholder="https://exemplo.com.br/pix/atualizacoes" value={form.postback} onChange={set('postback')} error={fields.postback} />
        </div>
        <div className="button-row">
          <button type="submit" className="button primary" disabled={busy}>{busy ? t('form.submitting') : t('form.submit')}</button>
        </div>
      </ApiForm>
    </>
  );
}
