'use client';
import { useTranslations } from 'next-intl';
import { useState, type ReactNode } from 'react';
import type { FieldErrors } from '../_lib/api-errors';
import { checkRange, DateField, isoToTyped } from './date-field';
import { SelectField, TextField } from './ui';

export interface SearchValues { q: string; status: string; method?: string; from: string; to: string }

/**
 * The filters above a list: one search box (id, batch, end-to-end id, reference, name, e-mail,
 * CPF/CNPJ or amount), status, method and a date range in Brasília days, typed dd/mm/aaaa. Applied on
 * submit, so each search is one entry in the browser's history. A malformed date or a reversed range
 * is said next to its box and nothing is sent; `errors` are the API's refusals, shown by field.
 */
export function SearchBar({ values, onApply, statuses, methods, errors, exportHref }: {
  values: SearchValues;
  onApply: (v: SearchValues) => void;
  statuses: { value: string; label: string }[];
  methods?: { value: string; label: string }[];
  errors: FieldErrors;
  exportHref: string;
}) {
  const t = useTranslations('search');
  const tv = useTranslations('validation');
  const [v, setV] = useState({ ...values, from: isoToTyped(values.from), to: isoToTyped(values.to) });
  const [dateErrors, setDateErrors] = useState<{ from?: string; to?: string }>({});
  const set = (k: keyof SearchValues) => (e: { target: { value: string } }) => setV((old) => ({ ...old, [k]: e.target.value }));
  const clear = () => { const empty = { q: '', status: '', method: methods ? '' : undefined, from: '', to: '' }; setV(empty); setDateErrors({}); onApply(empty); };
  const apply = () => {
    const range = checkRange(v.from, v.to, { date: tv('dateTyped'), range: tv('dateRange') });
    setDateErrors(range.ok ? {} : range.errors);
    if (range.ok) onApply({ ...v, q: v.q.trim(), from: range.from, to: range.to });
  };
  const filtered = Object.values(values).some(Boolean);
  return (
    <form className={`search-bar${methods ? '' : ' no-method'}`} role="search" aria-label={t('label')} noValidate onSubmit={(e) => { e.preventDefault(); apply(); }}>
      <TextField className="search-q" label={t('q')} name="q" type="search" value={v.q} onChange={set('q')} error={errors.q} placeholder={t('qPlaceholder')} hint={t('qHint')} />
      <SelectField className="search-status" label={t('status')} name="status" value={v.status} onChange={set('status')} error={errors.status}>
        <option value="">{t('allStatuses')}</option>
        {statuses.map((s) => <option key={s.value} value={s.value}>{s.label}</option>)}
      </SelectField>
      {methods ? (
        <SelectField label={t('method')} name="method" value={v.method ?? ''} onChange={set('method')} error={errors.method}>
          <option value="">{t('allMethods')}</option>
          {methods.map((m) => <option key={m.value} value={m.value}>{m.label}</option>)}
        </SelectField>
      ) : null}
      <DateField label={t('from')} name="from" value={v.from} onChange={(from) => setV((old) => ({ ...old, from }))} error={dateErrors.from ?? errors.from} />
      <DateField label={t('to')} name="to" value={v.to} onChange={(to) => setV((old) => ({ ...old, to }))} error={dateErrors.to ?? errors.to} />
      <div className="search-actions">
        <button type="submit" className="button primary">{t('apply')}</button>
        {filtered ? <button type="button" className="button secondary" onClick={clear}>{t('clear')}</button> : null}
        <a className="button secondary" href={exportHref} download>{t('export')}</a>
      </div>
    </form>
  );
}

export function ResultNote({ children }: { children: ReactNode }) {
  return <p className="muted small result-note" role="status">{children}</p>;
}
