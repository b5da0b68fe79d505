'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { useEffect, useState } from 'react';
import { UFS } from '@/contract/receiver';
import type { output } from 'zod';
import { receiverRequest, type receiverView } from '@/server/routers/account/schemas';
import { ErrorState, Loading, SelectField, TextField } from '../../_components/ui';
import { ApiForm, useApiForm } from '../../_lib/api-form';
import { useTRPC } from '../../_lib/trpc';

const EMPTY = { document: '', name: '', trade_name: '', street: '', city: '', uf: '', cep: '' };
type Fields = typeof EMPTY;
/** The form's fields from the registered data (what the request takes, nothing more). */
const fieldsOf = (r: output<typeof receiverView>): Fields => ({ document: r.document, name: r.name, trade_name: r.trade_name ?? '', street: r.street, city: r.city, uf: r.uf, cep: r.cep });

/**
 * The account as the recebedor of its charges with a due date: CPF or CNPJ, names and address, which a
 * cobv and its payload carry. Until it is saved, PUT /v2/cobv is refused.
 */
export function Receiver() {
  const t = useTranslations('settings.receiver');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const current = useQuery(trpc.account.receiver.queryOptions());
  const f = useApiForm();
  const [v, setV] = useState<Fields>(EMPTY);
  // the form starts from what is registered (once loaded); what is typed afterwards is the form's own
  useEffect(() => {
    if (current.data) setV(fieldsOf(current.data));
  }, [current.data]);
  const save = useMutation(trpc.account.setReceiver.mutationOptions({
    onSuccess: async (saved) => {
      setV(fieldsOf(saved));
      queryClient.setQueryData(trpc.account.receiver.queryKey(), saved);
      await queryClient.invalidateQueries({ queryKey: trpc.dashboard.auditTrail.queryKey() });
    },
    onError: (err) => f.showApiError(err),
  }));
  const set = (k: keyof Fields) => (e: { target: { value: string } }) => setV((old) => ({ ...old, [k]: e.target.value }));
  function submit() {
    save.reset();
    const valid = f.check(receiverRequest, { ...v, trade_name: v.trade_name.trim() ? v.trade_name : null });
    if (valid) save.mutate(valid);
  }
  return (
    <section className="card" aria-labelledby="receiver-title">
      <h2 id="receiver-title">{t('title')}</h2>
      <p className="muted">{t('text')}</p>
      {current.isPending ? <Loading /> : current.isError ? <ErrorState error={current.error} onRetry={() => current.refetch()} /> : (
        <>
          {current.data === null && !save.isSuccess ? <p role="note" className="alert alert-warn">{t('missing')}</p> : null}
          <ApiForm form={f} onSubmit={submit} label={t('title')} className="form narrow-form">
            <TextField label={t('document')} name="receiver-document" value={v.document} onChange={set('document')} error={f.fields.document} hint={t('documentHint')} autoComplete="off" />
            <TextField label={t('name')} name="receiver-name" value={v.name} onChange={set('name')} error={f.fields.name} autoComplete="organization" />
            <TextField label={t('tradeName')} name="receiver-trade-name" value={v.trade_name} onChange={set('trade_name')} error={f.fields.trade_name} hint={t('optional')} />
            <TextField label={t('street')} name="receiver-street" value={v.street} onChange={set('street')} error={f.fields.street} autoComplete="street-address" />
            <TextField label={t('city')} name="receiver-city" value={v.city} onChange={set('city')} error={f.fields.city} autoComplete="address-level2" />
            <SelectField label={t('uf')} name="receiver-uf" value={v.uf} onChange={set('uf')} error={f.fields.uf}>
              <option value="">{t('chooseUf')}</option>
              {UFS.map((uf) => <option key={uf} value={uf}>{uf}</option>)}
            </SelectField>
            <TextField label={t('cep')} name="receiver-cep" value={v.cep} onChange={set('cep')} error={f.fields.cep} inputMode="numeric" autoComplete="postal-code" />
            <div className="button-row">
              <button type="submit" className="button primary" disabled={save.isPending}>{save.isPending ? t('saving') : t('save')}</button>
              {save.isSuccess && !save.isPending ? <span role="status" className="muted">{t('saved')}</span> : null}
            </div>
          </ApiForm>
        </>
      )}
    </section>
  );
}
