import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { PixKeys } from './pix-keys';

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations('pixKeys'))('title') };
}

export default function PixKeysPage() {
  return <PixKeys />;
}
