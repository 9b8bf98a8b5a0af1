/**
 * The webhooks module's face: what other modules use of it (the events a write records inside
 * its own transaction: links, clicks; the click record those events and the raw-click list
 * share: analytics), and what the composition root builds (the stores, the sender).
 * test/architecture/boundaries.test.ts fails on an import of any other file of this folder from
 * outside it (but its table.ts, and its routes in index.ts, which app.ts mounts).
 */
export { CLICK_FIELDS, type Click, type ClickFacts, ClickModel, clickRecord, type LinkAddress } from './click-record';
export { clickEvents, type WrittenClick } from './outbox/click-events';
export { type DeletedLink, linkDeletedEvents, linkEvents, type NewEvent } from './outbox/events';
export { clickEventsWantedPostgres, recordClickEventsPostgres, recordEventsPostgres } from './outbox/postgres/record';
export { createPostgresOutboxStore } from './outbox/postgres/store';
export { clickEventsWantedSqlite, recordClickEventsSqlite, recordEventsSqlite } from './outbox/sqlite/record';
export { createSqliteOutboxStore } from './outbox/sqlite/store';
export type { OutboxStore } from './outbox/store';
export { createPostgresWebhookStore } from './postgres/store';
export { WebhookSender } from './sender';
export { createSqliteWebhookStore } from './sqlite/store';
export type { WebhookStore } from './store';
