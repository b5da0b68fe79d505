'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { createWebhookRequest } from '@/server/routers/webhooks/schemas';
import { ConfirmDialog, CopyValue, EmptyState, ErrorState, FormError, Loading, PageHeader, StatusBadge, TextField } from '../../_components/ui';
import { ApiForm, useApiForm } from '../../_lib/api-form';
import { formatDateTime } from '../../_lib/dates';
import { useTRPC } from '../../_lib/trpc';
import { DeliveryLog } from './delivery-log';

const CATEGORIES = [
  { value: 'transaction', label: 'Transactions' },
  { value: 'withdraw', label: 'Withdrawals' },
  { value: 'dispute', label: 'Disputes' },
] as const;
type Category = (typeof CATEGORIES)[number]['value'];

export function Webhooks() {
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
      <PageHeader title="Webhooks" subtitle="Signed notifications of your transactions, withdrawals and disputes." />
      <section className="card" aria-labelledby="new-webhook-title">
        <h2 id="new-webhook-title">Add an endpoint</h2>
        {created ? (
          <div className="alert alert-ok" role="status" data-testid="webhook-secret">
            <p><strong>Webhook created.</strong> Its signing secret is shown only now; store it to verify signatures.</p>
            <CopyValue value={created.secret} label="Signing secret" copyLabel="Copy secret" />
            <button type="button" className="button small secondary" onClick={() => create.reset()}>Done, hide it</button>
          </div>
        ) : null}
        <ApiForm form={f} onSubmit={submit} label="Add an endpoint">
          <TextField label="Endpoint URL" name="url" type="url" inputMode="url" placeholder="https://example.com/webhooks/pix" value={url} onChange={(e) => setUrl(e.target.value)} error={fields.url}
            hint="https:// recommended. Private and loopback addresses are refused unless the server allows them." />
          <fieldset>
            <legend>Events</legend>
            <div className="checkbox-row">
              {CATEGORIES.map((c) => (
                <label key={c.value} className="checkbox">
                  <input type="checkbox" name="events" value={c.value} checked={events.includes(c.value)} onChange={(e) => toggle(c.value, e.target.checked)} /> {c.label}
                </label>
              ))}
            </div>
            {fields.events ? <p className="field-error">{fields.events}</p> : null}
          </fieldset>
          <div className="button-row">
            <button type="submit" className="button primary" disabled={create.isPending}>{create.isPending ? 'Adding…' : 'Add webhook'}</button>
          </div>
        </ApiForm>
      </section>

      <section className="card" aria-labelledby="webhooks-title">
        <h2 id="webhooks-title">Endpoints</h2>
        {list.isPending ? <Loading /> : list.isError ? <ErrorState error={list.error} onRetry={() => list.refetch()} /> : list.data.content.length === 0 ? (
          <EmptyState title="No webhooks yet"><p className="muted">Add an endpoint above to receive events as they happen.</p></EmptyState>
        ) : (
          <ul className="plain-list">
            {list.data.content.map((w) => (
              <li key={w.magic_id} className="webhook" data-testid="webhook">
                <div className="webhook-head">
                  <div>
                    <p className="webhook-url">{w.url}</p>
                    <div className="tags">
                      {w.events.map((e) => <span key={e} className="badge badge-neutral">{e}</span>)}
                      <StatusBadge kind="webhook" status={w.active ? 'ACTIVE' : 'INACTIVE'} />
                    </div>
                    <p className="muted small">{w.magic_id} · since {formatDateTime(w.created_at)}</p>
                  </div>
                  <div className="button-row">
                    <button type="button" className="button small secondary" aria-expanded={openLog === w.magic_id} aria-controls={`log-${w.magic_id}`}
                      onClick={() => setOpenLog(openLog === w.magic_id ? null : w.magic_id)}>
                      {openLog === w.magic_id ? 'Hide deliveries' : 'Deliveries'}
                    </button>
                    <button type="button" className="button small danger" onClick={() => { remove.reset(); setDeleting({ id: w.magic_id, url: w.url }); }}>Delete</button>
                  </div>
                </div>
                {openLog === w.magic_id ? <div id={`log-${w.magic_id}`}><DeliveryLog webhookId={w.magic_id} /></div> : null}
              </li>
            ))}
          </ul>
        )}
      </section>

      <ConfirmDialog open={deleting !== null} title="Delete this webhook?" confirmLabel="Delete webhook" busy={remove.isPending}
        onCancel={() => setDeleting(null)} onConfirm={() => deleting && remove.mutate({ magic_id: deleting.id })}>
        <p>Events stop going to <strong className="webhook-url">{deleting?.url}</strong>, and its pending deliveries are dropped.</p>
        <FormError error={remove.isError ? remove.error : null} />
      </ConfirmDialog>
    </>
  );
}
