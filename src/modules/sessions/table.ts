import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { accounts } from '../auth/table';

/**
 * Dashboard sessions. The token itself is never stored: `token_hash` is sha256 of it, and the
 * unique index finds the row by that hash (an equality lookup on a digest of 32 random bytes
 * tells a timing observer nothing useful). No client address is kept, only a shortened user
 * agent so a person can tell their sessions apart.
 */
export const sessions = sqliteTable(
  'sessions',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    createdAt: integer('created_at').notNull(),
    /** Written at most once a minute per session; idle expiry counts from here. */
    lastSeenAt: integer('last_seen_at').notNull(),
    /** Absolute expiry: SLINK_SESSION_DAYS after sign-in, never extended. */
    expiresAt: integer('expires_at').notNull(),
    userAgent: text('user_agent'),
  },
  (t) => [uniqueIndex('sessions_token_hash_unique').on(t.tokenHash), index('sessions_account_idx').on(t.accountId)],
);

export type SessionRow = typeof sessions.$inferSelect;
