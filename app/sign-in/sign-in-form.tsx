'use client';
import { useMutation } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import { useState } from 'react';
import { signInRequest } from '@/server/routers/session/schemas';
import { TextField } from '../_components/ui';
import { apiErrorCode } from '../_lib/api-errors';
import { ApiForm, useApiForm } from '../_lib/api-form';
import { useTRPC } from '../_lib/trpc';

export function SignInForm() {
  const t = useTranslations('signIn');
  const trpc = useTRPC();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const f = useApiForm();
  const { fields } = f;
  const signIn = useMutation(trpc.session.signIn.mutationOptions({
    // a full navigation, so the server-side gate sees the new cookie
    onSuccess: () => window.location.assign('/'),
    onError: (err) => {
      f.showApiError(err);
      if (apiErrorCode(err) === 'UNAUTHORIZED') f.setError(t('wrongPassword'));
    },
  }));

  function submit() {
    const valid = f.check(signInRequest, { email, password });
    if (valid) signIn.mutate(valid);
  }

  const busy = signIn.isPending || signIn.isSuccess;
  return (
    <ApiForm form={f} onSubmit={submit} label={t('title')}>
      <TextField label={t('email')} name="email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} error={fields.email} required autoFocus />
      <TextField label={t('password')} name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} error={fields.password} required />
      <button type="submit" className="button primary block" disabled={busy}>{busy ? t('submitting') : t('submit')}</button>
    </ApiForm>
  );
}
