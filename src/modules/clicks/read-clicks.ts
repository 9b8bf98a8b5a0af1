/**
 * Read side of the raw clicks, for the click list, the CSV export (in its Worker) and the rollup
 * rebuild: plain bun:sqlite queries (compiled once, cached by Bun) and the stored row's shape.
 */
import type { Database } from 'bun:sqlite';

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
