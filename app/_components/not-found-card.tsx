'use client';
import { useTranslations } from 'next-intl';
import Link from 'next/link';

/** What an unknown id, or another account's, looks like: the same "not found" either way. */
export function NotFoundCard({ title, back, backLabel }: { title: string; back: string; backLabel: string }) {
  const t = useTranslations('common');
  return (
    <section className="card narrow" role="alert" data-testid="not-found">
      <h1>{title}</h1>
      <p className="muted">{t('notFoundText')}</p>
      <Link className="button secondary" href={back}>{backLabel}</Link>
    </section>
  );
}
