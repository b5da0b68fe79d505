import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { ChargeList } from './charge-list';

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations('pixCharges'))('title') };
}

export default async function PixChargesPage({ searchParams }: { searchParams: Promise<{ kind?: string; page?: string }> }) {
  const q = await searchParams;
  const page = Number.parseInt(q.page ?? '0', 10);
  return <ChargeList kind={q.kind === 'cob' ? 'cob' : 'cobv'} page={Number.isSafeInteger(page) && page >= 0 ? page : 0} />;
}
