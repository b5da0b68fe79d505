import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { getTranslations } from 'next-intl/server';
import { ChargeDetail } from './charge-detail';

export async function generateMetadata({ params }: { params: Promise<{ kind: string }> }): Promise<Metadata> {
  const { kind } = await params;
  return { title: (await getTranslations('pixCharges'))(kind === 'cob' ? 'detail.titleCob' : 'detail.titleCobv') };
}

export default async function PixChargePage({ params }: { params: Promise<{ kind: string; txid: string }> }) {
  const { kind, txid } = await params;
  if (kind !== 'cob' && kind !== 'cobv') notFound();
  return <ChargeDetail kind={kind} txid={decodeURIComponent(txid)} />;
}
