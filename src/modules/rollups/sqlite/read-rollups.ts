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
