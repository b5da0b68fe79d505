'use client';
import { useMutation } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { useEffect, useState } from 'react';
import { signInRequest } from '@/server/routers/session/schemas';
import { TextField } from '../_components/ui';
import { apiErrorCode, isApiError } from '../_lib/api-errors';
import { ApiForm, useApiForm } from '../_lib/api-form';
import { useTRPC } from '../_lib/trpc';

/**
 * Seconds left until `until` (a Date.now() instant), ticking once a second; 0 once it has passed.
 * The sign-in waits out a 429's retry-after itself, so the person is not left clicking into it.
 */
function useCountdown(until: number | null): number {
  const left = () => (until === null ? 0 : Math.max(0, Math.ceil((until - Date.now()) / 1000)));
  const [seconds, setSeconds] = useState(left);
  useEffect(() => {
    setSeconds(left());
    if (until === null) return;
    const timer = setInterval(() => {
      const s = left();
      setSeconds(s);
      if (s === 0) clearInterval(timer);
    }, 250);
    return () => clearInterval(timer);
    // `left` is rebuilt each render from `until` alone, so `until` is the whole dependency
  }, [until]);
  return seconds;
}

export function SignInForm() {
  const t = useTranslations('signIn');
  const trpc = useTRPC();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [retryUntil, setRetryUntil] = useState<number | null>(null);
  const waitSeconds = useCountdown(retryUntil);
  const f = useApiForm();
  const { fields } = f;
  const signIn = useMutation(trpc.session.signIn.mutationOptions({
    // a full navigation, so the server-side gate sees the new cookie
    onSuccess: () => window.location.assign('/'),
    onError: (err) => {
      const retry = isApiError(err) && apiErrorCode(err) === 'TOO_MANY_REQUESTS' ? err.data?.retryAfterSeconds : undefined;
      if (retry) {
        // the countdown below speaks for itself; no second message on top
        f.setError(null);
        setRetryUntil(Date.now() + retry * 1000);
        return;
      }
      f.showApiError(err);
      if (apiErrorCode(err) === 'UNAUTHORIZED') f.setError(t('wrongPassword'));
    },
  }));

  function submit() {
    if (waitSeconds > 0) return;
    const valid = f.check(signInRequest, { email, password });
    if (valid) signIn.mutate(valid);
  }

  const busy = signIn.isPending || signIn.isSuccess;
  const waiting = waitSeconds > 0;
  return (
    <ApiForm form={f} onSubmit={submit} label={t('title')}>
      <TextField label={t('email')} name="email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} error={fields.email} required autoFocus />
      <TextField label={t('password')} name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} error={fields.password} required />
      {/* polite: the countdown changes every second and must not interrupt a screen reader each time */}
      <p className="form-wait" role="status" aria-live="polite" data-testid="sign-in-wait">
        {waiting ? t('waitToRetry', { seconds: waitSeconds }) : ''}
      </p>
      <button type="submit" className="button primary block" disabled={busy || waiting}>
        {busy ? t('submitting') : waiting ? t('submitWaiting', { seconds: waitSeconds }) : t('submit')}
      </button>
    </ApiForm>
  );
}
