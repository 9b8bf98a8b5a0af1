/**
 * The imports module's face: what other modules, the CLI and the composition root use of it.
 * test/architecture/boundaries.test.ts fails on an import of any other file of this folder from
 * outside it (but its routes in index.ts, which app.ts mounts).
 */

export type { HistoryWriter } from './history';
export type { HistoryOptions } from './history/convert';
export { type HistoryClicks, postgresHistoryWriter } from './history/postgres';
export { sqliteHistoryWriter } from './history/sqlite';
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
