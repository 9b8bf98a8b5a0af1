import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { ROLES } from '../auth/table';

/**
 * Invites: a one-time address where an invited person chooses a password and gets an account of
 * the given role and projects. The secret is in the address only: `token_hash` is its SHA-256.
 * Pending while `used_at` and `revoked_at` are null and `expires_at` is ahead.
 */
export const invites = sqliteTable(
  'invites',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    role: text('role', { enum: ROLES }).notNull(),
    /** The project ids the account will be limited to (a JSON array), or null for every link. */
    projects: text('projects', { mode: 'json' }).$type<string[]>(),
    tokenHash: text('token_hash').notNull(),
    /** The admin who invited; null for the operator's CLI. */
    createdBy: text('created_by'),
    createdAt: integer('created_at').notNull(),
    expiresAt: integer('expires_at').notNull(),
    usedAt: integer('used_at'),
    revokedAt: integer('revoked_at'),
  },
  (t) => [
    uniqueIndex('invites_token_hash_unique').on(t.tokenHash),
    index('invites_email_idx').on(sql`lower(${t.email})`),
  ],
);

export type InviteRow = typeof invites.$inferSelect;
