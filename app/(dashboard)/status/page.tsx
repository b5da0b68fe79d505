import type { Metadata } from 'next';
import { Status } from './status';

export const metadata: Metadata = { title: 'Status' };

export default function StatusPage() {
  return <Status />;
}
