import { cookies } from 'next/headers';
import { getRequestConfig } from 'next-intl/server';
import { DASHBOARD_LOCALES, DEFAULT_LOCALE, type DashboardLocale } from '@/db/schema/accounts';
import { LOCALE_COOKIE } from '@/contract/session';
import { CATALOGS } from '@/messages';
import { currentSession } from '@/app/_lib/session-server';

const isLocale = (v: string | undefined): v is DashboardLocale => (DASHBOARD_LOCALES as readonly string[]).includes(v ?? '');

/**
 * The language of a page: the signed-in person's setting; before sign-in, the last one used on this
 * browser (a cookie set at sign-in and when the setting changes); otherwise Brazilian Portuguese.
 * No locale in the URL: a shared link opens in the reader's own language.
 */
export default getRequestConfig(async () => {
  const session = await currentSession();
  const remembered = (await cookies()).get(LOCALE_COOKIE)?.value;
  const locale: DashboardLocale = session?.locale ?? (isLocale(remembered) ? remembered : DEFAULT_LOCALE);
  return { locale, messages: CATALOGS[locale], timeZone: 'America/Sao_Paulo' };
});
