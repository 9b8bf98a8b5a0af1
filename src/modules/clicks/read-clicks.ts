/**
 * Read side of the raw clicks, for the click list, the CSV export (in its Worker), the rollup
 * rebuild and the click writer's open (the fold after a crash, the seen visitors): plain
 * bun:sqlite queries (compiled once, cached by Bun) and the stored row's shape.
 */
import type { Database } from 'bun:sqlite';
import type { RollupClick } from './rollups';

/** A raw click row as bun:sqlite returns it (SQL column names), for the readers that bypass drizzle. */
export interface StoredClick {
  id: number;
  link_id: string;
  timestamp: number;
  variant_code: string | null;
  variant_id: string | null;
  destination: string;
  params: string;
  country: string | null;
  city: string | null;
  device: string | null;
  os: string | null;
  browser: string | null;
  referrer: string | null;
  traffic_type: string | null;
  language: string | null;
  bot: number;
}

/** The enriched fields of a stored row under their app names (params parsed), in record order. */
export function storedDimensions(r: Omit<StoredClick, 'id' | 'destination'>) {
  return {
    params: JSON.parse(r.params) as Record<string, string>,
    country: r.country,
    city: r.city,
    device: r.device,
    os: r.os,
    browser: r.browser,
    referrer: r.referrer,
    trafficType: r.traffic_type,
    language: r.language,
  };
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

/** A raw click as the fold counts it: its rollup facts, id, first-of-day flag and visitor hash. */
export type FoldClick = RollupClick & {
  id: number;
  /** A human visitor's first click of the UTC day on the link (a unique). */
  firstOfDay: boolean;
  /** The visitor hash, 16 hex characters. */
  visitor: string;
};

type FoldRow = Omit<StoredClick, 'destination'> & { first_of_day: number; visitor: string };

/** Up to `limit` clicks with ids above `afterId`, in id order (the order they were written). */
export function readClicksAfter(sqlite: Database, afterId: number, limit: number): FoldClick[] {
  return sqlite
    .query<FoldRow, [number, number]>(
      // A hash stored before hashes had 64 bits is 32 hex characters: its first 16 are the same visitor's.
      `SELECT id, link_id, timestamp, bot, variant_code, variant_id, params, country, city, device, os, browser,
         referrer, traffic_type, language, first_of_day, substr(coalesce(visitor_hash, ''), 1, 16) AS visitor
       FROM clicks WHERE id > ? ORDER BY id LIMIT ?`,
    )
    .all(afterId, limit)
    .map((r) => ({
      id: r.id,
      linkId: r.link_id,
      time: r.timestamp,
      bot: r.bot === 1,
      code: r.variant_code,
      variantId: r.variant_id,
      ...storedDimensions(r),
      firstOfDay: r.first_of_day === 1,
      visitor: r.visitor,
    }));
}

/** Clicks read per step, newest first, by firstVisitsSince. */
const VISITS_CHUNK = 20_000;

/**
 * Calls `each` for every click flagged first-of-day at or after `from` (the writer's seen
 * visitors of today and yesterday). Reads back from the newest id a chunk at a time and stops
 * at the first chunk entirely older than `from`: ids follow write order, which follows time
 * (give or take a clock step), so only the last days' clicks are read, with no index on time.
 */
export function firstVisitsSince(
  sqlite: Database,
  from: number,
  each: (linkId: string, time: number, visitor: string) => void,
): void {
  const chunk = sqlite.query<
    { id: number; link_id: string; timestamp: number; first_of_day: number; visitor: string },
    [number, number]
  >(
    `SELECT id, link_id, timestamp, first_of_day, substr(coalesce(visitor_hash, ''), 1, 16) AS visitor
     FROM clicks WHERE id < ? ORDER BY id DESC LIMIT ?`,
  );
  for (let before = Number.MAX_SAFE_INTEGER; ; ) {
    const rows = chunk.all(before, VISITS_CHUNK);
    let recent = false;
    for (const r of rows) {
      if (r.timestamp < from) continue;
      recent = true;
      if (r.first_of_day === 1) each(r.link_id, r.timestamp, r.visitor);
    }
    if (!recent || rows.length < VISITS_CHUNK) return;
    before = rows[rows.length - 1]!.id;
  }
}
