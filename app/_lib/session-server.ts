import { cookies } from 'next/headers';
import { SESSION_COOKIE } from '@/server/domain/sessions';
import { pagesCaller } from '@/server/pages-caller';

/**
 * The pages' server-side gate: the same `session.me` procedure the dashboard calls over tRPC, reached
 * in process with this request's session cookie. Pages never open the database themselves.
 */
export async function currentSession(): Promise<{ email: string; accountId: string } | null> {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!token) return null;
  try {
    const me = await pagesCaller({ cookie: `${SESSION_COOKIE}=${encodeURIComponent(token)}` }).session.me();
    return { email: me.email, accountId: me.account_id };
  } catch (err) {
    if ((err as { code?: string }).code === 'UNAUTHORIZED') return null;
    throw err;
  }
}
