/**
 * The analytics reads on SQLite: today's synchronous reads (rollups/sqlite/read-rollups.ts,
 * clicks/sqlite/read-clicks.ts), only wrapped in promises; no query changed.
 */
import type { Database } from 'bun:sqlite';
import { statSync } from 'node:fs';
import { importedDaysOf, lastClickId, readClickPage } from '../../clicks/public';
import {
  countBotHits,
  firstBucketStart,
  linkDaysBefore,
  linkDaysBeforeMany,
  linkValueId,
  linkValueIds,
  RollupValues,
  readBucketData,
  readBucketTotals,
  readScopesBucketData,
  readScopesHourTotals,
  scopesFirstBucketStart,
} from '../../rollups/public';
import type { AnalyticsStore, StorageBytes } from '../store';

export function createSqliteAnalyticsStore(sqlite: Database): AnalyticsStore {
  // Made when statistics first need it (its statements are prepared on the connection then).
  let values: RollupValues | null = null;
  return {
    async linkScope(linkId) {
      return linkValueId(sqlite, linkId);
    },
    async firstDay(scope) {
      return firstBucketStart(sqlite, scope);
    },
    async daysBefore(scope) {
      return linkDaysBefore(sqlite, scope);
    },
    async buckets(scope, ranges, bots) {
      const rows = [];
      let botHits = 0;
      for (const r of ranges) {
        rows.push(...readBucketData(sqlite, scope, r.grain, r.from, r.toExclusive, bots));
        if (!bots) botHits += countBotHits(sqlite, scope, r.grain, r.from, r.toExclusive);
      }
      if (bots) for (const r of rows) if (r.bot === 1) botHits += r.clicks;
      return { rows, botHits };
    },
    async hourTotals(scope, from, toExclusive) {
      return readBucketTotals(sqlite, scope, 'hour', from, toExclusive);
    },
    async valueNames() {
      values ??= new RollupValues(sqlite);
      values.refresh();
      return values;
    },
    async knowValues() {},
    async linkScopes(linkIds) {
      return linkValueIds(sqlite, linkIds);
    },
    async daysBeforeOf(scopes) {
      const marks = linkDaysBeforeMany(sqlite, scopes);
      return new Map(scopes.map((s) => [s, marks.get(s) ?? 0]));
    },
    async scopesBuckets(scopes, r) {
      return readScopesBucketData(sqlite, scopes, r.grain, r.from, r.toExclusive);
    },
    async scopesHourTotals(scopes, from, toExclusive) {
      return readScopesHourTotals(sqlite, scopes, from, toExclusive);
    },
    async scopesFirstDay(scopes) {
      return scopesFirstBucketStart(sqlite, scopes);
    },
    async clickPage(linkId, from, before, bots, limit) {
      return readClickPage(sqlite, linkId, from, before, bots, limit);
    },
    async importedDays(linkIds) {
      return importedDaysOf(sqlite, linkIds);
    },
    async lastClickId() {
      return lastClickId(sqlite);
    },
  };
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0; // no WAL file between checkpoints that truncate it
  }
}

/** The database file's size and its write-ahead log's. */
export function sqliteStorageBytes(path: string): StorageBytes {
  return { database: fileSize(path), wal: fileSize(`${path}-wal`) };
}
