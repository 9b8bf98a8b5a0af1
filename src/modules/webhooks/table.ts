import { sql } from 'drizzle-orm';
import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Webhooks: where events are delivered. The secret is kept as issued (`whsec_...`): each
 * delivery is signed with it, so it cannot be stored as a one-way hash the way API keys are;
 * it is shown once, at creation or rotation, and never answered again.
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
    /**
     * The secret a rotation replaced: deliveries are signed with it too (a second signature)
     * until `previousSecretUntil`, so receivers can switch to the new one meanwhile.
     */
    previousSecret: text('previous_secret'),
    previousSecretUntil: integer('previous_secret_until'),
    active: integer('active', { mode: 'boolean' }).notNull().default(true),
    /** Deliveries failed in a row since the last success (shown; disabling goes by failingSince). */
    consecutiveFailures: integer('consecutive_failures').notNull().default(0),
    /**
     * The first failure since the last success (or since it was enabled); null while it
     * succeeds. WEBHOOK_LIMITS.disableAfterMs after it, a failure disables the webhook.
     */
    failingSince: integer('failing_since'),
    /** Why it was disabled automatically (null while active, or when a person paused it). */
    disabledReason: text('disabled_reason'),
    createdAt: integer('created_at').notNull(),
    updatedAt: integer('updated_at').notNull(),
  },
  (t) => [index('webhooks_created_idx').on(t.createdAt, t.id)],
);

export type WebhookRow = typeof webhooks.$inferSelect;

/**
 * The outbox: every event, written in the transaction of what caused it (a link write, a click
 * batch), so an event exists exactly when its cause does. `seq` orders them as they committed
 * (the live stream resumes by it); `data` is the event's JSON, filled right after a link write
 * commits (the Link as it is then) and built at delivery if a crash came in between.
 */
export const webhookEvents = sqliteTable(
  'webhook_events',
  {
    seq: integer('seq').primaryKey({ autoIncrement: true }),
    /** `evt_...`: the deliveries' webhook-id, the same on every attempt. */
    id: text('id').notNull(),
    type: text('type').notNull(),
    /** The link it is about (none for a click batch of several links). */
    linkId: text('link_id'),
    data: text('data'),
    /** A `clicks` event's bot hits apart (a JSON array), so delivering human clicks only parses nothing. */
    botData: text('bot_data'),
    at: integer('at').notNull(),
  },
  (t) => [
    index('webhook_events_at_idx').on(t.at),
    // The link events waiting for their data (the fill after a link write finds its own by link).
    index('webhook_events_unfilled_idx').on(t.linkId).where(sql`data IS NULL`),
    // The clicks events still holding their clicks, which pruning drops after delivery.
    index('webhook_events_clicks_kept_idx').on(t.at).where(sql`type = 'clicks' AND data IS NOT NULL`),
  ],
);

/**
 * One event to deliver to one webhook: made with the event for every active webhook that
 * subscribes to its type. Due when `next_at` has come and nobody holds it (`claimed_until`
 * passed: a process that died holding it lets it go); done once delivered or given up.
 */
export const webhookDeliveries = sqliteTable(
  'webhook_deliveries',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    webhookId: text('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    eventSeq: integer('event_seq').notNull(),
    attempts: integer('attempts').notNull().default(0),
    firstAttemptAt: integer('first_attempt_at'),
    nextAt: integer('next_at').notNull(),
    claimedUntil: integer('claimed_until'),
    /** The holder's token: only the process holding it may record the attempt's outcome. */
    claim: text('claim'),
    /** When it was delivered or given up; null while pending. */
    doneAt: integer('done_at'),
    delivered: integer('delivered', { mode: 'boolean' }).notNull().default(false),
  },
  (t) => [
    index('webhook_deliveries_due_idx').on(t.doneAt, t.nextAt),
    index('webhook_deliveries_event_idx').on(t.eventSeq),
  ],
);

/** The delivery log: each attempt, what was sent and what came back (the start of both), kept for a bounded time. */
export const webhookAttempts = sqliteTable(
  'webhook_attempts',
  {
    id: integer('id').primaryKey({ autoIncrement: true }),
    deliveryId: integer('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    webhookId: text('webhook_id').notNull(),
    attempt: integer('attempt').notNull(),
    at: integer('at').notNull(),
    status: integer('status'),
    error: text('error'),
    durationMs: integer('duration_ms').notNull(),
    request: text('request').notNull(),
    response: text('response').notNull(),
  },
  (t) => [index('webhook_attempts_webhook_idx').on(t.webhookId, t.id), index('webhook_attempts_at_idx').on(t.at)],
);

/**
 * Processes with a live stream open (live.ts), each until a time it keeps pushing forward while
 * one is: `clicks` events are recorded only while a webhook subscribes to them or a row here is
 * current, so a workspace nobody listens to pays nothing for them.
 */
export const eventListeners = sqliteTable('event_listeners', {
  node: text('node').primaryKey(),
  until: integer('until').notNull(),
});
