'use client';
import { useTranslations } from 'next-intl';
import type { ChangeEvent } from 'react';
import { TextField } from './ui';

/**
 * A day written as a Brazilian writes it, dd/mm/aaaa, in a plain text box (a native date input lets
 * nobody type a malformed date, but it also shows nothing when one is half typed or impossible, and
 * it writes mm/dd in an English browser). The slashes come by themselves as the digits are typed.
 * The URL and the API keep the ISO day (2026-03-10); these helpers convert between the two.
 */
export function DateField({ label, name, value, onChange, error }: {
  label: string;
  name: string;
  /** What the person typed, dd/mm/aaaa or partial. */
  value: string;
  onChange: (typed: string) => void;
  error?: string;
}) {
  const tv = useTranslations('validation');
  const typed = (e: ChangeEvent<HTMLInputElement>) => {
    const raw = e.target.value;
    // digits typed in a row get their slashes (10032026 → 10/03/2026, also while typing or deleting);
    // anything else (1/3/2026, 2026-03-10) is left as typed, to be judged on submit
    const digits = raw.replace(/\D/g, '');
    onChange(/^(\d{2}\/){0,2}\d*$/.test(raw) && digits.length > 2
      ? [digits.slice(0, 2), digits.slice(2, 4), digits.slice(4, 8)].filter(Boolean).join('/')
      : raw);
  };
  return (
    <TextField className="date-field" label={label} name={name} value={value} onChange={typed} error={error}
      inputMode="numeric" autoComplete="off" maxLength={10} placeholder={tv('datePlaceholder')} />
  );
}

/** "2026-03-10" → "10/03/2026"; anything else is returned as it is (a malformed day from a link stays visible). */
export function isoToTyped(iso: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso);
  return m ? `${m[3]}/${m[2]}/${m[1]}` : iso;
}

/**
 * What the person typed → the ISO day: '' for an empty box, null for a malformed or impossible date
 * (31/02/2026, 10/3/26, 2026-03-10 are refused: the box says which form it wants).
 */
export function typedToIso(typed: string): string | null {
  const s = typed.trim();
  if (!s) return '';
  const m = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(s);
  if (!m) return null;
  const [, dd, mm, yyyy] = m;
  const d = new Date(Date.UTC(Number(yyyy), Number(mm) - 1, Number(dd)));
  if (d.getUTCFullYear() !== Number(yyyy) || d.getUTCMonth() !== Number(mm) - 1 || d.getUTCDate() !== Number(dd)) return null;
  if (Number(yyyy) < 2000 || Number(yyyy) > 2100) return null;
  return `${yyyy}-${mm}-${dd}`;
}

/**
 * Checks a typed range: the ISO days when both boxes are fine, otherwise the error of each box
 * (a malformed date next to its box; an end before the start next to the end).
 */
export function checkRange(from: string, to: string, words: { date: string; range: string }):
  { ok: true; from: string; to: string } | { ok: false; errors: { from?: string; to?: string } } {
  const a = typedToIso(from);
  const b = typedToIso(to);
  const errors: { from?: string; to?: string } = {};
  if (a === null) errors.from = words.date;
  if (b === null) errors.to = words.date;
  if (a && b && a > b) errors.to = words.range;
  return errors.from || errors.to ? { ok: false, errors } : { ok: true, from: a!, to: b! };
}
