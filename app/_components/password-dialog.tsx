'use client';
import { useTranslations } from 'next-intl';
import { useEffect, useState, type ReactNode } from 'react';
import { apiErrorCode, useDescribeApiError } from '../_lib/api-errors';
import { ConfirmDialog, FormError, TextField } from './ui';

/**
 * Asks for the person's password again before an action that answers a secret or a new credential
 * (the API refuses it without one). A wrong password says so plainly; a limited one says when to try
 * again; the typed password is dropped when the dialog closes.
 */
export function PasswordDialog({ open, title, confirmLabel, busy, error, onConfirm, onCancel, children }: {
  open: boolean; title: string; confirmLabel: string; busy?: boolean; error?: unknown;
  onConfirm: (password: string) => void; onCancel: () => void; children?: ReactNode;
}) {
  const t = useTranslations('common');
  const describe = useDescribeApiError();
  const [password, setPassword] = useState('');
  useEffect(() => { if (!open) setPassword(''); }, [open]);
  const message = !error ? null : apiErrorCode(error) === 'FORBIDDEN' ? t('wrongPassword') : describe(error).message;
  return (
    <ConfirmDialog open={open} title={title} confirmLabel={confirmLabel} busy={busy} onCancel={onCancel} onConfirm={() => onConfirm(password)}>
      <form onSubmit={(e) => { e.preventDefault(); onConfirm(password); }}>
        {children}
        <TextField label={t('password')} name="password" type="password" autoComplete="current-password" value={password}
          onChange={(e) => setPassword(e.target.value)} hint={t('passwordHint')} required />
        <FormError message={message} />
      </form>
    </ConfirmDialog>
  );
}
