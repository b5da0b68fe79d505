import type { Metadata } from 'next';
import { WithdrawalList } from './withdrawal-list';

export const metadata: Metadata = { title: 'Withdrawals' };

export default function WithdrawalsPage() {
  return <WithdrawalList />;
}
