'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { createWebhookRequest } from '@/server/routers/webhooks/schemas';
import { ConfirmDialog, CopyValue, EmptyState, ErrorState, FormError, Loading, PageHeader, TextField } from '../../_components/ui';
import { ApiForm, useApiForm } from '../../_lib/api-form';
import { useTRPC } from '../../_lib/trpc';
import { CategoryBoxes, Endpoint, type Category } from './endpoint';
import { useUrlFieldText } from './words';

export function Webhooks() {
  const t = useTranslations('webhooks');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.webhooks.list.queryOptions());
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<Category[]>(['transaction', 'withdraw', 'dispute']);
  const f = useApiForm();
  const { fields } = f;
  const urlText = useUrlFieldText();
  const [deleting, setDeleting] = useState<{ id: string; url: string } | null>(null);

  const create = useMutation(trpc.webhooks.create.mutationOptions({
    onSuccess: async () => {
      setUrl('');
      await queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });
    },
    onError: f.showApiError,
  }));
  const remove = useMutation(trpc.webhooks.delete.mutationOptions({
    onSuccess: async () => {
      setDeleting(null);
      await queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });
    },
  }));

  function submit() {
    create.reset();
    const valid = f.check(createWebhookRequest, { url, events });
    if (valid) create.mutate(valid);
  }

  const created = create.data?.content;

  return (
    <>
      <PageHeader title={t('title')} subtitle={t('subtitle')} />
      <section className="card" aria-labelledby="new-webhook-title">
        <h2 id="new-webhook-title">{t('add')}</h2>
        {created ? (
          <div className="alert alert-ok" role="status" data-testid="webhook-secret">
            <p><strong>{t('created')}</strong>{t('createdText')}</p>
            <CopyValue value={created.secret} label={t('secret')} copyLabel={t('copySecret')} />
            <button type="button" className="button small secondary" onClick={() => create.reset()}>{t('hideSecret')}</button>
          </div>
        ) : null}
        <ApiForm form={f} onSubmit={submit} label={t('add')}>
          <TextField label={t('url')} name="url" type="url" inputMode="url" placeholder={t('urlPlaceholder')} value={url} onChange={(e) => setUrl(e.target.value)} error={urlText(fields.url)}
            hint={t('urlHint')} />
          <CategoryBoxes value={events} onChange={setEvents} error={fields.events} />
          <div className="button-row">
            <button type="submit" className="button primary" disabled={create.isPending}>{create.isPending ? t('submitting') : t('submit')}</button>
          </div>
        </ApiForm>
      </section>

      <section className="card" aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">{t('endpoints')}</h2>
        {list.isPending ? <Loading /> : list.isError ? <ErrorState error={list.error} onRetry={() => list.refetch()} /> : list.data.content.length === 0 ? (
          <EmptyState title={t('empty')}><p className="muted">{t('emptyText')}</p></EmptyState>
        ) : (
          <ul className="plain-list">
            {list.data.content.map((w) => (
              <Endpoint key={w.magic_id} w={w} onDelete={() => { remove.reset(); setDeleting({ id: w.magic_id, url: w.url }); }} />
            ))}
          </ul>
        )}
      </section>

      <ConfirmDialog open={deleting !== null} title={t('deleteTitle')} confirmLabel={t('deleteConfirm')} busy={remove.isPending}
        onCancel={() => setDeleting(null)} onConfirm={() => deleting && remove.mutate({ magic_id: deleting.id })}>
        <p>{t.rich('deleteText', { url: () => <strong className="webhook-url">{deleting?.url}</strong> })}</p>
        <FormError error={remove.isError ? remove.error : null} />
      </ConfirmDialog>
    </>
  );
}
