import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * The audit log: who changed what, through what, when. One row per change, written in the
 * change's own transaction; never a secret, a password or its hash (only the names of the
 * fields changed). Kept 365 days (pruned in small steps).
 */
export const auditLog = sqliteTable(
  'audit_log',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    at: integer('at').notNull(),
    /** Null for the operator's CLI, which acts for nobody in particular. */
    accountId: text('account_id'),
    /** Null for a dashboard session and the CLI. */
    keyId: text('key_id'),
    via: text('via', { enum: ['api', 'dashboard', 'cli', 'mcp'] }).notNull(),
    /** `<target type>.<verb>`, e.g. link.update, key.create, account.update, domain.delete. */
    action: text('action').notNull(),
    targetType: text('target_type').notNull(),
    targetId: text('target_id').notNull(),
    /** The names of the fields changed (a JSON array). */
    fields: text('fields', { mode: 'json' }).$type<string[]>().notNull(),
  },
  (t) => [
    index('audit_log_at_idx').on(t.at),
    index('audit_log_target_idx').on(t.targetType, t.targetId, t.id),
    index('audit_log_actor_idx').on(t.accountId, t.id),
    // A page filtered by action, or by kind of target alone, walks these in id order (newest first).
    index('audit_log_action_idx').on(t.action, t.id),
    index('audit_log_type_idx').on(t.targetType, t.id),
  ],
);

export type AuditRow = typeof auditLog.$inferSelect;
