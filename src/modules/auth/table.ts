import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';

import { ROLES, SCOPES } from '../access/public';

export { ROLES, type Role, SCOPES, type Scope } from '../access/public';

/** People who can sign in to the dashboard and own API keys. */
export const accounts = sqliteTable(
  'accounts',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    /** The one source of truth for an account's powers: "superuser" is role = admin. */
    role: text('role', { enum: ROLES }).notNull().default('editor'),
    createdAt: integer('created_at').notNull(),
    lastSignInAt: integer('last_sign_in_at'),
    /** Set while the account is disabled: no sign-in, and its API keys fail as revoked ones do. */
    disabledAt: integer('disabled_at'),
    /** The project ids it is limited to (a JSON array), or null for every link (see access/). */
    projects: text('projects', { mode: 'json' }).$type<string[]>(),
  },
  (t) => [uniqueIndex('accounts_email_unique').on(sql`lower(${t.email})`)],
);

/**
 * API keys. The secret is never stored: `hash` is sha256 of the whole key, `prefix` is the
 * public head of the key used to find the row before the constant-time hash comparison.
 */
export const apiKeys = sqliteTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name'),
    prefix: text('prefix').notNull(),
    hash: text('hash').notNull(),
    scope: text('scope', { enum: SCOPES }).notNull(),
    expiresAt: integer('expires_at'),
    revokedAt: integer('revoked_at'),
    lastUsedAt: integer('last_used_at'),
    createdAt: integer('created_at').notNull(),
    /** Limits within its account's: project ids and domain ids (JSON arrays), null for no limit of its own. */
    projects: text('projects', { mode: 'json' }).$type<string[]>(),
    domains: text('domains', { mode: 'json' }).$type<number[]>(),
  },
  (t) => [uniqueIndex('api_keys_prefix_unique').on(t.prefix), index('api_keys_account_idx').on(t.accountId)],
);

export type AccountRow = typeof accounts.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
