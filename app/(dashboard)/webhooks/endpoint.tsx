'use client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { updateWebhookRequest } from '@/server/routers/webhooks/schemas';
import { ConfirmDialog, CopyValue, FormError, StatusBadge, TextField } from '../../_components/ui';
import { apiErrorCode, useDescribeApiError } from '../../_lib/api-errors';
import { ApiForm, useApiForm } from '../../_lib/api-form';
import { formatDateTime } from '../../_lib/dates';
import { useTRPC } from '../../_lib/trpc';
import { DeliveryLog } from './delivery-log';

export const CATEGORIES = [
  { value: 'transaction', label: 'Transactions' },
  { value: 'withdraw', label: 'Withdrawals' },
  { value: 'dispute', label: 'Disputes' },
] as const;
export type Category = (typeof CATEGORIES)[number]['value'];

export interface EndpointView {
  magic_id: string; url: string; secret: string; events: Category[]; active: boolean; paused: boolean;
  previous_secret_expires_at: string | null; created_at: string;
}

export function CategoryBoxes({ value, onChange, error }: { value: Category[]; onChange: (v: Category[]) => void; error?: string }) {
  const toggle = (c: Category, on: boolean) => onChange(on ? [...value, c].filter((x, i, a) => a.indexOf(x) === i) : value.filter((x) => x !== c));
  return (
    <fieldset>
      <legend>Events</legend>
      <div className="checkbox-row">
        {CATEGORIES.map((c) => (
          <label key={c.value} className="checkbox">
            <input type="checkbox" name="events" value={c.value} checked={value.includes(c.value)} onChange={(e) => toggle(c.value, e.target.checked)} /> {c.label}
          </label>
        ))}
      </div>
      {error ? <p className="field-error">{error}</p> : null}
    </fieldset>
  );
}

type Panel = 'log' | 'edit' | null;

/** One endpoint with everything a merchant does to it: log, test, edit, pause, secret, delete. */
export function Endpoint({ w, onDelete }: { w: EndpointView; onDelete: () => void }) {
  const describeApiError = useDescribeApiError();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [panel, setPanel] = useState<Panel>(null);
  const [secretAction, setSecretAction] = useState<'reveal' | 'rotate' | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });

  const test = useMutation(trpc.webhooks.test.mutationOptions({
    onSuccess: async (r) => {
      setNotice(`Test event queued (${r.content.delivery_id}). Its attempt appears in the deliveries below.`);
      setPanel('log');
      await queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.pathKey() });
    },
  }));
  const pause = useMutation(trpc.webhooks.pause.mutationOptions({ onSuccess: async () => { setNotice('Paused: nothing is delivered until you resume it.'); await refresh(); } }));
  const resume = useMutation(trpc.webhooks.resume.mutationOptions({ onSuccess: async () => { setNotice('Resumed: queued deliveries go out now.'); await refresh(); } }));
  const failure = [test, pause, resume].find((m) => m.isError)?.error;
  const status = w.paused ? 'PAUSED' : w.active ? 'ACTIVE' : 'INACTIVE';

  return (
    <li className="webhook" data-testid="webhook">
      <div className="webhook-head">
        <div>
          <p className="webhook-url">{w.url}</p>
          <div className="tags">
            {w.events.map((e) => <span key={e} className="badge badge-neutral">{e}</span>)}
            <StatusBadge kind="webhook" status={status} />
          </div>
          <p className="muted small">{w.magic_id} · since {formatDateTime(w.created_at)}</p>
          <p className="muted small">Signing secret <span className="mono" data-testid="masked-secret">{w.secret}</span>
            {w.previous_secret_expires_at && Date.parse(w.previous_secret_expires_at) > Date.now()
              ? <> · the previous secret also signs until {formatDateTime(w.previous_secret_expires_at)}</> : null}</p>
        </div>
        <div className="button-row wrap">
          <button type="button" className="button small secondary" aria-expanded={panel === 'log'} aria-controls={`log-${w.magic_id}`}
            onClick={() => setPanel(panel === 'log' ? null : 'log')}>{panel === 'log' ? 'Hide deliveries' : 'Deliveries'}</button>
          <button type="button" className="button small secondary" disabled={test.isPending || w.paused || !w.active}
            title={w.paused ? 'Resume the endpoint to send a test' : undefined}
            onClick={() => { setNotice(null); test.mutate({ magic_id: w.magic_id }); }}>{test.isPending ? 'Sending…' : 'Send test event'}</button>
          <button type="button" className="button small secondary" aria-expanded={panel === 'edit'} onClick={() => setPanel(panel === 'edit' ? null : 'edit')}>Edit</button>
          {w.paused || !w.active
            ? <button type="button" className="button small secondary" disabled={resume.isPending} onClick={() => resume.mutate({ magic_id: w.magic_id })}>Resume</button>
            : <button type="button" className="button small secondary" disabled={pause.isPending} onClick={() => pause.mutate({ magic_id: w.magic_id })}>Pause</button>}
          <button type="button" className="button small secondary" onClick={() => setSecretAction('reveal')}>Reveal secret</button>
          <button type="button" className="button small secondary" onClick={() => setSecretAction('rotate')}>Rotate secret</button>
          <button type="button" className="button small danger" data-testid="delete-webhook" onClick={onDelete}>Delete</button>
        </div>
      </div>
      {notice ? <p className="alert alert-ok small" role="status">{notice}</p> : null}
      <FormError message={failure ? describeApiError(failure).message : null} />
      {panel === 'edit' ? <EditEndpoint w={w} onDone={(msg) => { setPanel(null); setNotice(msg); }} /> : null}
      {panel === 'log' ? <div id={`log-${w.magic_id}`}><DeliveryLog webhookId={w.magic_id} /></div> : null}
      <SecretDialog w={w} action={secretAction} onClose={() => setSecretAction(null)} onRotated={refresh} />
    </li>
  );
}

