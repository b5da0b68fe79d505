'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { useState, type FormEvent } from 'react';
import { PIX_KEY_TYPES, type PixKeyType } from '@/contract/enums';
import { ConfirmDialog, ErrorState, FormError, Loading, PageHeader, SelectField, TextField } from '../../_components/ui';
import { apiErrorCode, useDescribeApiError } from '../../_lib/api-errors';
import { formatDateTime } from '../../_lib/dates';
import { normalizePhoneKey, PIX_KEY_INPUTS } from '../../_lib/pix-keys';
import { useTRPC } from '../../_lib/trpc';

interface KeyView { id: string; key: string; key_type: PixKeyType; created_at: string }

/** The account's receiving Pix keys: the keys its charges are paid on (the API Pix's `chave`). */
export function PixKeys() {
  const t = useTranslations('pixKeys');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.pixKeys.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.pixKeys.list.queryKey() });
  const [notice, setNotice] = useState<string | null>(null);
  const [removing, setRemoving] = useState<KeyView | null>(null);
  const remove = useMutation(trpc.pixKeys.remove.mutationOptions({
    onMutate: () => setNotice(null),
    onSuccess: async (r) => { setRemoving(null); setNotice(t('removed', { key: r.removed.key })); await refresh(); },
  }));
  const removeError = remove.isError
    ? (apiErrorCode(remove.error) === 'UNPROCESSABLE_CONTENT' ? t('lastKey') : null)
    : null;

  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      {notice ? <div className="alert alert-ok" role="status" data-testid="pix-keys-notice">{notice}</div> : null}
      <section className="card" aria-labelledby="keys-title">
        <h2 id="keys-title">{t('listTitle')}</h2>
        {keys.isPending ? <Loading /> : keys.isError ? <ErrorState error={keys.error} onRetry={() => keys.refetch()} /> : (
          <>
            <div className="table-wrap">
              <table className="list" aria-label={t('tableLabel')}>
                <thead><tr>
                  <th scope="col">{t('col.type')}</th><th scope="col">{t('col.key')}</th><th scope="col">{t('col.created')}</th><th scope="col"><span className="sr-only">{t('col.actions')}</span></th>
                </tr></thead>
                <tbody>
                  {keys.data.data.map((k) => (
                    <tr key={k.id} data-testid="pix-key" data-type={k.key_type}>
                      <td data-label={t('col.type')} data-phone="meta">{t(`type.${k.key_type}`)}</td>
                      <td data-label={t('col.key')} data-phone="title"><span className="mono break-anywhere">{k.key}</span></td>
                      <td data-label={t('col.created')} data-phone="meta" className="nowrap">{formatDateTime(k.created_at)}</td>
                      <td data-phone="amount">
                        <button type="button" className="button small secondary" disabled={keys.data.data.length === 1}
                          aria-label={t('removeNamed', { key: k.key })} onClick={() => { remove.reset(); setRemoving(k); }}>{t('remove')}</button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {keys.data.data.length === 1 ? <p className="muted small">{t('lastKeyNote')}</p> : null}
          </>
        )}
        <ConfirmDialog open={removing !== null} title={t('removeTitle')} confirmLabel={t('removeConfirm')} busy={remove.isPending}
          onCancel={() => setRemoving(null)} onConfirm={() => removing && remove.mutate({ id: removing.id })}>
          <p>{t('removeText', { key: removing?.key ?? '' })}</p>
          {remove.isError ? <FormError message={removeError} error={remove.error} /> : null}
        </ConfirmDialog>
      </section>
      <AddKey onAdded={async (k) => { setNotice(t('added', { key: k.key })); await refresh(); }} />
    </>
  );
}

function AddKey({ onAdded }: { onAdded: (k: KeyView) => Promise<void> }) {
  const t = useTranslations('pixKeys');
  const trpc = useTRPC();
  const describe = useDescribeApiError();
  const [type, setType] = useState<PixKeyType>('EMAIL');
  const [key, setKey] = useState('');
  const add = useMutation(trpc.pixKeys.add.mutationOptions({ onSuccess: async (k) => { setKey(''); await onAdded(k); } }));
  const failure = add.isError ? describe(add.error) : null;
  const conflict = add.isError && apiErrorCode(add.error) === 'CONFLICT';
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate(type === 'EVP' ? { key_type: 'EVP' } : { key_type: type, key: type === 'PHONE' ? normalizePhoneKey(key) : key.trim() });
  };
  const input = type === 'EVP' ? null : PIX_KEY_INPUTS[type];
  return (
    <section className="card" aria-labelledby="add-key-title">
      <h2 id="add-key-title">{t('addTitle')}</h2>
      <p className="muted">{t('addText')}</p>
      <form onSubmit={submit} noValidate>
        {add.isError ? <FormError message={conflict ? t('taken') : undefined} error={add.error} /> : null}
        <SelectField label={t('col.type')} name="key_type" value={type} onChange={(e) => { add.reset(); setType(e.target.value as PixKeyType); }}>
          {PIX_KEY_TYPES.map((k) => <option key={k} value={k}>{t(`type.${k}`)}</option>)}
        </SelectField>
        {input ? (
          <TextField label={t('col.key')} name="key" value={key} onChange={(e) => setKey(e.target.value)} required
            placeholder={input.placeholder} inputMode={input.inputMode} type={input.type} autoComplete={input.autoComplete}
            error={failure?.fields.key ?? failure?.fields.key_type} />
        ) : <p className="hint">{t('evpHint')}</p>}
        <div className="button-row">
          <button type="submit" className="button" disabled={add.isPending}>{add.isPending ? t('adding') : t('add')}</button>
        </div>
      </form>
    </section>
  );
}
