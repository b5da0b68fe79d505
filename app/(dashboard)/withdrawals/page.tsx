import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { WithdrawalList } from './withdrawal-list';

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations('withdrawals'))('title') };
}

export default function WithdrawalsPage() {
  return <WithdrawalList />;
}
