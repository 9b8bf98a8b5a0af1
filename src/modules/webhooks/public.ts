/**
 * What other modules use of webhooks: the events a write records inside its own transaction
 * (links, clicks), and the click record those events and the raw-click list share (analytics).
 */
export { CLICK_FIELDS, type Click, type ClickFacts, ClickModel, clickRecord } from './click-record';
export { clickEvents, type WrittenClick } from './outbox/click-events';
export { type DeletedLink, linkDeletedEvents, linkEvents, type NewEvent } from './outbox/events';
export { clickEventsWantedPostgres, recordClickEventsPostgres, recordEventsPostgres } from './outbox/postgres/record';
export { clickEventsWantedSqlite, recordClickEventsSqlite, recordEventsSqlite } from './outbox/sqlite/record';