function EditEndpoint({ w, onDone }: { w: EndpointView; onDone: (message: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState(w.url);
  const [events, setEvents] = useState<Category[]>(w.events);
  const f = useApiForm();
  const update = useMutation(trpc.webhooks.update.mutationOptions({
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });
      onDone('Endpoint updated.');
    },
    onError: f.showApiError,
  }));
  function submit() {
    update.reset();
    const valid = f.check(updateWebhookRequest, { magic_id: w.magic_id, url, events });
    if (valid) update.mutate(valid);
  }
  return (
    <ApiForm form={f} onSubmit={submit} label={`Edit ${w.url}`}>
      <TextField label="Endpoint URL" name="url" type="url" inputMode="url" value={url} onChange={(e) => setUrl(e.target.value)} error={f.fields.url}
        hint="Deliveries still waiting move to the new URL." />
      <CategoryBoxes value={events} onChange={setEvents} error={f.fields.events} />
      <div className="button-row">
        <button type="submit" className="button primary small" disabled={update.isPending}>{update.isPending ? 'Saving…' : 'Save changes'}</button>
      </div>
    </ApiForm>
  );
}

/** Reveal or rotate the signing secret: both ask for the password again (a miss counts as a failed sign-in). */
function SecretDialog({ w, action, onClose, onRotated }: { w: EndpointView; action: 'reveal' | 'rotate' | null; onClose: () => void; onRotated: () => void }) {
  const t = useTranslations('webhooks');
  const describeApiError = useDescribeApiError();
  const trpc = useTRPC();
  const [password, setPassword] = useState('');
  const reveal = useMutation(trpc.webhooks.revealSecret.mutationOptions());
  const rotate = useMutation(trpc.webhooks.rotateSecretConfirmed.mutationOptions({ onSuccess: onRotated }));
  const m = action === 'rotate' ? rotate : reveal;
  const shown = m.data?.content.secret;
  const close = () => { setPassword(''); reveal.reset(); rotate.reset(); onClose(); };
  const confirm = () => {
    if (shown) return close();
    m.mutate({ magic_id: w.magic_id, password });
  };
  return (
    <ConfirmDialog open={action !== null} title={action === 'rotate' ? 'Rotate the signing secret' : 'Reveal the signing secret'}
      confirmLabel={shown ? 'Done, hide it' : action === 'rotate' ? 'Rotate secret' : 'Reveal secret'} busy={m.isPending} onCancel={close} onConfirm={confirm}>
      {shown ? (
        <div data-testid="revealed-secret">
          <CopyValue value={shown} label={action === 'rotate' ? 'New signing secret' : 'Signing secret'} copyLabel="Copy secret" />
          {action === 'rotate' ? <p className="muted small">For 24 hours every delivery is signed with both the new and the previous secret, so your receiver can switch without missing events.</p> : null}
        </div>
      ) : (
        <form onSubmit={(e) => { e.preventDefault(); confirm(); }}>
          <p>{action === 'rotate'
            ? <>A new secret signs deliveries to <strong className="webhook-url">{w.url}</strong> from now on; the current one keeps working for 24 hours.</>
            : <>Enter your password to see the secret of <strong className="webhook-url">{w.url}</strong>.</>}</p>
          <TextField label="Your password" name="password" type="password" autoComplete="current-password" value={password}
            onChange={(e) => setPassword(e.target.value)} required />
          <FormError message={!m.isError ? null : apiErrorCode(m.error) === 'FORBIDDEN' ? t('wrongPassword') : describeApiError(m.error).message} />
        </form>
      )}
    </ConfirmDialog>
  );
}
