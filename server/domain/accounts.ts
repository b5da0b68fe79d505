import type { Stores } from '../../db';
import type { AccountRow } from '../../db/stores/accounts';
import { DomainError } from '../errors';
import { addressKey } from '../rate-limit';
import type { Services } from '../services';
import { newId, randomId } from './ids';
import { openMerchantBooks, sandboxTopUp } from './ledger';
import { hashPassword, hashSecret, randomSecret, safeEqualHex } from './secrets';
import { encryptSecret, newWebhookSecret } from './webhooks/secrets';
import { createAccountPixKey } from './pix-api/keys';
import { createPixApiClient } from './pix-api/oauth';
import { dashboardEmail, newPassword } from './sign-in-rules';
import { checkReceiver, putReceiverInJob, type ReceiverInput } from './receiver';

/** `value` through `rule`, or a 400 naming `field` with the rule's first complaint. */
function checked<T>(field: string, rule: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { message: string }[] } } }, value: unknown): T {
  const r = rule.safeParse(value);
  if (!r.success) throw new DomainError('VALIDATION', `${field}: ${r.error.issues[0]?.message ?? 'is not valid'}`);
  return r.data;
}

export const ACCESS_TOKEN_TTL_SECONDS = 3600;

export interface AccountCredentials {
  account_id: string;
  code: string;
  token: string;
  api_key: string;
  /** The API Pix client (POST /oauth/token); its secret exists only in this answer. */
  pix_client_id: string;
  pix_client_secret: string;
  /** The account's receiving Pix key (its EVP). */
  pix_key: string;
}

export interface CreateAccountInput {
  name: string;
  balance?: number;
  email?: string;
  password?: string;
  /** The account as recebedor of its charges (a cobv needs it); registered later in the dashboard when absent. */
  receiver?: ReceiverInput;
}

/** What the account's entry points use: scripts and tests hand this much, procedures the whole Services. */
export type AccountDeps = Pick<Services, 'db' | 'masterKey' | 'clock'>;

/** Creates an account, its ledger books, an optional top-up and dashboard user; returns the secrets once. */
export async function createAccount(s: AccountDeps, input: CreateAccountInput): Promise<AccountCredentials> {
  const name = input.name.trim();
  if (!name || name.length > 140) throw new DomainError('VALIDATION', 'name: 1 to 140 characters');
  if (input.balance !== undefined && (!Number.isSafeInteger(input.balance) || input.balance < 0 || input.balance > 100_000_000_000)) {
    throw new DomainError('VALIDATION', 'balance: integer cents between 0 and 100000000000');
  }
  if ((input.email === undefined) !== (input.password === undefined)) throw new DomainError('VALIDATION', 'email and password go together');
  // the rules the sign-in form and the password change check (sign-in-rules.ts): a user made here can sign in
  const email = input.email === undefined ? undefined : checked('email', dashboardEmail, input.email);
  if (input.password !== undefined) checked('password', newPassword, input.password);
  // scrypt runs before the write job: the writer never waits on slow work
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  const receiver = input.receiver ? checkReceiver(input.receiver) : null;
  const creds = {
    account_id: newId('account'),
    code: `cli_${randomId(16)}`,
    token: randomSecret('sk_'),
    api_key: `pk_${randomId(24)}`,
  };
  const postbackSecretEnc = encryptSecret(newWebhookSecret(), s.masterKey);
  return s.db.write(async (tx) => {
    const at = s.clock.now();
    const iso = at.toISOString();
    await tx.accounts.insertAccount({
      id: creds.account_id, name, code: creds.code, tokenHash: hashSecret(creds.token), apiKey: creds.api_key,
      postbackSecretEnc, createdAt: iso, updatedAt: iso,
    });
    await openMerchantBooks(tx, creds.account_id, at);
    if (input.balance) await sandboxTopUp(tx, creds.account_id, input.balance, at);
    if (email && passwordHash) {
      if (await tx.sessions.emailTaken(email)) throw new DomainError('CONFLICT', 'email: a dashboard user with this email already exists');
      await tx.sessions.insertUser({ id: newId('dashboardUser'), accountId: creds.account_id, email, passwordHash, createdAt: iso });
    }
    if (receiver) await putReceiverInJob(tx, creds.account_id, receiver, at);
    const pixKey = await createAccountPixKey(tx, creds.account_id, at);
    const client = await createPixApiClient(tx, creds.account_id, at);
    const made: AccountCredentials = { ...creds, pix_client_id: client.clientId, pix_client_secret: client.clientSecret, pix_key: pixKey };
    return made;
  });
}

