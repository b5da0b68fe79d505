import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { Developers } from './developers';

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations('developers'))('title') };
}

export default function DevelopersPage() {
  return <Developers />;
}
