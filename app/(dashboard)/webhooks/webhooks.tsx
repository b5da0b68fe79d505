'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { createWebhookRequest } from '@/server/routers/webhooks/schemas';
import { ConfirmDialog, CopyValue, EmptyState, ErrorState, FormError, Loading, PageHeader, TextField } from '../../_components/ui';
import { useDescribeApiError } from '../../_lib/api-errors';
import { ApiForm, useApiForm } from '../../_lib/api-form';
import { useTRPC } from '../../_lib/trpc';
import { CategoryBoxes, Endpoint, type Category } from './endpoint';

export function Webhooks() {
  const describeApiError = useDescribeApiError();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.webhooks.list.queryOptions());
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<Category[]>(['transaction', 'withdraw', 'dispute']);
  const f = useApiForm();
  const { fields } = f;
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
          <CategoryBoxes value={events} onChange={setEvents} error={fields.events} />
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
              <Endpoint key={w.magic_id} w={w} onDelete={() => { remove.reset(); setDeleting({ id: w.magic_id, url: w.url }); }} />
            ))}
          </ul>
        )}
      </section>

      <ConfirmDialog open={deleting !== null} title="Delete this webhook?" confirmLabel="Delete webhook" busy={remove.isPending}
        onCancel={() => setDeleting(null)} onConfirm={() => deleting && remove.mutate({ magic_id: deleting.id })}>
        <p>Events stop going to <strong className="webhook-url">{deleting?.url}</strong>, and its pending deliveries are dropped.</p>
        <FormError message={remove.isError ? describeApiError(remove.error).message : null} />
      </ConfirmDialog>
    </>
  );
}
