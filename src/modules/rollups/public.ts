/**
 * The rollups module's face: what other modules (clicks, analytics, links, deps) use of it.
 * test/architecture/boundaries.test.ts fails on an import of any other file of this folder
 * from outside it. Engine-neutral parts sit at the top of the folder (dimensions, the bucket
 * codec, pending sums, the value dictionary); sqlite/ holds the buckets on SQLite (the fold,
 * link days, the rebuild, the statistics' reads).
 */

export type { BucketData, BucketRow } from './buckets';
export {
  firstDifferentScope,
  nextRollupChunk,
  pgHourTotals,
  pgIncompleteDays,
  type RollupChunk,
  sqliteHourTotals,
  writeRollupChunk,
} from './copy-to-postgres';
export * from './dimensions';
export { type PendingHour, PendingSums } from './pending';
export { PgRollupWriter } from './postgres/buckets';
export { forgetLinkRollupsPg } from './postgres/forget';
export { linkDaysBeforeManyPg, linkDaysBeforePg } from './postgres/link-days';
export {
  countBotHitsPg,
  firstBucketStartPg,
  readBucketDataPg,
  readBucketTotalsPg,
  readScopesBucketDataPg,
  readScopesHourTotalsPg,
  scopesFirstBucketStartPg,
} from './postgres/read-rollups';
export { linkValueColumnPg, linkValueIdPg, linkValueIdsPg, nameLinkValuesPg, PgValues } from './postgres/values';
export { type Counts, forEachCount } from './rollup-codec';
export { linkValueId, linkValueIds, RollupValues } from './rollup-values';
export {
  type Bucket,
  type ClickSource,
  type CountedClick,
  type FoldCounters,
  GRAIN_CODE,
  type Grain,
  type ImportedDay,
  RollupAccumulator,
  type RollupClick,
  type ValueIds,
  valueIdsOf,
  WORKSPACE,
} from './rollups';
export { clearRollups, forgetLinkRollups, RollupStore } from './sqlite/bucket-store';
export { type CountedHumans, createFolder, type Folder, refoldUnfolded } from './sqlite/fold';
export { linkDaysBefore, linkDaysBeforeMany, markAllLinkDays } from './sqlite/link-days';
export {
  countBotHits,
  firstBucketStart,
  readBucketData,
  readBucketTotals,
  readScopesBucketData,
  readScopesHourTotals,
  type ScopedBucketData,
  scopesFirstBucketStart,
} from './sqlite/read-rollups';
export { rebuildRollupsIfMissing } from './sqlite/rebuild';
