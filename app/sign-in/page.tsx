import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { currentSession } from '../_lib/session-server';
import { SignInForm } from './sign-in-form';

export const metadata: Metadata = { title: 'Sign in' };
export const dynamic = 'force-dynamic';

export default async function SignInPage() {
  if (await currentSession()) redirect('/');
  return (
    <main className="centered-page">
      <div className="card narrow">
        <p className="brand"><span className="brand-mark" aria-hidden="true">◆</span> Pix Payments</p>
        <h1>Sign in</h1>
        <p className="muted">Use the email and password of your dashboard user.</p>
        <SignInForm />
      </div>
    </main>
  );
}
