/**
 * Raw clicks of a link: the paged list (newest first, keyset cursor) with the click record
 * fields (docs/behaviour.md, "Raw clicks"), and the CSV export's response body (the CSV itself
 * is built by ExportCursor, in the export Worker).
 */
import { invalid } from '../../lib/errors';
import { type ClickKey, keyAbove, type ListedClick } from '../clicks/public';
import { clickRecord } from '../webhooks/public';
import type { ExportChunks } from './export-chunks';
import type { Click } from './model';
import type { AnalyticsStore } from './store';
import type { Window } from './window';

/** The link a list or export is about: its slug, its domain's host and its variants' ids as they are now. */
export interface ClickSource {
  store: AnalyticsStore;
  linkId: string;
  slug: string;
  domain: string;
  variantIds: ReadonlySet<string>;
}

/** Known: the code named a variant when clicked, and that variant still exists. */
function variantKnown(src: ClickSource, r: ListedClick): boolean {
  return r.variantId !== null && src.variantIds.has(r.variantId);
}

export function encodeClickCursor(key: ClickKey): string {
  return Buffer.from(`${key.timestamp}.${key.id}`).toString('base64url');
}

function decodeClickCursor(cursor: string): ClickKey {
  const m = /^(\d{1,16})\.(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString('latin1'));
  const key = m ? { timestamp: Number(m[1]), id: Number(m[2]) } : null;
  if (!key || !Number.isSafeInteger(key.timestamp) || !Number.isSafeInteger(key.id)) {
    throw invalid('cursor', 'cursor is not a value returned by this endpoint');
  }
  return key;
}

/**
 * A page of the window's clicks, newest first. `retainedFrom` (retention.ts, null when off):
 * clicks before it are not listed, whether or not the writer has deleted them yet.
 */
export async function listClicks(
  src: ClickSource,
  w: Window,
  limit: number,
  cursor: string | undefined,
  retainedFrom: number | null = null,
): Promise<{ items: Click[]; cursor: string | null; retainedFrom: number | null }> {
  let before = keyAbove(w.to);
  if (cursor !== undefined) {
    const key = decodeClickCursor(cursor);
    // A cursor never widens the window: it can only move further back inside it.
    if (key.timestamp < before.timestamp || (key.timestamp === before.timestamp && key.id < before.id)) before = key;
  }
  // One extra row tells whether another page exists, so the last page has no dangling cursor.
  const from = retainedFrom === null ? w.from : Math.max(w.from, retainedFrom);
  const rows = await src.store.clickPage(src.linkId, from, before, w.bots, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map((r) =>
      clickRecord(
        { id: r.id, timestamp: r.timestamp, facts: r },
        { id: src.linkId, slug: src.slug, domain: src.domain },
        variantKnown(src, r),
      ),
    ),
    cursor: rows.length > limit && last ? encodeClickCursor({ timestamp: last.timestamp, id: last.id }) : null,
    retainedFrom,
  };
}

/**
 * The CSV body: one chunk per pull and no queue of its own (high-water mark 0), so a slow
 * client is never sent more than the socket takes; the next chunk is already being built
 * meanwhile (ExportHost).
 */
export function exportStream(chunks: ExportChunks): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const chunk = await chunks.next();
        if (chunk === null) controller.close();
        else controller.enqueue(chunk);
      },
      cancel: () => chunks.cancel(),
    },
    { highWaterMark: 0 },
  );
}
