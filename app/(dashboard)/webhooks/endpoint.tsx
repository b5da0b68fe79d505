'use client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { WEBHOOK_CATEGORIES } from '@/contract/webhooks';
import { updateWebhookRequest } from '@/server/routers/webhooks/schemas';
import { ConfirmDialog, CopyValue, FormError, StatusBadge, TextField } from '../../_components/ui';
import { apiErrorCode, useDescribeApiError } from '../../_lib/api-errors';
import { ApiForm, useApiForm } from '../../_lib/api-form';
import { formatDateTime } from '../../_lib/dates';
import { useTRPC } from '../../_lib/trpc';
import { DeliveryLog } from './delivery-log';
import { useUrlFieldText } from './words';

export type Category = (typeof WEBHOOK_CATEGORIES)[number];

export interface EndpointView {
  magic_id: string; url: string; secret: string; events: Category[]; active: boolean; paused: boolean;
  previous_secret_expires_at: string | null; created_at: string;
}

export function CategoryBoxes({ value, onChange, error }: { value: Category[]; onChange: (v: Category[]) => void; error?: string }) {
  const t = useTranslations('webhooks');
  const toggle = (c: Category, on: boolean) => onChange(on ? [...value, c].filter((x, i, a) => a.indexOf(x) === i) : value.filter((x) => x !== c));
  return (
    <fieldset>
      <legend>{t('events')}</legend>
      <div className="checkbox-row">
        {WEBHOOK_CATEGORIES.map((c) => (
          <label key={c} className="checkbox">
            <input type="checkbox" name="events" value={c} checked={value.includes(c)} onChange={(e) => toggle(c, e.target.checked)} /> {t(`category.${c}`)}
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
  const t = useTranslations('webhooks');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [panel, setPanel] = useState<Panel>(null);
  const [secretAction, setSecretAction] = useState<'reveal' | 'rotate' | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });

  const test = useMutation(trpc.webhooks.test.mutationOptions({
    onSuccess: async () => {
      setNotice(t('testQueued'));
      setPanel('log');
      await queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.pathKey() });
    },
  }));
  // each action's message replaces the previous one: an old notice must not read as the latest news
  const pause = useMutation(trpc.webhooks.pause.mutationOptions({ onMutate: () => setNotice(null), onSuccess: async () => { setNotice(t('paused')); await refresh(); } }));
  const resume = useMutation(trpc.webhooks.resume.mutationOptions({ onMutate: () => setNotice(null), onSuccess: async () => { setNotice(t('resumed')); await refresh(); } }));
  const failure = [test, pause, resume].find((m) => m.isError)?.error;
  const status = w.paused ? 'PAUSED' : w.active ? 'ACTIVE' : 'INACTIVE';
  // the previous secret is accepted for 24 h after a rotation: the merchant sees until when
  const previousUntil = w.previous_secret_expires_at && Date.parse(w.previous_secret_expires_at) > Date.now() ? w.previous_secret_expires_at : null;

  return (
    <li className="webhook" data-testid="webhook">
      <div className="webhook-head">
        <div>
          <p className="webhook-url">{w.url}</p>
          <div className="tags">
            {w.events.map((e) => <span key={e} className="badge badge-neutral">{t(`category.${e}`)}</span>)}
            <StatusBadge kind="webhook" status={status} />
          </div>
          <p className="muted small"><span className="mono">{w.magic_id}</span> · {t('since', { when: formatDateTime(w.created_at) })}</p>
          <p className="muted small">{t('signingSecret')} <span className="mono" data-testid="masked-secret">{w.secret}</span></p>
          {previousUntil ? <p className="muted small" data-testid="previous-secret">{t('previousSecret', { when: formatDateTime(previousUntil) })}</p> : null}
        </div>
        <div className="button-row wrap">
          <button type="button" className="button small secondary" aria-expanded={panel === 'log'} aria-controls={`log-${w.magic_id}`}
            onClick={() => setPanel(panel === 'log' ? null : 'log')}>{panel === 'log' ? t('hideDeliveries') : t('deliveries')}</button>
          <button type="button" className="button small secondary" disabled={test.isPending || w.paused || !w.active}
            title={w.paused ? t('resumeToTest') : undefined}
            onClick={() => { setNotice(null); test.mutate({ magic_id: w.magic_id }); }}>{test.isPending ? t('sending') : t('sendTest')}</button>
          <button type="button" className="button small secondary" aria-expanded={panel === 'edit'} onClick={() => setPanel(panel === 'edit' ? null : 'edit')}>{t('edit')}</button>
          {w.paused || !w.active
            ? <button type="button" className="button small secondary" disabled={resume.isPending} onClick={() => resume.mutate({ magic_id: w.magic_id })}>{t('resume')}</button>
            : <button type="button" className="button small secondary" disabled={pause.isPending} onClick={() => pause.mutate({ magic_id: w.magic_id })}>{t('pause')}</button>}
          <button type="button" className="button small secondary" onClick={() => setSecretAction('reveal')}>{t('reveal')}</button>
          <button type="button" className="button small secondary" onClick={() => setSecretAction('rotate')}>{t('rotate')}</button>
          <button type="button" className="button small danger" data-testid="delete-webhook" onClick={onDelete}>{t('delete')}</button>
        </div>
      </div>
      {notice ? <p className="alert alert-ok small" role="status">{notice}</p> : null}
      <FormError error={failure} />
      {panel === 'edit' ? <EditEndpoint w={w} onDone={(msg) => { setPanel(null); setNotice(msg); }} /> : null}
      {panel === 'log' ? <div id={`log-${w.magic_id}`}><DeliveryLog webhookId={w.magic_id} /></div> : null}
      <SecretDialog w={w} action={secretAction} onClose={() => setSecretAction(null)} onRotated={refresh} />
    </li>
  );
}

