/**
 * The invites module's face: what the composition root uses of it. test/architecture/boundaries.test.ts
 * fails on an import of any other file of this folder from outside it (but its table.ts, and its
 * routes in index.ts, which app.ts mounts).
 */
export type { InvitesDeps } from './deps';
export { createPostgresInviteStore } from './postgres/store';
export { createSqliteInviteStore } from './sqlite/store';
export type { InviteStore } from './store';
