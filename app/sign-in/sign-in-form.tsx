'use client';
import { useMutation } from '@tanstack/react-query';
import { useRef, useState, type FormEvent } from 'react';
import { signInRequest } from '@/server/routers/session/schemas';
import { focusFirstInvalid, FormError, TextField } from '../_components/ui';
import { apiErrorCode, describeApiError, validate, type FieldErrors } from '../_lib/api-errors';
import { useTRPC } from '../_lib/trpc';

export function SignInForm() {
  const trpc = useTRPC();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [fields, setFields] = useState<FieldErrors>({});
  const formRef = useRef<HTMLFormElement>(null);
  const [error, setError] = useState<string | null>(null);
  const signIn = useMutation(trpc.session.signIn.mutationOptions({
    // a full navigation, so the server-side gate sees the new cookie
    onSuccess: () => window.location.assign('/'),
    onError: (err) => {
      const d = describeApiError(err);
      setFields(d.fields);
      focusFirstInvalid(formRef.current);
      setError(apiErrorCode(err) === 'UNAUTHORIZED' ? 'Wrong email or password.' : d.message);
    },
  }));

  function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    const v = validate(signInRequest, { email, password });
    if (!v.ok) { setFields(v.fields); focusFirstInvalid(formRef.current); return; }
    setFields({});
    signIn.mutate(v.data);
  }

  const busy = signIn.isPending || signIn.isSuccess;
  return (
    <form ref={formRef} onSubmit={submit} noValidate className="form">
      <FormError message={error} />
      <TextField label="Email" name="email" type="email" autoComplete="username" value={email} onChange={(e) => setEmail(e.target.value)} error={fields.email} required autoFocus />
      <TextField label="Password" name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} error={fields.password} required />
      <button type="submit" className="button primary block" disabled={busy}>{busy ? 'Signing in…' : 'Sign in'}</button>
    </form>
  );
}