function EditEndpoint({ w, onDone }: { w: EndpointView; onDone: (message: string) => void }) {
  const t = useTranslations('webhooks');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState(w.url);
  const [events, setEvents] = useState<Category[]>(w.events);
  const f = useApiForm();
  const urlText = useUrlFieldText();
  const update = useMutation(trpc.webhooks.update.mutationOptions({
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: trpc.webhooks.list.queryKey() });
      onDone(t('updated'));
    },
    onError: f.showApiError,
  }));
  function submit() {
    update.reset();
    const valid = f.check(updateWebhookRequest, { magic_id: w.magic_id, url, events });
    if (valid) update.mutate(valid);
  }
  return (
    <ApiForm form={f} onSubmit={submit} label={t('editLabel', { url: w.url })}>
      <TextField label={t('url')} name="url" type="url" inputMode="url" value={url} onChange={(e) => setUrl(e.target.value)} error={urlText(f.fields.url)}
        hint={t('urlMoves')} />
      <CategoryBoxes value={events} onChange={setEvents} error={f.fields.events} />
      <div className="button-row">
        <button type="submit" className="button primary small" disabled={update.isPending}>{update.isPending ? t('saving') : t('save')}</button>
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
  const url = () => <strong className="webhook-url">{w.url}</strong>;
  return (
    <ConfirmDialog open={action !== null} title={action === 'rotate' ? t('rotateTitle') : t('revealTitle')}
      confirmLabel={shown ? t('done') : action === 'rotate' ? t('rotateConfirm') : t('revealConfirm')} busy={m.isPending} onCancel={close} onConfirm={confirm}>
      {shown ? (
        <div data-testid="revealed-secret">
          <CopyValue value={shown} label={action === 'rotate' ? t('newSecret') : t('secret')} copyLabel={t('copySecret')} />
          {action === 'rotate' ? <p className="muted small">{t('rotatedText')}</p> : null}
        </div>
      ) : (
        <form onSubmit={(e) => { e.preventDefault(); confirm(); }}>
          <p>{action === 'rotate' ? t.rich('rotateText', { url }) : t.rich('revealText', { url })}</p>
          <TextField label={t('password')} name="password" type="password" autoComplete="current-password" value={password}
            onChange={(e) => setPassword(e.target.value)} hint={t('passwordHint')} required />
          <FormError message={!m.isError ? null : apiErrorCode(m.error) === 'FORBIDDEN' ? t('wrongPassword') : describeApiError(m.error).message} />
        </form>
      )}
    </ConfirmDialog>
  );
}
