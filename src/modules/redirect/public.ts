/**
 * The redirect module's face: what other modules and the server, the CLI and the composition root
 * use of it. test/architecture/boundaries.test.ts fails on an import of any other file of this
 * folder from outside it (but its table.ts, and its routes in index.ts, which app.ts mounts).
 */
export { type ClickLimitGate, createClickLimitGate } from './click-limit-gate';
export { LinkFollower } from './link-follower';
export { clickIdsOf, LinkIndex, plainTargetOf } from './link-index';
export { LinkPasswordThrottle } from './password/throttle';
export { createPostgresSharedMisses } from './read-through/postgres';
export {
  READ_THROUGH_ACCESS,
  READ_THROUGH_LIMITS,
  ReadThrough,
  type ReadThroughLimits,
  type SharedMisses,
} from './read-through/read-through';
export { reservedSlugsWarning } from './reserved';
