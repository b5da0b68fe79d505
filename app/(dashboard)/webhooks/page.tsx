import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { Webhooks } from './webhooks';

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations('webhooks'))('title') };
}

export default function WebhooksPage() {
  return <Webhooks />;
}
