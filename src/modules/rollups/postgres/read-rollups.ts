/**
 * Read side of the rollup buckets on PostgreSQL, for the statistics: the same rows as the
 * SQLite engine's reads (sqlite/read-rollups.ts). As there, a link's day buckets are complete
 * only before its mark (link-days.ts); its later days are read as sums of its hour buckets.
 */
import { num, type Pg } from '../../../db/postgres/client';
import { DAY_MS, utcDay } from '../../../lib/time';
import type { BucketData, BucketRow } from '../buckets';
import { GRAIN_CODE, type Grain } from '../rollups';

type StoredRow = { start: string; bot: boolean; clicks: string; uniques: string; data?: Uint8Array };

function row(r: StoredRow): BucketRow {
  return { start: num(r.start), bot: r.bot ? 1 : 0, clicks: num(r.clicks), uniques: num(r.uniques) };
}

/** Buckets of one scope and grain with start in [from, toExclusive), both bot flags. */
export async function readBucketTotalsPg(
  sql: Pg,
  scope: number,
  grain: Grain,
  from: number,
  toExclusive: number,
): Promise<BucketRow[]> {
  const rows: StoredRow[] = await sql`SELECT start, bot, clicks, uniques FROM rollups
    WHERE scope = ${scope} AND grain = ${GRAIN_CODE[grain]} AND start >= ${from}::int8 AND start < ${toExclusive}::int8`;
  return rows.map(row);
}

/** The same with the packed breakdowns; `bots` false leaves bot buckets out. */
export async function readBucketDataPg(
  sql: Pg,
  scope: number,
  grain: Grain,
  from: number,
  toExclusive: number,
  bots: boolean,
): Promise<BucketData[]> {
  const rows: StoredRow[] = await sql`SELECT start, bot, clicks, uniques, data FROM rollups
    WHERE scope = ${scope} AND grain = ${GRAIN_CODE[grain]} AND start >= ${from}::int8 AND start < ${toExclusive}::int8
      AND (${bots}::bool OR NOT bot)`;
  return rows.map((r) => ({ ...row(r), data: r.data! }));
}

/** Bot hits of one scope and grain with start in [from, toExclusive). */
export async function countBotHitsPg(
  sql: Pg,
  scope: number,
  grain: Grain,
  from: number,
  toExclusive: number,
): Promise<number> {
  const [r] = await sql`SELECT coalesce(sum(clicks), 0) AS n FROM rollups
    WHERE scope = ${scope} AND grain = ${GRAIN_CODE[grain]} AND start >= ${from}::int8 AND start < ${toExclusive}::int8
      AND bot`;
  return num(r.n);
}

/** Start of the first day the scope has any click in, or null (a link's early days may be in hour buckets only). */
export async function firstBucketStartPg(sql: Pg, scope: number): Promise<number | null> {
  const [r] = await sql`SELECT least(
      (SELECT min(start) FROM rollups WHERE scope = ${scope} AND grain = ${GRAIN_CODE.hour}),
      (SELECT min(start) FROM rollups WHERE scope = ${scope} AND grain = ${GRAIN_CODE.day})) AS first`;
  return r.first === null ? null : utcDay(num(r.first)) * DAY_MS;
}

/** A bucket of one of several scopes, with its scope (sqlite/read-rollups.ts readScopesBucketData). */
export interface ScopedBucketDataPg extends BucketData {
  scope: number;
}

/** The buckets of these scopes and one grain with start in [from, toExclusive), bot buckets too: one query. */
export async function readScopesBucketDataPg(
  sql: Pg,
  scopes: readonly number[],
  grain: Grain,
  from: number,
  toExclusive: number,
): Promise<ScopedBucketDataPg[]> {
  const rows: (StoredRow & { scope: string | number })[] = await sql`
    SELECT scope, start, bot, clicks, uniques, data FROM rollups
    WHERE scope = ANY(${sql.array([...scopes], 'int8')}::int8[]) AND grain = ${GRAIN_CODE[grain]}
      AND start >= ${from}::int8 AND start < ${toExclusive}::int8`;
  return rows.map((r) => ({ ...row(r), scope: num(r.scope), data: r.data! }));
}

/** Totals of these scopes' hour buckets with start in [from, toExclusive), both bot flags, summed per hour. */
export async function readScopesHourTotalsPg(
  sql: Pg,
  scopes: readonly number[],
  from: number,
  toExclusive: number,
): Promise<BucketRow[]> {
  const rows: StoredRow[] = await sql`
    SELECT start, bot, sum(clicks) AS clicks, sum(uniques) AS uniques FROM rollups
    WHERE scope = ANY(${sql.array([...scopes], 'int8')}::int8[]) AND grain = ${GRAIN_CODE.hour}
      AND start >= ${from}::int8 AND start < ${toExclusive}::int8
    GROUP BY start, bot`;
  return rows.map(row);
}

/** The first day any of these scopes has a click in, or null. */
export async function scopesFirstBucketStartPg(sql: Pg, scopes: readonly number[]): Promise<number | null> {
  const [r] = await sql`SELECT min(start) AS first FROM rollups
    WHERE scope = ANY(${sql.array([...scopes], 'int8')}::int8[])`;
  return r.first === null ? null : utcDay(num(r.first)) * DAY_MS;
}
