import { index, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { timestamp } from './columns';

// Mirrors db/schema/search.ts: the words of names for the dashboard's word search, filled by triggers
// (db/pg/sql/triggers.sql).
export const nameWords = pgTable('name_words', {
  accountId: text('account_id').notNull(),
  subject: text('subject', { enum: ['transaction', 'withdrawal'] }).notNull(),
  stem: text('stem').notNull(),
  createdAt: timestamp('created_at').notNull(),
  ownerId: text('owner_id').notNull(),
  words: text('words').notNull(),
}, (t) => [
  // an owner has one row per stem (owner ids carry their kind's prefix, so they never collide)
  primaryKey({ columns: [t.ownerId, t.stem] }),
  index('name_words_search_idx').on(t.accountId, t.subject, t.stem, t.createdAt, t.ownerId, t.words),
]);
