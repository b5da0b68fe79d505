'use client';
import { useMutation } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import type { ReactNode } from 'react';
import { useTRPC } from '../_lib/trpc';

const NAV = [
  { href: '/', label: 'Overview' },
  { href: '/withdrawals', label: 'Withdrawals' },
  { href: '/transactions', label: 'Transactions' },
  { href: '/statement', label: 'Statement' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/developers', label: 'Developers' },
];

export function Shell({ email, children }: { email: string; children: ReactNode }) {
  const pathname = usePathname();
  const trpc = useTRPC();
  const signOut = useMutation(trpc.session.signOut.mutationOptions({
    onSettled: () => window.location.assign('/sign-in'),
  }));
  const active = (href: string) => (href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(`${href}/`));
  return (
    <div className="shell">
      <a className="skip-link" href="#main">Skip to content</a>
      <header className="topbar">
        <Link href="/" className="brand"><span className="brand-mark" aria-hidden="true">◆</span> Pix Payments</Link>
        <nav aria-label="Main" className="nav">
          {NAV.map((n) => (
            <Link key={n.href} href={n.href} className="nav-link" aria-current={active(n.href) ? 'page' : undefined}>{n.label}</Link>
          ))}
          <a href="/docs" className="nav-link">API reference</a>
        </nav>
        <div className="user">
          <span className="user-email" title={email}>{email}</span>
          <button type="button" className="button small secondary" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            {signOut.isPending ? 'Signing out…' : 'Sign out'}
          </button>
        </div>
      </header>
      <main id="main" className="content" tabIndex={-1}>{children}</main>
    </div>
  );
}
