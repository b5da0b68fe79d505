import { sql } from 'drizzle-orm';
import type { Columns, Dialect, Kit } from './kit';
import { AUDIT_ACTIONS, DASHBOARD_LOCALES, DEFAULT_LOCALE } from '../../contract/enums';

// the dashboard's languages are the contract's (the settings page offers the same list)
export { DASHBOARD_LOCALES, DEFAULT_LOCALE, type DashboardLocale } from '../../contract/enums';
// what the audit trail records is the contract's (the dashboard's audit page filters by it)
export { AUDIT_ACTIONS, type AuditAction } from '../../contract/enums';

/** The accounts, their credentials, the dashboard's people and sessions, and the audit trail. */
export function accountTables<D extends Dialect, C extends Columns>(k: Kit<D, C>) {
  /** A merchant account: owns a balance, withdrawals, transactions and webhooks. */
  const accounts = k.table('accounts', {
    id: k.text('id').primaryKey(),
    name: k.text('name'),
    /** Public half of the client pair used by POST /auth/token. */
    code: k.text('code'),
    /** SHA-256 of the client secret (random, ≥128 bits, so a fast hash is enough). */
    tokenHash: k.text('token_hash'),
    /** Public project key for the webhook API. */
    apiKey: k.text('api_key'),
    /** Signs postbacks; AES-GCM encrypted at rest because it must stay readable to sign. */
    postbackSecretEnc: k.text('postback_secret_enc'),
    createdAt: k.instant('created_at'),
    updatedAt: k.instant('updated_at'),
  }, (t) => [
    k.uniqueIndex('accounts_code_uq').on(t.code),
    k.uniqueIndex('accounts_api_key_uq').on(t.apiKey),
  ]);

  /** Opaque bearer tokens, stored as SHA-256 hashes. */
  const accessTokens = k.table('access_tokens', {
    id: k.text('id').primaryKey(),
    accountId: k.text('account_id').references(() => accounts.id),
    tokenHash: k.text('token_hash'),
    createdAt: k.instant('created_at'),
    expiresAt: k.instant('expires_at'),
    revokedAt: k.instantOrNull('revoked_at'),
  }, (t) => [
    k.uniqueIndex('access_tokens_hash_uq').on(t.tokenHash),
    k.index('access_tokens_account_idx').on(t.accountId),
  ]);

  /** People who sign in to the dashboard; each belongs to one account. */
  const dashboardUsers = k.table('dashboard_users', {
    id: k.text('id').primaryKey(),
    accountId: k.text('account_id').references(() => accounts.id),
    email: k.text('email'),
    /** scrypt$N$r$p$salt$hash */
    passwordHash: k.text('password_hash'),
    /** The dashboard's language for this person (a setting they choose); Brazilian Portuguese unless they pick another. */
    locale: k.enumTextDefault('locale', DASHBOARD_LOCALES, DEFAULT_LOCALE),
    createdAt: k.instant('created_at'),
  }, (t) => [
    k.uniqueIndex('dashboard_users_email_uq').on(t.email),
    k.check('dashboard_users_locale_ck', sql`${t.locale} IN ('pt-BR', 'en')`),
  ]);

  /** Dashboard sessions; the cookie carries a random id, the table only its hash. */
  const dashboardSessions = k.table('dashboard_sessions', {
    id: k.text('id').primaryKey(),
    userId: k.text('user_id').references(() => dashboardUsers.id),
    accountId: k.text('account_id').references(() => accounts.id),
    tokenHash: k.text('token_hash'),
    csrfToken: k.text('csrf_token'),
    createdAt: k.instant('created_at'),
    expiresAt: k.instant('expires_at'),
    revokedAt: k.instantOrNull('revoked_at'),
    /** Where the session was opened (docs/decisions.md "Client addresses"), for the person's session list; null before 0.2. */
    clientAddress: k.textOrNull('client_address'),
    /** The browser's User-Agent at sign-in, cut to 300 characters; null before 0.2 or when none was sent. */
    userAgent: k.textOrNull('user_agent'),
    /** Last request seen with this session, refreshed at most every few minutes (not one write per request). */
    lastSeenAt: k.instantOrNull('last_seen_at'),
  }, (t) => [
    k.uniqueIndex('dashboard_sessions_hash_uq').on(t.tokenHash),
    // "end every other session" and the session list look a person's (or an account's) sessions up
    k.index('dashboard_sessions_user_idx').on(t.userId),
    k.index('dashboard_sessions_account_idx').on(t.accountId),
  ]);

  /**
   * The account's audit trail: who (the person and the email they had then), what, when, from which
   * client address. Append-only; a row is written in the same write job as the change it records, or
   * before a secret is disclosed.
   */
  const auditTrail = k.table('audit_trail', {
    id: k.text('id').primaryKey(),
    accountId: k.text('account_id').references(() => accounts.id),
    userId: k.textOrNull('user_id').references(() => dashboardUsers.id),
    actorEmail: k.text('actor_email'),
    action: k.enumText('action', AUDIT_ACTIONS),
    /** What it was done to, when not the account itself (a webhook's id). */
    subject: k.textOrNull('subject'),
    clientAddress: k.text('client_address'),
    userAgent: k.textOrNull('user_agent'),
    createdAt: k.instant('created_at'),
  }, (t) => [
    k.index('audit_trail_account_idx').on(t.accountId, t.createdAt, t.id),
    k.check('audit_trail_action_ck', sql`${t.action} IN (${sql.raw(AUDIT_ACTIONS.map((a) => `'${a}'`).join(', '))})`),
  ]);

  /**
   * The account as the recebedor of its charges (a cobv's `recebedor` and payload: the yaml requires its
   * CPF or CNPJ and its address). A table of its own, one row per account, rather than columns on
   * accounts: accounts made before 0.3 have none and may never need one (no cobv), so the six fields are
   * there together or not at all, without a nullable column each and a check tying them.
   */
  const accountReceivers = k.table('account_receivers', {
    accountId: k.text('account_id').primaryKey().references(() => accounts.id),
    /** CPF (11 digits) or CNPJ (14: 12 letters or digits and 2 check digits), normalised, check digits verified. */
    document: k.text('document'),
    /** The legal name (razão social, or the person's name). */
    name: k.text('name'),
    /** nomeFantasia of a CNPJ; null when none. */
    tradeName: k.textOrNull('trade_name'),
    street: k.text('street'),
    city: k.text('city'),
    /** One of the 27 units of the federation, upper case. */
    uf: k.text('uf'),
    /** 8 digits. */
    cep: k.text('cep'),
    updatedAt: k.instant('updated_at'),
  }, (t) => [
    k.check('account_receivers_document_ck', sql`length(${t.document}) IN (11, 14)`),
    k.check('account_receivers_uf_ck', sql`length(${t.uf}) = 2`),
    k.check('account_receivers_cep_ck', sql`length(${t.cep}) = 8`),
  ]);

  return { accounts, accessTokens, dashboardUsers, dashboardSessions, auditTrail, accountReceivers };
}
