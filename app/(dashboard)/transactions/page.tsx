import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { TransactionList } from './transaction-list';

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations('transactions'))('title') };
}

export default function TransactionsPage() {
  return <TransactionList />;
}
