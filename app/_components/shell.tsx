'use client';
import { useMutation } from '@tanstack/react-query';
import { useTranslations } from 'next-intl';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEffect, useState, type ReactNode } from 'react';
import { useTRPC } from '../_lib/trpc';

const NAV = [
  { href: '/', key: 'overview' },
  { href: '/transactions', key: 'transactions' },
  { href: '/pix-charges', key: 'pixCharges' },
  { href: '/withdrawals', key: 'withdrawals' },
  { href: '/statement', key: 'statement' },
  { href: '/disputes', key: 'disputes' },
  { href: '/webhooks', key: 'webhooks' },
  { href: '/developers', key: 'developers' },
  { href: '/status', key: 'status' },
  { href: '/settings', key: 'settings' },
] as const;

export function Shell({ email, children }: { email: string; children: ReactNode }) {
  const t = useTranslations('shell');
  const pathname = usePathname();
  const trpc = useTRPC();
  // on a phone the links fold into a menu; it closes again once a link is followed
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [pathname]);
  const signOut = useMutation(trpc.session.signOut.mutationOptions({
    onSettled: () => window.location.assign('/sign-in'),
  }));
  const active = (href: string) => (href === '/' ? pathname === '/' : pathname === href || pathname.startsWith(`${href}/`));
  return (
    <div className="shell">
      <a className="skip-link" href="#main">{t('skipToContent')}</a>
      <header className="topbar">
        <Link href="/" className="brand"><span className="brand-mark" aria-hidden="true">◆</span> {t('brand')}</Link>
        <button type="button" className="menu-button button small secondary" aria-expanded={menuOpen} aria-controls="main-nav"
          onClick={() => setMenuOpen((o) => !o)}>
          <span aria-hidden="true">{menuOpen ? '✕' : '☰'}</span> {menuOpen ? t('closeMenu') : t('menu')}
        </button>
        <nav id="main-nav" aria-label={t('mainNav')} className={`nav${menuOpen ? ' nav-open' : ''}`}>
          {NAV.map((n) => (
            <Link key={n.href} href={n.href} className="nav-link" aria-current={active(n.href) ? 'page' : undefined}>{t(`nav.${n.key}`)}</Link>
          ))}
          <a href="/docs" className="nav-link">{t('nav.apiReference')}</a>
          <button type="button" className="nav-link nav-signout" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            {signOut.isPending ? t('signingOut') : t('signOut')}
          </button>
        </nav>
        <div className="user">
          <span className="user-email" title={email}>{email}</span>
          <button type="button" className="button small secondary" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
            {signOut.isPending ? t('signingOut') : t('signOut')}
          </button>
        </div>
      </header>
      <main id="main" className="content" tabIndex={-1}>{children}</main>
    </div>
  );
}
