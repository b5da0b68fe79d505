import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { WithdrawalForm } from './withdrawal-form';

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations('withdrawals'))('form.title') };
}

export default function NewWithdrawalPage() {
  return <WithdrawalForm />;
}
