'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { PIX_KEY_TYPES } from '@/server/domain/enums';
import { withdrawalRequest } from '@/server/routers/withdrawals/schemas';
import { BackLink, Money, PageHeader, SelectField, TextField } from '../../../_components/ui';
import { ApiForm, useApiForm } from '../../../_lib/api-form';
import { parseBRL } from '../../../_lib/money';
import { PIX_KEY_HINTS } from '../../../_lib/pix-keys';
import { useTRPC } from '../../../_lib/trpc';

type KeyType = (typeof PIX_KEY_TYPES)[number];

const AMOUNT_FORMAT = 'enter an amount in reais, like 1.234,56';

export function WithdrawalForm() {
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
    const input = {
      amount: amount ?? undefined,
      key_type: form.key_type,
      key: form.key,
      details: { name: form.name, document: form.document },
      ...(form.description.trim() ? { description: form.description } : {}),
      ...(form.external_ref.trim() ? { external_ref: form.external_ref } : {}),
      ...(form.postback.trim() ? { postback: form.postback.trim() } : {}),
    };
    // the API's own schema: the same rules, the same messages, and nothing is sent when it fails
    const valid = f.check(withdrawalRequest, input, { extra: form.amount.trim() && amount === null ? { amount: AMOUNT_FORMAT } : {} });
    if (valid) create.mutate(valid);
  }

  const hint = PIX_KEY_HINTS[form.key_type];
  const preview = parseBRL(form.amount);
  const busy = create.isPending || create.isSuccess;
  return (
    <>
      <BackLink href="/withdrawals">Withdrawals</BackLink>
      <PageHeader title="New withdrawal" subtitle={balance.data ? <>Available: <Money cents={balance.data.available} /></> : 'Send money from your balance to a Pix key.'} />
      <ApiForm form={f} onSubmit={submit} className="card form" label="New withdrawal">
        <div className="form-grid">
          <TextField label="Amount (R$)" name="amount" inputMode="decimal" placeholder="1.234,56" autoComplete="off" value={form.amount} onChange={set('amount')} error={fields.amount}
            hint={preview !== null && preview > 0 ? <>= <Money cents={preview} /> ({preview} cents)</> : 'Reais with a comma for centavos.'} />
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
          <button type="submit" className="button primary" disabled={busy}>{busy ? 'Requesting…' : 'Request withdrawal'}</button>
        </div>
      </ApiForm>
    </>
  );
}
