import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import Link from 'next/link';
import { ApiReference } from './api-reference';

export const metadata: Metadata = { title: 'API reference' };

/** Public: the REST API's reference, rendered in the browser from /openapi.json by a bundled Swagger UI. */
export default async function DocsPage() {
  const t = await getTranslations('shell');
  return (
    <>
      <header className="docs-bar">
        <Link href="/" className="brand"><span className="brand-mark" aria-hidden="true">◆</span> Pix Payments · {t('nav.apiReference')}</Link>
        <a className="button small secondary" href="/openapi.json">openapi.json</a>
      </header>
      <main className="docs-body">
        <ApiReference />
      </main>
    </>
  );
}
