'use client';
import Link from 'next/link';
import { useEffect, useId, useRef, useState, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes } from 'react';
import { useTranslations } from 'next-intl';
import { useDescribeApiError } from '../_lib/api-errors';
import { formatBRL } from '../_lib/money';

export function Money({ cents, sign }: { cents: number | null | undefined; sign?: 'in' | 'out' }) {
  if (cents === null || cents === undefined) return <span className="muted">—</span>;
  const text = formatBRL(cents);
  return <span className={`money${sign ? ` money-${sign}` : ''}`}>{sign === 'in' ? '+ ' : sign === 'out' ? '− ' : ''}{text}</span>;
}

const TONE: Record<string, string> = {
  PAID: 'ok', APPROVED: 'ok', DELIVERED: 'ok', WON: 'ok', ACTIVE: 'ok',
  PENDING: 'wait', REQUESTED: 'wait', CREATED: 'wait', PARTIALLY_PAID: 'warn', OPEN: 'warn', PAUSED: 'warn',
  REFUNDED: 'neutral', PARTIALLY_REFUNDED: 'neutral', DISPUTED: 'warn', CHARGED_BACK: 'bad',
  ERROR: 'bad', REFUSED: 'bad', FAILED: 'bad', LOST: 'bad', INACTIVE: 'bad', EXPIRED: 'bad',
  // the API Pix's charges and devoluções
  ATIVA: 'wait', CONCLUIDA: 'ok', REMOVIDA_PELO_USUARIO_RECEBEDOR: 'neutral', REMOVIDA_PELO_PSP: 'bad',
  EM_PROCESSAMENTO: 'wait', DEVOLVIDO: 'ok', NAO_REALIZADO: 'bad',
};

/** What a status belongs to: the same code reads differently (a withdrawal is "Pago", a charge "Aprovada"). */
export type StatusKind = 'withdrawal' | 'batch' | 'transaction' | 'dispute' | 'delivery' | 'webhook' | 'pixCharge' | 'devolucao';

/** A status as a merchant says it, in the person's language; the API's code stays in data-status for tests and tooling. */
export function useStatusLabel() {
  const t = useTranslations('status');
  return (kind: StatusKind, status: string): string => {
    const key = `${kind}.${status}` as 'withdrawal.PAID';
    return t.has(key) ? t(key) : t('unknown');
  };
}

export function StatusBadge({ status, kind }: { status: string; kind: StatusKind }) {
  const label = useStatusLabel();
  return <span className={`badge badge-${TONE[status] ?? 'neutral'}`} data-status={status}>{label(kind, status)}</span>;
}

/**
 * A charge's badge: a dispute outranks the charge's own status while it is open ("Contestada") or
 * once it is lost (the money went back as a chargeback), in every list and at the top of its page.
 * The API keeps a refunded charge APPROVED (docs/decisions.md "Refunds"); the merchant reads it as refunded.
 */
export function ChargeBadge({ status, dispute, refunded = 0, total = 0 }: { status: string; dispute?: string | null; refunded?: number; total?: number }) {
  if (dispute === 'OPEN') return <StatusBadge kind="transaction" status="DISPUTED" />;
  if (dispute === 'LOST') return <StatusBadge kind="transaction" status="CHARGED_BACK" />;
  return <StatusBadge kind="transaction" status={chargeShownStatus(status, refunded, total)} />;
}

export function chargeShownStatus(status: string, refunded: number, total: number): string {
  if (status !== 'APPROVED' || refunded <= 0) return status;
  return refunded >= total ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
}

export function PageHeader({ title, subtitle, actions }: { title: string; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {subtitle ? <p className="muted">{subtitle}</p> : null}
      </div>
      {actions ? <div className="page-actions">{actions}</div> : null}
    </header>
  );
}

export function Loading({ label }: { label?: string }) {
  const t = useTranslations('common');
  return <div className="loading" role="status" aria-live="polite"><span className="spinner" aria-hidden="true" />{label ?? t('loading')}</div>;
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return <div className="empty"><p className="empty-title">{title}</p>{children}</div>;
}

export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const t = useTranslations('common');
  const describe = useDescribeApiError();
  return (
    <div className="alert alert-error" role="alert">
      <span>{describe(error).message}</span>
      {onRetry ? <button type="button" className="button small secondary" onClick={onRetry}>{t('tryAgain')}</button> : null}
    </div>
  );
}

