import { bigint, index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { cents, timestamp } from './columns';
import { STORED_EVENT_CATEGORIES } from '../../../contract/enums';

// Mirrors db/schema/platform.ts.

export const events = pgTable('events', {
  seq: bigint('seq', cents).primaryKey().generatedByDefaultAsIdentity(),
  id: text('id').notNull().unique(),
  accountId: text('account_id').notNull().references(() => accounts.id),
  type: text('type').notNull(),
  category: text('category', { enum: STORED_EVENT_CATEGORIES }).notNull(),
  resourceId: text('resource_id').notNull(),
  payload: text('payload').notNull(),
  createdAt: timestamp('created_at').notNull(),
  dispatchedAt: timestamp('dispatched_at'),
  requestId: text('request_id'),
}, (t) => [
  index('events_account_idx').on(t.accountId, t.seq),
  index('events_undispatched_idx').on(t.dispatchedAt, t.seq),
]);

export const idempotencyKeys = pgTable('idempotency_keys', {
  accountId: text('account_id').notNull().references(() => accounts.id),
  operation: text('operation').notNull(),
  key: text('key').notNull(),
  fingerprint: text('fingerprint').notNull(),
  result: text('result').notNull(),
  createdAt: timestamp('created_at').notNull(),
  expiresAt: timestamp('expires_at').notNull(),
}, (t) => [
  primaryKey({ columns: [t.accountId, t.operation, t.key] }),
  index('idempotency_keys_expires_idx').on(t.expiresAt),
]);
