/**
 * The clicks module's face: everything other modules (and the server, the CLI, deps) use of it
 * is exported here, and test/architecture/boundaries.test.ts fails on an import of any other
 * file of this folder from outside it. Inside, the folders are the roles: capture/ (the
 * request's record, the buffer, the flusher, the sinks, the spill file), enrich/ (agent, bot
 * name, geo, traffic type, language, visitor), sqlite/ (the store on SQLite: tail, blocks,
 * seal, retention, raw reads, targets, the writer Worker, catch-up, upgrade).
 */

// The redirect's side: what it records and where (capture/).
export { isBotAgent, isPreviewCrawler } from './capture/bot';
export type { ClickBuffer } from './capture/buffer';
export { addStoredHumans, countCaptured, raiseHumanClicks, startCounts } from './capture/live-counts';
export { type ClickPipeline, createClickPipeline, ownHostsOf, type PipelineOptions } from './capture/pipeline';
export { PREVIEW_CRAWLERS } from './capture/preview-crawlers';
export { type OptOutTest, optOutTest, withoutQueryParam } from './capture/privacy';
export { type ClickLinks, type ClickRecord, targetSerial } from './capture/record';
export { STOP_FLUSH_DEADLINE_MS, STOP_FLUSH_RETRY_MS } from './capture/spill';
export * from './capture/target-block';
// `slink copy-to`: the raw clicks of a SQLite database into a PostgreSQL one.
export {
  type BlockChunk,
  copySealState,
  countRawClicks,
  dropClickTailKey,
  lastAssignedClickId,
  nextBlockChunk,
  nextTailChunk,
  restoreClickTailKey,
  type TailChunk,
  writeBlockChunk,
  writeTailChunk,
} from './copy-to-postgres';
export {
  countFirstVisitsSince,
  pgClickCounts,
  pgRawClicksOf,
  rawClicksOf,
  sameBlocks,
  sqliteClickCounts,
} from './copy-to-verify';
// Enrichment other modules reuse (the sessions list names a session's browser; link rules
// read the agent, country, languages and referrer host as the statistics name them).
export type { EnrichedClick } from './enrich/enrich';
export { type GeoLookup, noGeo, openGeo } from './enrich/geo';
export { acceptedLanguages } from './enrich/language';
export { referrerHost } from './enrich/traffic';
export { agentReadPart, parseAgent } from './enrich/user-agent';
// An import's history (imports/history): visits made clicks, queued for SQLite's one writer.
export {
  type ImportedVisit,
  type ImportPolicy,
  type ImportTarget,
  importedClick,
} from './imported';
export { deleteLinkClicksPg } from './postgres/delete';
export { importedDaysOfPg, keepImportedDaysPg } from './postgres/imported-days';
export { fewClicksRowsPg, lastClickIdPg, PgExportPages, readClickPagePg } from './postgres/read-clicks';
// The server's start and stop, and the CLI's `slink migrate`.
export { startClickStoragePg } from './postgres/start';
export { namePlainTargetsPg, type PlainTarget, plainTargetsColumnPg } from './postgres/targets';
export type { ExportRow, ListedClick } from './read-clicks';
// Reading and deleting raw clicks (analytics, links).
export { retainedFrom } from './retention';
export { fewClicksRows } from './sqlite/few-clicks';
export { importsQueued, queueImportedDays, queueImportedVisits } from './sqlite/imports';
export { deleteLinkClicks, importedDaysOf } from './sqlite/raw-read';
export {
  type ClickKey,
  EXPORT_BOT_AT,
  EXPORT_DIMS_AT,
  EXPORT_FIRST_AT,
  EXPORT_RULE_AT,
  ExportPages,
  keyAbove,
  lastClickId,
  readClickPage,
} from './sqlite/read-clicks';
export { upgradeClickStorage } from './sqlite/upgrade';
export { type ClickStart, type StopResult, startClickStorage } from './start';
export type { ClickWriter } from './store';
export { openClickWriter, openPgImportWriter, type WriterOptions } from './writer';
