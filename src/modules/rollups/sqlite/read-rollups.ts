/**
 * Read side of the rollup buckets, for the statistics: plain bun:sqlite queries (compiled once,
 * cached by Bun). The buckets are written by rollups.ts; only this module names their table.
 * A scope is a link's value id (rollup-values.ts linkValueId) or WORKSPACE.
 */
import type { Database } from 'bun:sqlite';
import { DAY_MS, utcDay } from '../../../lib/time';
import type { BucketData, BucketRow } from '../buckets';
import { GRAIN_CODE, type Grain } from '../rollups';

/** Buckets of one scope and grain with start in [from, toExclusive), both bot flags. */
export function readBucketTotals(
  sqlite: Database,
  scope: number,
  grain: Grain,
  from: number,
  toExclusive: number,
): BucketRow[] {
  return sqlite
    .query<BucketRow, [number, number, number, number]>(
      'SELECT start, bot, clicks, uniques FROM rollups WHERE scope = ? AND grain = ? AND start >= ? AND start < ?',
    )
    .all(scope, GRAIN_CODE[grain], from, toExclusive);
}

/** The same with the packed breakdowns; `bots` false leaves bot buckets out. */
export function readBucketData(
  sqlite: Database,
  scope: number,
  grain: Grain,
  from: number,
  toExclusive: number,
  bots: boolean,
): BucketData[] {
  return sqlite
    .query<BucketData, [number, number, number, number, number]>(
      'SELECT start, bot, clicks, uniques, data FROM rollups WHERE scope = ? AND grain = ? AND start >= ? AND start < ? AND bot <= ?',
    )
    .all(scope, GRAIN_CODE[grain], from, toExclusive, bots ? 1 : 0);
}

/** Bot hits of one scope and grain with start in [from, toExclusive). */
export function countBotHits(sqlite: Database, scope: number, grain: Grain, from: number, toExclusive: number): number {
  return sqlite
    .query<{ n: number }, [number, number, number, number]>(
      'SELECT coalesce(sum(clicks), 0) AS n FROM rollups WHERE scope = ? AND grain = ? AND start >= ? AND start < ? AND bot = 1',
    )
    .get(scope, GRAIN_CODE[grain], from, toExclusive)!.n;
}

/** Start of the first day the scope has any click in, or null (a link's early days may be in hour buckets only). */
export function firstBucketStart(sqlite: Database, scope: number): number | null {
  const first = sqlite
    .query<{ first: number | null }, [number, number]>(
      `SELECT min(m) AS first FROM (SELECT min(start) AS m FROM rollups WHERE scope = ?1 AND grain = 0
         UNION ALL SELECT min(start) FROM rollups WHERE scope = ?2 AND grain = 1)`,
    )
    .get(scope, scope)!.first;
  return first === null ? null : utcDay(first) * DAY_MS;
}

/** A bucket of one of several scopes, with its scope (a domain's statistics sum its links' scopes). */
export interface ScopedBucketData extends BucketData {
  scope: number;
}

/**
 * The buckets of these scopes and one grain with start in [from, toExclusive), bot buckets too
 * (their hits are counted whatever the statistics' `bots` says): one query for every scope.
 */
export function readScopesBucketData(
  sqlite: Database,
  scopes: readonly number[],
  grain: Grain,
  from: number,
  toExclusive: number,
): ScopedBucketData[] {
  return sqlite
    .query<ScopedBucketData, [string, number, number, number]>(
      `SELECT scope, start, bot, clicks, uniques, data FROM rollups
       WHERE scope IN (SELECT value FROM json_each(?)) AND grain = ? AND start >= ? AND start < ?`,
    )
    .all(JSON.stringify(scopes), GRAIN_CODE[grain], from, toExclusive);
}

/** Totals of these scopes' hour buckets with start in [from, toExclusive), both bot flags, summed per hour. */
export function readScopesHourTotals(
  sqlite: Database,
  scopes: readonly number[],
  from: number,
  toExclusive: number,
): BucketRow[] {
  return sqlite
    .query<BucketRow, [string, number, number, number]>(
      `SELECT start, bot, sum(clicks) AS clicks, sum(uniques) AS uniques FROM rollups
       WHERE scope IN (SELECT value FROM json_each(?)) AND grain = ? AND start >= ? AND start < ?
       GROUP BY start, bot`,
    )
    .all(JSON.stringify(scopes), GRAIN_CODE.hour, from, toExclusive);
}

/** The first day any of these scopes has a click in, or null. */
export function scopesFirstBucketStart(sqlite: Database, scopes: readonly number[]): number | null {
  const first = sqlite
    .query<{ first: number | null }, [string]>(
      'SELECT min(start) AS first FROM rollups WHERE scope IN (SELECT value FROM json_each(?))',
    )
    .get(JSON.stringify(scopes))!.first;
  return first === null ? null : utcDay(first) * DAY_MS;
}