/** Exchanges the client pair for an opaque access token. Unknown code and wrong token look alike. */
export async function issueAccessToken(s: AccountDeps, code: string, token: string) {
  const account = await s.db.read.accounts.clientPairByCode(code);
  const presented = hashSecret(token);
  // compare against a dummy hash when the code is unknown, so both paths cost the same
  const ok = safeEqualHex(presented, account?.tokenHash ?? hashSecret('no-such-account')) && !!account;
  if (!ok || !account) return null;
  const accessToken = randomSecret('at_');
  const at = s.clock.now();
  await s.db.write(async (tx) => {
    await tx.accounts.insertAccessToken({
      id: newId('accessToken'), accountId: account.id, tokenHash: hashSecret(accessToken), createdAt: at.toISOString(),
      expiresAt: new Date(at.getTime() + ACCESS_TOKEN_TTL_SECONDS * 1000).toISOString(),
    });
  });
  return { access_token: accessToken, token_type: 'Bearer' as const, expires_in: ACCESS_TOKEN_TTL_SECONDS };
}

/**
 * POST /auth/token with the brakes on (docs/decisions.md "Sign-in and token limits"): attempts count against the
 * client address before the pair is checked, and only against it. A `code` is public and its token
 * unguessable, so failures never lock a code: nobody can keep a merchant's integration out by sending
 * wrong tokens for its code.
 */
export async function issueAccessTokenLimited(s: Services, code: string, token: string, clientAddress: string) {
  const address = addressKey(clientAddress);
  const byAddress = s.limits.tokenByAddress;
  const wait = await byAddress.attempt(address);
  if (wait !== null) throw new DomainError('RATE_LIMITED', `too many failed attempts; try again in ${wait} s`, { retryAfterSeconds: wait });
  const issued = await issueAccessToken(s, code, token);
  if (!issued) throw new DomainError('UNAUTHORIZED', 'invalid code or token');
  await byAddress.succeeded(address);
  return issued;
}

/** The account an unexpired, unrevoked access token belongs to, or null. */
export async function accountForAccessToken(s: Pick<Services, 'db'>, token: string, now: Date): Promise<string | null> {
  const reads = s.db.read;
  if (!token.startsWith('at_') || token.length > 200) return null;
  const hash = hashSecret(token);
  // the lookup is by hash, so timing reveals nothing about the token; the compare is belt and braces
  const row = await reads.accounts.liveAccessToken(hash, now.toISOString());
  if (!row || !safeEqualHex(hash, row.tokenHash)) return null;
  return row.accountId;
}

/** The webhook API's pair: a public api key and an access token, both of one account. */
export async function accountForApiKey(s: Pick<Services, 'db'>, apiKey: string, token: string, now: Date): Promise<string | null> {
  const reads = s.db.read;
  const byKey = await reads.accounts.byApiKey(apiKey);
  const byToken = await accountForAccessToken(s, token, now);
  if (!byKey || !byToken || !safeEqualHex(byKey.apiKey, apiKey) || byKey.id !== byToken) return null;
  return byKey.id;
}

export async function revokeAccessToken(s: AccountDeps, token: string): Promise<boolean> {
  const hash = hashSecret(token);
  return s.db.write(async (tx) => {
    return tx.accounts.revokeAccessToken(hash, s.clock.now().toISOString());
  });
}

/**
 * Issues a new client token; the old one stops working and every access token it issued is revoked.
 * `alongside` runs in the same write job (the dashboard ends other sessions and records the rotation
 * there), so the rotation and what goes with it commit together or not at all.
 */
export async function rotateClientToken(
  s: AccountDeps, accountId: string, alongside?: (tx: Stores, at: Date) => Promise<void>,
): Promise<{ code: string; token: string }> {
  const token = randomSecret('sk_');
  return s.db.write(async (tx) => {
    const now = s.clock.now();
    const at = now.toISOString();
    // the account's new token hash, and every access token the old one issued revoked
    const row = await tx.accounts.replaceClientToken(accountId, hashSecret(token), at);
    if (!row) throw new DomainError('NOT_FOUND', 'account not found');
    await alongside?.(tx, now);
    return { code: row.code, token };
  });
}

export async function getAccount(s: Pick<Services, 'db'>, accountId: string): Promise<AccountRow> {
  const reads = s.db.read;
  const row = await reads.accounts.accountById(accountId);
  if (!row) throw new DomainError('NOT_FOUND', 'account not found');
  return row;
}

export async function countAccounts(s: Pick<Services, 'db'>): Promise<number> {
  // (0 or 1: whether there is any)
  return (await s.db.read.accounts.anyAccount()) ? 1 : 0;
}