/** After a refused submit, keyboard and screen-reader users land on the first field to fix. */
export function focusFirstInvalid(form: HTMLElement | null) {
  requestAnimationFrame(() => form?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
}

/** A form's message on top: a text of the form's own, or a failed call's error in the person's language. */
export function FormError({ message, error }: { message?: string | null; error?: unknown }) {
  const describe = useDescribeApiError();
  const text = message ?? (error ? describe(error).message : null);
  if (!text) return null;
  return <div className="alert alert-error" role="alert" data-testid="form-error">{text}</div>;
}

interface FieldProps { label: string; error?: string; hint?: ReactNode; className?: string }

export function TextField({ label, error, hint, className, ...input }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' field-invalid' : ''}${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...input} />
      {hint ? <p className="hint" id={`${id}-hint`}>{hint}</p> : null}
      {error ? <p className="field-error" id={`${id}-error`}>{error}</p> : null}
    </div>
  );
}

export function SelectField({ label, error, hint, className, children, ...select }: FieldProps & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className={`field${error ? ' field-invalid' : ''}${className ? ` ${className}` : ''}`}>
      <label htmlFor={id}>{label}</label>
      <select id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...select}>{children}</select>
      {hint ? <p className="hint" id={`${id}-hint`}>{hint}</p> : null}
      {error ? <p className="field-error" id={`${id}-error`}>{error}</p> : null}
    </div>
  );
}

export function CopyButton({ text, label, className }: { text: string; label?: string; className?: string }) {
  const t = useTranslations('common');
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const t = setTimeout(() => setState('idle'), 2000);
    return () => clearTimeout(t);
  }, [state]);
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
  }
  return (
    <button type="button" className={`button small secondary${className ? ` ${className}` : ''}`} onClick={copy}>
      <span aria-live="polite">{state === 'copied' ? t('copied') : state === 'failed' ? t('copyByHand') : (label ?? t('copy'))}</span>
    </button>
  );
}

/** A secret or id shown in full, selectable, with a copy button. */
export function CopyValue({ value, label, copyLabel }: { value: string; label: string; copyLabel?: string }) {
  const t = useTranslations('common');
  return (
    <div className="copy-value">
      <code aria-label={label}>{value}</code>
      <CopyButton text={value} label={copyLabel ?? t('copyNamed', { what: label.toLowerCase() })} />
    </div>
  );
}

/** A modal confirmation on the native <dialog>: focus moves into it and Escape cancels. */
export function ConfirmDialog({ open, title, children, confirmLabel, busy, onConfirm, onCancel }: {
  open: boolean; title: string; children?: ReactNode; confirmLabel: string; busy?: boolean; onConfirm: () => void; onCancel: () => void;
}) {
  const t = useTranslations('common');
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onCancel={(e) => { e.preventDefault(); onCancel(); }}>
      <h2 id={titleId}>{title}</h2>
      <div className="dialog-body">{children}</div>
      <div className="dialog-actions">
        <button type="button" className="button secondary" onClick={onCancel} autoFocus>{t('cancel')}</button>
        <button type="button" className="button danger" onClick={onConfirm} disabled={busy}>{busy ? t('working') : confirmLabel}</button>
      </div>
    </dialog>
  );
}

export function Pager({ hasPrev, hasNext, onPrev, onNext, busy }: { hasPrev: boolean; hasNext: boolean; onPrev: () => void; onNext: () => void; busy?: boolean }) {
  const t = useTranslations('common');
  if (!hasPrev && !hasNext) return null;
  return (
    <nav className="pager" aria-label={t('pagination')}>
      <button type="button" className="button secondary small" onClick={onPrev} disabled={!hasPrev || busy}>{t('newer')}</button>
      <button type="button" className="button secondary small" onClick={onNext} disabled={!hasNext || busy}>{t('older')}</button>
    </nav>
  );
}

export function DetailList({ rows }: { rows: [string, ReactNode][] }) {
  return (
    <dl className="details">
      {rows.map(([k, v]) => (
        <div key={k} className="details-row"><dt>{k}</dt><dd>{v ?? <span className="muted">—</span>}</dd></div>
      ))}
    </dl>
  );
}

export function BackLink({ href, children }: { href: string; children: ReactNode }) {
  return <Link className="back-link" href={href}>← {children}</Link>;
}
