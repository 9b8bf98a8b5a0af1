import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Webhooks: where events are delivered. The secret is kept as issued (`whsec_...`): each
 * delivery is signed with it, so it cannot be stored as a one-way hash the way API keys are;
 * it is shown once, at creation, and never answered again.
 */
export const webhooks = sqliteTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    url: text('url').notNull(),
    description: text('description'),
    /** The event types delivered (WEBHOOK_EVENTS), as a JSON array. */
    events: text('events', { mode: 'json' }).$type<string[]>().notNull(),
    /** Whether bot hits are delivered with `clicks` events (human clicks always are). */
    bots: integer('bots', { mode: 'boolean' }).notNull().default(false),
    secret: text('secret').notNull(),
    active: integer('active', { mode: 'boolean' }).notNull().default(true),
    /** Deliveries failed in a row; at WEBHOOK_LIMITS.disableAfter the webhook is disabled. */
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    /** Why it was disabled automatically (null while active, or when a person paused it). */
    disabledReason: text('disabled_reason'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('webhooks_created_idx').on(t.createdAt, t.id)],
);

export type WebhookRow = typeof webhooks.$inferSelect;
