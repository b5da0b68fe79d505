import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { TransactionDetail } from './transaction-detail';

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations('transactions'))('title') };
}

export default async function TransactionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <TransactionDetail id={id} />;
}
