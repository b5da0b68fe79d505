import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { CobvForm } from './cobv-form';

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations('pixCharges'))('form.title') };
}

export default function NewCobvPage() {
  return <CobvForm />;
}
