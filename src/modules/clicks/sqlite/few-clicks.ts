/**
 * The raw clicks of many links at once on SQLite, for links with few clicks (the workspace
 * export, in its Worker): one pass over the tail for the whole group (the tail has no index by
 * link: a link's own read scans all of it, ~5 ms at 30,000 rows), one statement for the group's
 * blocks, driven by the segments the window overlaps, then each block by its key. The same keys,
 * order and filter as LinkClickReader (raw-read.ts). A link with more than `limit` clicks that
 * could pass (its tail rows and its blocks' counts) is answered null: its caller reads it page
 * by page. Runs in one read transaction, so a seal never shows a click twice or not at all.
 */
import type { Database } from 'bun:sqlite';
import { decodeBlock } from '../block-codec';
import { type ClickFilter, type ClickRef, mergeInto, sortNewestFirst, takeBelow } from '../block-page';
import { type ExportRow, exportRow } from '../read-clicks';
import { clickNames, dimensionTexts, targetOf } from './raw-read';
import { TAIL_SELECT, tailColumns } from './seal';

const EVERYTHING = { timestamp: Number.MAX_SAFE_INTEGER, id: Number.MAX_SAFE_INTEGER };

function fewClicksOfLinks(
  sqlite: Database,
  scopes: readonly number[],
  filter: ClickFilter,
  limit: number,
): Map<number, ClickRef[] | null> {
  const out = new Map<number, ClickRef[] | null>();
  if (scopes.length === 0) return out;
  const maxId = Number.isFinite(filter.maxId) ? filter.maxId : Number.MAX_SAFE_INTEGER;
  const list = JSON.stringify(scopes);
  const tailRows = sqlite
    .query<number[], [string, number, number, number]>(
      `SELECT link, ${TAIL_SELECT} FROM click_tail
       WHERE link IN (SELECT value FROM json_each(?)) AND time >= ? AND id <= ? AND (flags & 1) <= ?`,
    )
    .values(list, filter.from, maxId, filter.bots ? 1 : 0) as number[][];
  const tails = new Map<number, number[][]>();
  for (const r of tailRows) {
    const rows = tails.get(r[0]!);
    if (rows) rows.push(r);
    else tails.set(r[0]!, [r]);
  }
  // Segments first (CROSS JOIN keeps the order): each then finds the group's blocks by its key.
  const metas = sqlite
    .query<{ link: number; seg: number; count: number }, [string, number, number]>(
      `SELECT b.link, b.seg, b.count FROM click_segments s
       CROSS JOIN click_blocks b ON b.seg = s.seg AND b.link IN (SELECT value FROM json_each(?))
       WHERE s.max_time >= ? AND s.first_id <= ?`,
    )
    .all(list, filter.from, maxId);
  const segs = new Map<number, number[]>();
  const counted = new Map<number, number>();
  for (const [link, rows] of tails) counted.set(link, rows.length);
  for (const m of metas) {
    counted.set(m.link, (counted.get(m.link) ?? 0) + m.count);
    const list = segs.get(m.link);
    if (list) list.push(m.seg);
    else segs.set(m.link, [m.seg]);
  }
  const block = sqlite.query<{ data: Uint8Array }, [number, number]>(
    'SELECT data FROM click_blocks WHERE seg = ? AND link = ?',
  );
  for (const scope of scopes) {
    if ((counted.get(scope) ?? 0) > limit) {
      out.set(scope, null);
      continue;
    }
    const tail = tailColumns(tails.get(scope) ?? [], 1);
    let page = mergeInto(
      [],
      Array.from({ length: tail.count }, (_, i) => ({ c: tail, i })),
      limit,
    );
    for (const seg of segs.get(scope) ?? []) {
      const row = block.get(seg, scope);
      if (row === null) continue;
      page = mergeInto(
        page,
        takeBelow(sortNewestFirst(decodeBlock(row.data)), EVERYTHING, filter, maxId, limit),
        limit,
      );
    }
    out.set(scope, page);
  }
  return out;
}

/** The export rows of links with few clicks, by scope; null for a link to read page by page (ExportPages). */
export function fewClicksRows(
  sqlite: Database,
  scopes: readonly number[],
  filter: ClickFilter,
  limit: number,
): Map<number, ExportRow[] | null> {
  return sqlite.transaction(() => {
    const names = clickNames(sqlite);
    const out = new Map<number, ExportRow[] | null>();
    for (const [scope, page] of fewClicksOfLinks(sqlite, scopes, filter, limit))
      out.set(
        scope,
        page === null
          ? null
          : page.map(({ c, i }) => exportRow(c, i, targetOf(names, c.target[i]!), dimensionTexts(names, c, i))),
      );
    return out;
  })();
}
