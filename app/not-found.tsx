import { getTranslations } from 'next-intl/server';
import Link from 'next/link';

export default async function NotFound() {
  const t = await getTranslations('common');
  return (
    <main className="centered-page">
      <div className="card narrow">
        <h1>{t('pageNotFound')}</h1>
        <p className="muted">{t('pageNotFoundText')}</p>
        <Link className="button" href="/">{t('backToOverview')}</Link>
      </div>
    </main>
  );
}
