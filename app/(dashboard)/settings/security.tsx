'use client';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { changePasswordRequest } from '@/server/routers/session/schemas';
import { PasswordDialog } from '../../_components/password-dialog';
import { EmptyState, ErrorState, Loading, Pager, TextField } from '../../_components/ui';
import { apiErrorCode } from '../../_lib/api-errors';
import { ApiForm, useApiForm } from '../../_lib/api-form';
import { formatDateTime } from '../../_lib/dates';
import { useTRPC } from '../../_lib/trpc';
import { describeUserAgent } from '../../_lib/user-agent';

/** The signed-in person's security: where they are signed in, their password, and the account's security log. */
export function Security() {
  return (
    <>
      <Sessions />
      <PasswordChange />
      <AuditTrail />
    </>
  );
}

function Device({ ua }: { ua: string | null }) {
  const t = useTranslations('security');
  const d = describeUserAgent(ua);
  const text = !d ? t('unknownDevice') : d.os ? t('deviceOn', { browser: d.browser, os: d.os }) : d.browser;
  return <span title={ua ?? undefined}>{text}</span>;
}

function Sessions() {
  const t = useTranslations('security');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const list = useQuery(trpc.session.sessions.queryOptions());
  const [asking, setAsking] = useState(false);
  const end = useMutation(trpc.session.signOutEverywhere.mutationOptions({
    onSuccess: async () => {
      setAsking(false);
      await queryClient.invalidateQueries({ queryKey: trpc.session.sessions.queryKey() });
      await queryClient.invalidateQueries({ queryKey: trpc.dashboard.auditTrail.queryKey() });
    },
  }));
  const others = list.data?.data.filter((x) => !x.current).length ?? 0;
  return (
    <section className="card" aria-labelledby="sessions-title">
      <h2 id="sessions-title">{t('sessionsTitle')}</h2>
      <p className="muted">{t('sessionsText')}</p>
      {list.isPending ? <Loading /> : list.isError ? <ErrorState error={list.error} onRetry={() => list.refetch()} /> : (
        <div className="table-wrap">
          <table className="list" aria-label={t('tableLabel')}>
            <thead><tr>
              <th scope="col">{t('col.device')}</th><th scope="col">{t('col.address')}</th>
              <th scope="col">{t('col.signedIn')}</th><th scope="col">{t('col.lastSeen')}</th>
            </tr></thead>
            <tbody>
              {list.data.data.map((x, i) => (
                <tr key={`${x.created_at}-${i}`} data-testid="session" data-current={x.current}>
                  <td data-label={t('col.device')}>
                    <Device ua={x.user_agent} />{x.current ? <> <span className="badge badge-ok">{t('thisSession')}</span></> : null}
                  </td>
                  <td data-label={t('col.address')} className="break-anywhere"><span className="mono">{x.client_address ?? t('unknownAddress')}</span></td>
                  <td data-label={t('col.signedIn')} className="nowrap">{formatDateTime(x.created_at)}</td>
                  <td data-label={t('col.lastSeen')} className="nowrap">{formatDateTime(x.last_seen_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {end.isSuccess ? <p role="status" className="alert alert-ok">{t('endedSessions', { count: end.data.ended_sessions })}</p> : null}
      <div className="button-row spaced-block">
        <button type="button" className="button danger" disabled={list.isSuccess && others === 0} onClick={() => { end.reset(); setAsking(true); }}>{t('signOutOthers')}</button>
        {list.isSuccess && others === 0 && !end.isSuccess ? <span className="muted small">{t('onlyThisSession')}</span> : null}
      </div>
      <PasswordDialog open={asking} title={t('signOutOthersTitle')} confirmLabel={t('signOutOthersConfirm')} busy={end.isPending}
        error={end.isError ? end.error : null} onCancel={() => setAsking(false)} onConfirm={(password) => end.mutate({ password })}>
        <p>{t('signOutOthersText')}</p>
      </PasswordDialog>
    </section>
  );
}

function PasswordChange() {
  const t = useTranslations('security');
  const tc = useTranslations('common');
  const tv = useTranslations('validation');
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const f = useApiForm();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [repeat, setRepeat] = useState('');
  const change = useMutation(trpc.session.changePassword.mutationOptions({
    onSuccess: async () => {
      setCurrent(''); setNext(''); setRepeat('');
      await queryClient.invalidateQueries({ queryKey: trpc.session.sessions.queryKey() });
      await queryClient.invalidateQueries({ queryKey: trpc.dashboard.auditTrail.queryKey() });
    },
    // a wrong current password is the person's to fix on this form, said plainly
    onError: (err) => (apiErrorCode(err) === 'FORBIDDEN' ? f.refuse({ password: tc('wrongPassword') }, tc('wrongPassword')) : f.showApiError(err)),
  }));
  function submit() {
    change.reset();
    // the repeat is the form's own check: the API takes the new password once
    const valid = f.check(changePasswordRequest, { password: current, new_password: next }, { extra: next && repeat !== next ? { repeat: tv('passwordsDiffer') } : undefined });
    if (valid) change.mutate(valid);
  }
  return (
    <section className="card" aria-labelledby="password-title">
      <h2 id="password-title">{t('passwordTitle')}</h2>
      <p className="muted">{t('passwordText')}</p>
      <ApiForm form={f} onSubmit={submit} label={t('passwordTitle')} className="form narrow-form">
        <TextField label={t('currentPassword')} name="current-password" type="password" autoComplete="current-password" value={current}
          onChange={(e) => setCurrent(e.target.value)} error={f.fields.password} />
        <TextField label={t('newPassword')} name="new-password" type="password" autoComplete="new-password" value={next}
          onChange={(e) => setNext(e.target.value)} error={f.fields.new_password} />
        <TextField label={t('repeatPassword')} name="repeat-password" type="password" autoComplete="new-password" value={repeat}
          onChange={(e) => setRepeat(e.target.value)} error={f.fields.repeat} />
        <div className="button-row">
          <button type="submit" className="button primary" disabled={change.isPending}>{change.isPending ? t('changingPassword') : t('changePassword')}</button>
          {change.isSuccess ? <span role="status" className="muted">{t('passwordChanged', { count: change.data.ended_sessions })}</span> : null}
        </div>
      </ApiForm>
    </section>
  );
}

const AUDIT_PAGE = 20;

function AuditTrail() {
  const t = useTranslations('security');
  const trpc = useTRPC();
  // keyset pages: the cursors of the pages before this one, to go back
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors.at(-1);
  const trail = useQuery(trpc.dashboard.auditTrail.queryOptions({ limit: AUDIT_PAGE, ...(cursor ? { cursor } : {}) }));
  return (
    <section className="card" aria-labelledby="audit-title">
      <h2 id="audit-title">{t('auditTitle')}</h2>
      <p className="muted">{t('auditText')}</p>
      {trail.isPending ? <Loading /> : trail.isError ? <ErrorState error={trail.error} onRetry={() => trail.refetch()} /> : trail.data.data.length === 0 ? (
        <EmptyState title={t('auditEmpty')} />
      ) : (
        <>
          <div className="table-wrap">
            <table className="list" aria-label={t('auditLabel')}>
              <thead><tr>
                <th scope="col">{t('col.when')}</th><th scope="col">{t('col.action')}</th><th scope="col">{t('col.who')}</th>
                <th scope="col">{t('col.address')}</th><th scope="col">{t('col.device')}</th>
              </tr></thead>
              <tbody>
                {trail.data.data.map((e) => (
                  <tr key={e.id} data-testid="audit-entry" data-action={e.action}>
                    <td data-label={t('col.when')} className="nowrap">{formatDateTime(e.created_at)}</td>
                    <td data-label={t('col.action')}>
                      {t(`actions.${e.action.replace(/\./g, '_')}` as 'actions.session_sign_in')}
                      {e.subject ? <> <span className="mono small">{e.subject}</span></> : null}
                    </td>
                    <td data-label={t('col.who')} className="break-anywhere">{e.actor_email}</td>
                    <td data-label={t('col.address')} className="break-anywhere"><span className="mono">{e.client_address}</span></td>
                    <td data-label={t('col.device')} className="break-anywhere"><Device ua={e.user_agent} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager hasPrev={cursors.length > 0} hasNext={!!trail.data.next_cursor} busy={trail.isFetching}
            onPrev={() => setCursors((c) => c.slice(0, -1))} onNext={() => setCursors((c) => [...c, trail.data.next_cursor!])} />
        </>
      )}
    </section>
  );
}
