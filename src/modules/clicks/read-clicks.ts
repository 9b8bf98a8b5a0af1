/**
 * The raw clicks as the click list and the CSV export (in its Worker) read them: each click
 * with its ids turned back into the strings it was recorded with (raw-read.ts reads them).
 */
import type { Database } from 'bun:sqlite';
import { linkValueId } from '../rollups/rollup-values';
import { type ClickKey, type ClickNames, clickNames, dimensionTexts, LinkClickReader, targetOf } from './raw-read';
import { FLAG_BOT } from './tail-append';

export type { ClickKey } from './raw-read';

/** A raw click with the names of the first click table's columns (what the list's records are built from). */
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

/** The first key past `to`: every click at or before `to` sorts below it (where paging starts). */
export function keyAbove(to: number): ClickKey {
  return { timestamp: to, id: Number.MAX_SAFE_INTEGER };
}

/** Up to `limit` clicks of a link below `before` (newest first) and not before `from`. */
export function readClickPage(
  sqlite: Database,
  linkId: string,
  from: number,
  before: ClickKey,
  bots: boolean,
  limit: number,
): StoredClick[] {
  const link = linkValueId(sqlite, linkId);
  if (link === null) return [];
  const names = clickNames(sqlite);
  const refs = new LinkClickReader(sqlite, link, { from, maxId: Number.POSITIVE_INFINITY, bots }).page(before, limit);
  return refs.map(({ c, i }) => {
    const target = targetOf(names, c.target[i]!);
    const [country, city, device, os, browser, referrer, traffic_type, language] = dimensionTexts(names, c, i);
    return {
      id: c.id[i]!,
      link_id: linkId,
      timestamp: c.time[i]!,
      variant_code: target.code,
      variant_id: target.variantId,
      destination: target.destination,
      params: target.params,
      country,
      city,
      device,
      os,
      browser,
      referrer,
      traffic_type,
      language,
      bot: c.flags[i]! & FLAG_BOT,
    };
  });
}

export { lastClickId } from './raw-read';

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

/** Blocks an export keeps decoded: the one the cursor is in and the next one or two it overlaps. */
const EXPORT_BLOCKS = 3;

/**
 * readClickPage for the export: the same keys and order, only clicks up to `maxId` (its
 * snapshot). One per export: it keeps the blocks it is reading decoded between pages.
 */
export class ExportPages {
  private readonly reader: LinkClickReader | null;
  private readonly names: ClickNames;

  constructor(sqlite: Database, linkId: string, from: number, maxId: number, bots: boolean) {
    const link = linkValueId(sqlite, linkId);
    this.reader = link === null ? null : new LinkClickReader(sqlite, link, { from, maxId, bots }, EXPORT_BLOCKS);
    this.names = clickNames(sqlite);
  }

  next(before: ClickKey, limit: number): ExportRow[] {
    if (this.reader === null) return [];
    const names = this.names;
    return this.reader.page(before, limit).map(({ c, i }): ExportRow => {
      const target = targetOf(names, c.target[i]!);
      return [
        c.id[i]!,
        c.time[i]!,
        target.code,
        target.variantId,
        target.destination,
        target.params,
        ...dimensionTexts(names, c, i),
        c.flags[i]! & FLAG_BOT,
      ] as ExportRow;
    });
  }
}
