import type { Metadata } from 'next';
import { Developers } from './developers';

export const metadata: Metadata = { title: 'Developers' };

export default function DevelopersPage() {
  return <Developers />;
}
