import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { TransactionForm } from './transaction-form';

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations('transactions'))('form.title') };
}

export default function NewTransactionPage() {
  return <TransactionForm />;
}
