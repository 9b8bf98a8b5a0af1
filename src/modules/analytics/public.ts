/**
 * The analytics module's face: what other modules and the server, the CLI and the composition root
 * use of it. test/architecture/boundaries.test.ts fails on an import of any other file of this
 * folder from outside it (but its table.ts, and its routes in index.ts, which app.ts mounts).
 */

export { csvLine } from './csv';
export type { AnalyticsDeps } from './deps';
export type { Exports } from './export-chunks';
export { ExportHost } from './export-host';
export { ClickPageModel, ClicksQuery, StatsModel, StatsQuery, WorkspaceStatsModel, WorkspaceStatsQuery } from './model';
export { createPostgresAnalyticsStore, postgresStorageBytes } from './postgres/store';
export { linkClicks, linkStats, workspaceStats } from './service';
export { createSqliteAnalyticsStore, sqliteStorageBytes } from './sqlite/store';
export type { AnalyticsStore, StorageBytes } from './store';
