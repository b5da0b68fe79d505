import { redirect } from 'next/navigation';
import type { ReactNode } from 'react';
import { Shell } from '../_components/shell';
import { currentSession } from '../_lib/session-server';

// Always per request: the gate reads the session cookie.
export const dynamic = 'force-dynamic';

/** Every dashboard page: anonymous visitors (or an expired/revoked session) go to sign-in. */
export default async function DashboardLayout({ children }: { children: ReactNode }) {
  const session = await currentSession();
  if (!session) redirect('/sign-in');
  return <Shell email={session.email}>{children}</Shell>;
}
