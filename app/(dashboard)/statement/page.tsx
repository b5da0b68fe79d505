import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { StatementView } from './statement-view';

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations('statement'))('title') };
}

export default function StatementPage() {
  return <StatementView />;
}
