import type { Metadata } from 'next';
import { getTranslations } from 'next-intl/server';
import { redirect } from 'next/navigation';
import { currentSession } from '../_lib/session-server';
import { SignInForm } from './sign-in-form';

export const dynamic = 'force-dynamic';

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations('signIn'))('title') };
}

export default async function SignInPage() {
  if (await currentSession()) redirect('/');
  const t = await getTranslations('signIn');
  return (
    <main className="centered-page">
      <div className="card narrow">
        <p className="brand"><span className="brand-mark" aria-hidden="true">◆</span> Pix Payments</p>
        <h1>{t('title')}</h1>
        <p className="muted">{t('intro')}</p>
        <SignInForm />
      </div>
    </main>
  );
}
