/** Read side of the rollups and raw clicks: plain bun:sqlite queries (compiled once, cached by Bun). */
import type { Database } from 'bun:sqlite';
import type { Grain } from '../clicks/rollups';
import type { StoredClick } from '../clicks/table';

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

/** Current code of every variant id (of one link, or of all links). */
export function variantCodes(sqlite: Database, linkId: string | null): Map<string, string> {
  const rows =
    linkId === null
      ? sqlite.query<{ id: string; code: string }, []>('SELECT id, code FROM variants').all()
      : sqlite
          .query<{ id: string; code: string }, [string]>('SELECT id, code FROM variants WHERE link_id = ?')
          .all(linkId);
  return new Map(rows.map((r) => [r.id, r.code]));
}

export function slugsOf(sqlite: Database, ids: string[]): Map<string, string> {
  if (ids.length === 0) return new Map();
  const rows = sqlite
    .query<{ id: string; slug: string }, [string]>(
      'SELECT id, slug FROM links WHERE id IN (SELECT value FROM json_each(?))',
    )
    .all(JSON.stringify(ids));
  return new Map(rows.map((r) => [r.id, r.slug]));
}

/** Where a page of clicks ends: newest first, so the next page holds keys below (timestamp, id). */
export interface ClickKey {
  timestamp: number;
  id: number;
}

/** The first key past `to`: every click at or before `to` sorts below it (where paging starts). */
export function keyAbove(to: number): ClickKey {
  return { timestamp: to, id: Number.MAX_SAFE_INTEGER };
}

/**
 * Up to `limit` clicks of a link below `before` (newest first) and not before `from`. The row
 * value comparison lets SQLite seek the (link_id, timestamp, id) index straight to the cursor,
 * so a deep page costs the same as the first.
 */
export function readClickPage(
  sqlite: Database,
  linkId: string,
  from: number,
  before: ClickKey,
  bots: boolean,
  limit: number,
): StoredClick[] {
  return sqlite
    .query<StoredClick, [string, number, number, number, number, number]>(
      `SELECT id, link_id, timestamp, variant_code, variant_id, destination, params, country, city, device, os, browser,
         referrer, traffic_type, language, bot
       FROM clicks
       WHERE link_id = ? AND (timestamp, id) < (?, ?) AND timestamp >= ? AND bot <= ?
       ORDER BY timestamp DESC, id DESC LIMIT ?`,
    )
    .all(linkId, before.timestamp, before.id, from, bots ? 1 : 0, limit);
}

/** The newest click id: clicks written later have higher ids (AUTOINCREMENT never reuses one). */
export function lastClickId(sqlite: Database): number {
  return sqlite.query<{ id: number }, []>('SELECT coalesce(max(id), 0) AS id FROM clicks').get()!.id;
}

/**
 * A stored click as the export reads it, in CSV order (the link id and slug are the same on
 * every row and are not read). Positional, not an object per row: a million-row export
 * allocates every value it reads.
 */
export type ExportRow = [
  id: number,
  timestamp: number,
  variantCode: string | null,
  variantId: string | null,
  destination: string,
  params: string,
  country: string | null,
  city: string | null,
  device: string | null,
  os: string | null,
  browser: string | null,
  referrer: string | null,
  trafficType: string | null,
  language: string | null,
  bot: number,
];

/** readClickPage for the export: the same keys and order, only clicks up to `maxId` (its snapshot). */
export function readExportPage(
  sqlite: Database,
  linkId: string,
  from: number,
  before: ClickKey,
  maxId: number,
  bots: boolean,
  limit: number,
): ExportRow[] {
  return sqlite
    .query<ExportRow, [string, number, number, number, number, number, number]>(
      `SELECT id, timestamp, variant_code, variant_id, destination, params, country, city, device, os, browser,
         referrer, traffic_type, language, bot
       FROM clicks
       WHERE link_id = ? AND (timestamp, id) < (?, ?) AND timestamp >= ? AND id <= ? AND bot <= ?
       ORDER BY timestamp DESC, id DESC LIMIT ?`,
    )
    .values(linkId, before.timestamp, before.id, from, maxId, bots ? 1 : 0, limit) as ExportRow[];
}
