import type { Metadata } from 'next';
import { getLocale, getTranslations } from 'next-intl/server';
import { Settings } from './settings';

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations('settings'))('title') };
}

export default async function SettingsPage() {
  return <Settings locale={await getLocale()} />;
}
