/**
 * The invites module's face: what the composition root uses of it. test/architecture/boundaries.test.ts
 * fails on an import of any other file of this folder from outside it (but its table.ts, and its
 * routes in index.ts, which app.ts mounts).
 */
export type { InvitesBase, InvitesDeps } from './deps';
export { createPostgresInviteStore } from './postgres/store';
export { createInvite, INVITE_DAYS, listInvites, revokeInvite } from './service';
export { createSqliteInviteStore } from './sqlite/store';
export type { InviteStore } from './store';
