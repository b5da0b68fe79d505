'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { createWebhookRequest } from '@/server/routers/webhooks/schemas';
import { ConfirmDialog, CopyValue, EmptyState, ErrorState, FormError, Loading, PageHeader, StatusBadge, TextField } from '../../_components/ui';
import { ApiForm, useApiForm } from '../../_lib/api-form';
import { formatDateTime } from '../../_lib/dates';
import { useTRPC } from '../../_lib/trpc';
import { DeliveryLog } from './delivery-log';

const CATEGORIES = [{ value: 'transaction' }, { value: 'withdraw' }, { value: 'dispute' }] as const;
type Category = (typeof CATEGORIES)[number]['value'];

export function Webhooks() {
  const t = useTranslations('webhooks');
  const tt = useTranslations('terms');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.webhooks.list.queryOptions());
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<Category[]>(['transaction', 'withdraw', 'dispute']);
  const f = useApiForm();
  const { fields } = f;
  const [deleting, setDeleting] = useState<{ id: string; url: string } | null>(null);
  const [openLog, setOpenLog] = useState<string | null>(null);

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

  const toggle = (c: Category, on: boolean) => setEvents((list) => (on ? [...list, c].filter((x, i, a) => a.indexOf(x) === i) : list.filter((x) => x !== c)));
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
          <TextField label={t('url')} name="url" type="url" inputMode="url" placeholder="https://example.com/webhooks/pix" value={url} onChange={(e) => setUrl(e.target.value)} error={fields.url}
            hint={t('urlHint')} />
          <fieldset>
            <legend>{t('events')}</legend>
            <div className="checkbox-row">
              {CATEGORIES.map((c) => (
                <label key={c.value} className="checkbox">
                  <input type="checkbox" name="events" value={c.value} checked={events.includes(c.value)} onChange={(e) => toggle(c.value, e.target.checked)} /> {tt(`eventCategory.${c.value}`)}
                </label>
              ))}
            </div>
            {fields.events ? <p className="field-error">{fields.events}</p> : null}
          </fieldset>
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
              <li key={w.magic_id} className="webhook" data-testid="webhook">
                <div className="webhook-head">
                  <div>
                    <p className="webhook-url">{w.url}</p>
                    <div className="tags">
                      {w.events.map((e) => <span key={e} className="badge badge-neutral">{tt(`eventCategory.${e}`)}</span>)}
                      <StatusBadge kind="webhook" status={w.active ? 'ACTIVE' : 'INACTIVE'} />
                    </div>
                    <p className="muted small">{w.magic_id} · {t('since', { when: formatDateTime(w.created_at) })}</p>
                  </div>
                  <div className="button-row">
                    <button type="button" className="button small secondary" aria-expanded={openLog === w.magic_id} aria-controls={`log-${w.magic_id}`}
                      onClick={() => setOpenLog(openLog === w.magic_id ? null : w.magic_id)}>
                      {openLog === w.magic_id ? t('hideDeliveries') : t('deliveries')}
                    </button>
                    <button type="button" className="button small danger" onClick={() => { remove.reset(); setDeleting({ id: w.magic_id, url: w.url }); }}>{t('delete')}</button>
                  </div>
                </div>
                {openLog === w.magic_id ? <div id={`log-${w.magic_id}`}><DeliveryLog webhookId={w.magic_id} /></div> : null}
              </li>
            ))}
          </ul>
        )}
      </section>

      <ConfirmDialog open={deleting !== null} title={t('deleteTitle')} confirmLabel={t('deleteConfirm')} busy={remove.isPending}
        onCancel={() => setDeleting(null)} onConfirm={() => deleting && remove.mutate({ magic_id: deleting.id })}>
        <p>{t('deleteText', { url: deleting?.url ?? '' })}</p>
        <FormError error={remove.isError ? remove.error : null} />
      </ConfirmDialog>
    </>
  );
}
