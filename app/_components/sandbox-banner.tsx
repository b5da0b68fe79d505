import { getTranslations } from 'next-intl/server';

/** On every page while SANDBOX is on, so nobody mistakes simulated money for real money. */
export async function SandboxBanner() {
  const t = await getTranslations('shell');
  return <div className="sandbox-banner" role="note" data-testid="sandbox-banner"><strong>SANDBOX</strong> {t('sandboxBanner')}</div>;
}
