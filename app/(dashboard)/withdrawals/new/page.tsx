import type { Metadata } from 'next';
import { WithdrawalForm } from './withdrawal-form';

export const metadata: Metadata = { title: 'New withdrawal' };

export default function NewWithdrawalPage() {
  return <WithdrawalForm />;
}
