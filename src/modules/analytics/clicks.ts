/**
 * Raw clicks of a link: the paged list (newest first, keyset cursor) and the CSV export, with
 * the CONTRACT's click record fields in its order. The export reads in pages of its own, each
 * its own short read, so a million-row export neither holds memory nor blocks WAL checkpoints.
 */
import type { Database } from 'bun:sqlite';
import { invalid } from '../../lib/errors';
import { csvLine } from './csv';
import type { Click } from './model';
import { readClickPage, type ClickKey, type ClickRow } from './repo';
import type { Window } from './window';

export const CLICK_FIELDS = [
  'id', 'linkId', 'slug', 'timestamp', 'variantCode', 'variantKnown', 'destination', 'params', 'country', 'city',
  'device', 'os', 'browser', 'referrer', 'trafficType', 'language', 'bot',
] as const;

/** The link a list or export is about: its slug and its variants' ids as they are now. */
export interface ClickSource {
  sqlite: Database;
  linkId: string;
  slug: string;
  variantIds: ReadonlySet<string>;
}

function toClick(src: ClickSource, r: ClickRow): Click {
  return {
    id: r.id,
    linkId: r.link_id,
    slug: src.slug,
    timestamp: r.timestamp,
    variantCode: r.variant_code,
    // Known: the code named a variant when clicked, and that variant still exists.
    variantKnown: r.variant_id !== null && src.variantIds.has(r.variant_id),
    destination: r.destination,
    params: JSON.parse(r.params) as Record<string, string>,
    country: r.country,
    city: r.city,
    device: r.device,
    os: r.os,
    browser: r.browser,
    referrer: r.referrer,
    trafficType: r.traffic_type,
    language: r.language,
    bot: r.bot === 1,
  };
}

/** The first key past the window's end: every click at or before `to` is below it. */
function firstKey(w: Window): ClickKey {
  return { timestamp: w.to, id: Number.MAX_SAFE_INTEGER };
}

export function encodeClickCursor(key: ClickKey): string {
  return Buffer.from(`${key.timestamp}.${key.id}`).toString('base64url');
}

export function decodeClickCursor(cursor: string): ClickKey {
  const m = /^(\d{1,16})\.(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  const key = m ? { timestamp: Number(m[1]), id: Number(m[2]) } : null;
  if (!key || !Number.isSafeInteger(key.timestamp) || !Number.isSafeInteger(key.id)) {
    throw invalid('cursor', 'cursor is not a value returned by this endpoint');
  }
  return key;
}

export function listClicks(src: ClickSource, w: Window, limit: number, cursor: string | undefined): { items: Click[]; cursor: string | null } {
  let before = firstKey(w);
  if (cursor !== undefined) {
    const key = decodeClickCursor(cursor);
    // A cursor never widens the window: it can only move further back inside it.
    if (key.timestamp < before.timestamp || (key.timestamp === before.timestamp && key.id < before.id)) before = key;
  }
  // One extra row tells whether another page exists, so the last page has no dangling cursor.
  const rows = readClickPage(src.sqlite, src.linkId, w.from, before, w.bots, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map((r) => toClick(src, r)),
    cursor: rows.length > limit && last ? encodeClickCursor({ timestamp: last.timestamp, id: last.id }) : null,
  };
}

const EXPORT_PAGE = 5000;

function csvRecord(c: Click): string {
  return csvLine([
    c.id, c.linkId, c.slug, c.timestamp, c.variantCode, c.variantKnown, c.destination, JSON.stringify(c.params),
    c.country, c.city, c.device, c.os, c.browser, c.referrer, c.trafficType, c.language, c.bot,
  ]);
}

/**
 * The CSV as a pull stream: a page is read only when the client has taken the previous one.
 * Clicks recorded after the export started are above its first key and never join it.
 */
export function exportClicks(src: ClickSource, w: Window): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let before: ClickKey | null = firstKey(w);
  let headerSent = false;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (!headerSent) {
          headerSent = true;
          controller.enqueue(encoder.encode(csvLine(CLICK_FIELDS)));
          return;
        }
        if (before === null) {
          controller.close();
          return;
        }
        const rows = readClickPage(src.sqlite, src.linkId, w.from, before, w.bots, EXPORT_PAGE);
        let text = '';
        for (const r of rows) text += csvRecord(toClick(src, r));
        const last = rows[rows.length - 1];
        before = rows.length === EXPORT_PAGE && last ? { timestamp: last.timestamp, id: last.id } : null;
        if (text) controller.enqueue(encoder.encode(text));
        else controller.close();
      },
    },
    { highWaterMark: 1 },
  );
}
