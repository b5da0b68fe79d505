import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { DisputeList } from './dispute-list';

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations('disputes'))('title') };
}

export default function DisputesPage() {
  return <DisputeList />;
}
