import type { Metadata } from 'next';
import { TransactionList } from './transaction-list';

export const metadata: Metadata = { title: 'Transactions' };

export default function TransactionsPage() {
  return <TransactionList />;
}
