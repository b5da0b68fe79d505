import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { WithdrawalDetail } from './withdrawal-detail';

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations('withdrawals'))('title') };
}

export default async function WithdrawalPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <WithdrawalDetail id={id} />;
}
