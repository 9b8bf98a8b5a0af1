/**
 * The imports module's face: what other modules, the CLI and the composition root use of it.
 * test/architecture/boundaries.test.ts fails on an import of any other file of this folder from
 * outside it (but its routes in index.ts, which app.ts mounts).
 */

export type { ImportDeps, SourceFactory } from './deps';
export type { HistoryWriter } from './history';
export type { HistoryOptions } from './history/convert';
export { type HistoryClicks, postgresHistoryWriter } from './history/postgres';
export { sqliteHistoryWriter } from './history/sqlite';
export { CONFLICT_MODES, HISTORY_MODES } from './model';
export { createPostgresImportStore } from './postgres/store';
export type { RunEnd } from './runner/plan';
export {
  cancelImport,
  getImport,
  type ImportRequest,
  openImportTakeover,
  startImport,
  toImportJson,
} from './service';
export type {
  HistoryKind,
  ImportSource,
  SourceDay,
  SourceLink,
  SourceName,
  SourceOptions,
  SourcePage,
  SourceVisit,
} from './source';
export { SOURCE_NAMES, SourceError } from './source';
export { builtInSources, PRODUCT_SOURCES, sourceFor } from './sources';
export { createSqliteImportStore } from './sqlite/store';
export type { ImportStore, RunProgress } from './store';
export type { ImportTakeover } from './takeover';
