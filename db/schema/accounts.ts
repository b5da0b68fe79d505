import { sql } from 'drizzle-orm';
import { check, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

/** A merchant account: owns a balance, withdrawals, transactions and webhooks. */
export const accounts = sqliteTable('accounts', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  /** Public half of the client pair used by POST /auth/token. */
  code: text('code').notNull(),
  /** SHA-256 of the client secret (random, ≥128 bits, so a fast hash is enough). */
  tokenHash: text('token_hash').notNull(),
  /** Public project key for the webhook API. */
  apiKey: text('api_key').notNull(),
  /** Signs postbacks; AES-GCM encrypted at rest because it must stay readable to sign. */
  postbackSecretEnc: text('postback_secret_enc').notNull(),
  createdAt: text('created_at').notNull(),
  updatedAt: text('updated_at').notNull(),
}, (t) => [
  uniqueIndex('accounts_code_uq').on(t.code),
  uniqueIndex('accounts_api_key_uq').on(t.apiKey),
]);

/** Opaque bearer tokens, stored as SHA-256 hashes. */
export const accessTokens = sqliteTable('access_tokens', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  tokenHash: text('token_hash').notNull(),
  createdAt: text('created_at').notNull(),
  expiresAt: text('expires_at').notNull(),
  revokedAt: text('revoked_at'),
}, (t) => [
  uniqueIndex('access_tokens_hash_uq').on(t.tokenHash),
  index('access_tokens_account_idx').on(t.accountId),
]);

/** The dashboard's languages: Brazilian Portuguese first, English as a choice. */
export const DASHBOARD_LOCALES = ['pt-BR', 'en'] as const;
export type DashboardLocale = (typeof DASHBOARD_LOCALES)[number];
export const DEFAULT_LOCALE: DashboardLocale = 'pt-BR';

/** People who sign in to the dashboard; each belongs to one account. */
export const dashboardUsers = sqliteTable('dashboard_users', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  email: text('email').notNull(),
  /** scrypt$N$r$p$salt$hash */
  passwordHash: text('password_hash').notNull(),
  /** The dashboard's language for this person (a setting they choose); Brazilian Portuguese unless they pick another. */
  locale: text('locale', { enum: DASHBOARD_LOCALES }).notNull().default(DEFAULT_LOCALE),
  createdAt: text('created_at').notNull(),
}, (t) => [
  uniqueIndex('dashboard_users_email_uq').on(t.email),
  check('dashboard_users_locale_ck', sql`${t.locale} IN ('pt-BR', 'en')`),
]);

/** Dashboard sessions; the cookie carries a random id, the table only its hash. */
export const dashboardSessions = sqliteTable('dashboard_sessions', {
  id: text('id').primaryKey(),
  userId: text('user_id').notNull().references(() => dashboardUsers.id),
  accountId: text('account_id').notNull().references(() => accounts.id),
  tokenHash: text('token_hash').notNull(),
  csrfToken: text('csrf_token').notNull(),
  createdAt: text('created_at').notNull(),
  expiresAt: text('expires_at').notNull(),
  revokedAt: text('revoked_at'),
  /** Where the session was opened (docs/decisions.md "Client addresses"), for the person's session list; null before 0.2. */
  clientAddress: text('client_address'),
  /** The browser's User-Agent at sign-in, cut to 300 characters; null before 0.2 or when none was sent. */
  userAgent: text('user_agent'),
  /** Last request seen with this session, refreshed at most every few minutes (not one write per request). */
  lastSeenAt: text('last_seen_at'),
}, (t) => [
  uniqueIndex('dashboard_sessions_hash_uq').on(t.tokenHash),
  // "end every other session" and the session list look a person's (or an account's) sessions up
  index('dashboard_sessions_user_idx').on(t.userId),
  index('dashboard_sessions_account_idx').on(t.accountId),
]);

/** What the audit trail records: who got at a secret or a credential, and who signed in or out. */
export const AUDIT_ACTIONS = [
  'session.sign_in', 'session.sign_out_everywhere', 'password.change',
  'client_token.rotate', 'postback_secret.reveal', 'webhook_secret.reveal', 'webhook_secret.rotate',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/**
 * The account's audit trail: who (the person and the email they had then), what, when, from which
 * client address. Append-only; a row is written in the same write job as the change it records, or
 * before a secret is disclosed.
 */
export const auditTrail = sqliteTable('audit_trail', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  userId: text('user_id').references(() => dashboardUsers.id),
  actorEmail: text('actor_email').notNull(),
  action: text('action', { enum: AUDIT_ACTIONS }).notNull(),
  /** What it was done to, when not the account itself (a webhook's id). */
  subject: text('subject'),
  clientAddress: text('client_address').notNull(),
  userAgent: text('user_agent'),
  createdAt: text('created_at').notNull(),
}, (t) => [
  index('audit_trail_account_idx').on(t.accountId, t.createdAt, t.id),
  check('audit_trail_action_ck', sql`${t.action} IN (${sql.raw(AUDIT_ACTIONS.map((a) => `'${a}'`).join(', '))})`),
]);

