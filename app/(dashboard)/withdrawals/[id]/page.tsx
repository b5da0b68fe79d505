import type { Metadata } from 'next';
import { WithdrawalDetail } from './withdrawal-detail';

export const metadata: Metadata = { title: 'Withdrawal' };

export default async function WithdrawalPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <WithdrawalDetail id={id} />;
}
