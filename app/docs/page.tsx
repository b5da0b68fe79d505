import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import Link from 'next/link';
import { ApiReference } from './api-reference';

export const metadata: Metadata = { title: 'API reference' };

/** The two documents the service publishes: the payments API, and the Banco Central's API Pix at /v2. */
const DOCUMENTS = {
  payments: '/openapi.json',
  pix: '/v2/openapi.json',
} as const;

/** Public: the REST APIs' reference, rendered in the browser from their OpenAPI documents by a bundled Swagger UI. */
export default async function DocsPage({ searchParams }: { searchParams: Promise<{ api?: string | string[] }> }) {
  const t = await getTranslations('shell');
  const api = (await searchParams).api === 'pix' ? 'pix' : 'payments';
  const url = DOCUMENTS[api];
  return (
    <>
      <header className="docs-bar">
        <Link href="/" className="brand"><span className="brand-mark" aria-hidden="true">◆</span> Pix Payments · {t('nav.apiReference')}</Link>
        <nav aria-label={t('docsApis')} className="docs-apis">
          <Link href="/docs" className="button small secondary" aria-current={api === 'payments' ? 'page' : undefined}>{t('docsPayments')}</Link>
          <Link href="/docs?api=pix" className="button small secondary" aria-current={api === 'pix' ? 'page' : undefined}>{t('docsPixApi')}</Link>
          <a className="button small secondary" href={url}>{url.slice(1)}</a>
        </nav>
      </header>
      <main className="docs-body">
        {/* keyed by document: switching remounts Swagger UI on the other one */}
        <ApiReference key={url} url={url} />
      </main>
    </>
  );
}
