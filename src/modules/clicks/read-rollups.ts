/**
 * Read side of the rollup buckets, for the statistics: plain bun:sqlite queries (compiled once,
 * cached by Bun). The buckets are written by rollups.ts; only this module names their table.
 */
import type { Database } from 'bun:sqlite';
import type { Grain } from './rollups';

export interface BucketRow {
  start: number;
  bot: number;
  clicks: number;
  uniques: number;
}

export interface BucketData extends BucketRow {
  data: Uint8Array;
}

/** Buckets of one scope and grain with start in [from, toExclusive), both bot flags. */
export function readBucketTotals(
  sqlite: Database,
  scope: string,
  grain: Grain,
  from: number,
  toExclusive: number,
): BucketRow[] {
  return sqlite
    .query<BucketRow, [string, Grain, number, number]>(
      'SELECT start, bot, clicks, uniques FROM rollup_buckets WHERE scope = ? AND grain = ? AND start >= ? AND start < ?',
    )
    .all(scope, grain, from, toExclusive);
}

/** The same with the packed breakdowns; `bots` false leaves bot buckets out. */
export function readBucketData(
  sqlite: Database,
  scope: string,
  grain: Grain,
  from: number,
  toExclusive: number,
  bots: boolean,
): BucketData[] {
  return sqlite
    .query<BucketData, [string, Grain, number, number, number]>(
      'SELECT start, bot, clicks, uniques, data FROM rollup_buckets WHERE scope = ? AND grain = ? AND start >= ? AND start < ? AND bot <= ?',
    )
    .all(scope, grain, from, toExclusive, bots ? 1 : 0);
}

/** Bot hits of one scope and grain with start in [from, toExclusive). */
export function countBotHits(sqlite: Database, scope: string, grain: Grain, from: number, toExclusive: number): number {
  return sqlite
    .query<{ n: number }, [string, Grain, number, number]>(
      'SELECT coalesce(sum(clicks), 0) AS n FROM rollup_buckets WHERE scope = ? AND grain = ? AND start >= ? AND start < ? AND bot = 1',
    )
    .get(scope, grain, from, toExclusive)!.n;
}

/** Start of the first day the scope has any click in, or null. */
export function firstBucketStart(sqlite: Database, scope: string): number | null {
  return sqlite
    .query<{ first: number | null }, [string]>(
      "SELECT min(start) AS first FROM rollup_buckets WHERE scope = ? AND grain = 'day'",
    )
    .get(scope)!.first;
}
