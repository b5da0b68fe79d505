import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { AUDIT_ACTIONS, DASHBOARD_LOCALES, DEFAULT_LOCALE } from '../../schema/accounts';
import { timestamp } from './columns';

// Mirrors db/schema/accounts.ts (test/unit/pg-schema-parity.test.ts keeps the two equal).

export const accounts = pgTable('accounts', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  code: text('code').notNull(),
  tokenHash: text('token_hash').notNull(),
  apiKey: text('api_key').notNull(),
  postbackSecretEnc: text('postback_secret_enc').notNull(),
  createdAt: timestamp('created_at').notNull(),
  updatedAt: timestamp('updated_at').notNull(),
}, (t) => [
  uniqueIndex('accounts_code_uq').on(t.code),
  uniqueIndex('accounts_api_key_uq').on(t.apiKey),
]);

export const accessTokens = pgTable('access_tokens', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  tokenHash: text('token_hash').notNull(),
  createdAt: timestamp('created_at').notNull(),
  expiresAt: timestamp('expires_at').notNull(),
  revokedAt: timestamp('revoked_at'),
}, (t) => [
  uniqueIndex('access_tokens_hash_uq').on(t.tokenHash),
  index('access_tokens_account_idx').on(t.accountId),
]);

export const dashboardUsers = pgTable('dashboard_users', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  email: text('email').notNull(),
  passwordHash: text('password_hash').notNull(),
  locale: text('locale', { enum: DASHBOARD_LOCALES }).notNull().default(DEFAULT_LOCALE),
  createdAt: timestamp('created_at').notNull(),
}, (t) => [
  uniqueIndex('dashboard_users_email_uq').on(t.email),
  check('dashboard_users_locale_ck', sql`${t.locale} IN ('pt-BR', 'en')`),
]);

export const dashboardSessions = pgTable('dashboard_sessions', {
  id: text('id').primaryKey(),
  userId: text('user_id').notNull().references(() => dashboardUsers.id),
  accountId: text('account_id').notNull().references(() => accounts.id),
  tokenHash: text('token_hash').notNull(),
  csrfToken: text('csrf_token').notNull(),
  createdAt: timestamp('created_at').notNull(),
  expiresAt: timestamp('expires_at').notNull(),
  revokedAt: timestamp('revoked_at'),
  clientAddress: text('client_address'),
  userAgent: text('user_agent'),
  lastSeenAt: timestamp('last_seen_at'),
}, (t) => [
  uniqueIndex('dashboard_sessions_hash_uq').on(t.tokenHash),
  index('dashboard_sessions_user_idx').on(t.userId),
  index('dashboard_sessions_account_idx').on(t.accountId),
]);

export const auditTrail = pgTable('audit_trail', {
  id: text('id').primaryKey(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  userId: text('user_id').references(() => dashboardUsers.id),
  actorEmail: text('actor_email').notNull(),
  action: text('action', { enum: AUDIT_ACTIONS }).notNull(),
  subject: text('subject'),
  clientAddress: text('client_address').notNull(),
  userAgent: text('user_agent'),
  createdAt: timestamp('created_at').notNull(),
}, (t) => [
  index('audit_trail_account_idx').on(t.accountId, t.createdAt, t.id),
  check('audit_trail_action_ck', sql`${t.action} IN (${sql.raw(AUDIT_ACTIONS.map((a) => `'${a}'`).join(', '))})`),
]);
