import type { Metadata, Viewport } from 'next';
import { NextIntlClientProvider } from 'next-intl';
import { getLocale } from 'next-intl/server';
import type { ReactNode } from 'react';
import { loadConfig } from '@/server/config';
import { SandboxBanner } from './_components/sandbox-banner';
import { Providers } from './providers';
import './globals.css';

export const metadata: Metadata = { title: { default: 'Pix Payments', template: '%s · Pix Payments' } };
export const viewport: Viewport = { width: 'device-width', initialScale: 1 };

export default async function RootLayout({ children }: { children: ReactNode }) {
  const locale = await getLocale();
  return (
    <html lang={locale}>
      <body>
        {/* the catalogs of the request's language reach the client components through this provider */}
        <NextIntlClientProvider>
          {loadConfig().sandbox ? <SandboxBanner /> : null}
          <Providers>{children}</Providers>
        </NextIntlClientProvider>
      </body>
    </html>
  );
}
