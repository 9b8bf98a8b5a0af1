/**
 * `slink copy-to`'s part of the raw clicks: a SQLite database's clicks (its sealed blocks, then
 * its tail) written into a PostgreSQL database's click_tail, a chunk of whole segments at a time,
 * in the caller's transaction, with their ids, link and dimension ids and target ids as they are
 * (the dictionary and the targets are copied with their ids first).
 *
 * They go to click_tail, one row each, what the PostgreSQL writer produces and its readers
 * read (postgres/store.ts): PostgreSQL keeps no sealed blocks yet, so SQLite's blocks are
 * unpacked rather than copied as bytes.
 *
 * The PostgreSQL engine decides uniques with click_uniques rows, today's and yesterday's (the
 * SQLite writer keeps them in memory, rebuilt from the first-visit flags): a chunk's human first
 * visits at or after `uniquesFrom` become its rows.
 */
import type { Database } from 'bun:sqlite';
import type { Pg } from '../../db/postgres/client';
import { utcDay } from '../../lib/time';
import { DIM_COLUMNS, DIM_COUNT } from '../rollups/public';
import { type ClickColumns, decodeBlock } from './block-codec';
import { firstVisitsSince } from './sqlite/raw-read';
import { TAIL_SELECT, tailColumns } from './sqlite/seal';
import { FLAG_BOT, FLAG_FIRST_OF_DAY } from './sqlite/tail-append';

export { countClicks as countRawClicks } from './sqlite/raw-read';
export { readLastId as lastAssignedClickId } from './sqlite/tail-append';

/**
 * A chunk of clicks ready to insert: each column as the text of a PostgreSQL array (measured:
 * a third faster to send and parse than the driver's typed array parameters), and the last id
 * it holds, where the next chunk starts.
 */
export interface ClickChunk {
  rows: number;
  lastId: number;
  columns: string[];
  /** The click_uniques rows (day, link, visitor) as three arrays, or null: none in the chunk. */
  uniques: string[] | null;
}

const arrayText = (values: ArrayLike<number | string>): string => `{${Array.prototype.join.call(values, ',')}}`;

/** Clicks of a chunk, column by column: a block (one link) or the tail's rows (a link each). */
interface Part {
  c: ClickColumns;
  /** The first row after the chunk's start. */
  from: number;
  linkOf(i: number): number;
}

function sealedAfter(sqlite: Database, afterId: number, limit: number): Part[] {
  const segs = sqlite
    .query<{ seg: number; count: number }, [number]>(
      'SELECT seg, count FROM click_segments WHERE last_id > ? ORDER BY seg',
    )
    .all(afterId);
  const blocks = sqlite.query<{ link: number; data: Uint8Array }, [number]>(
    'SELECT link, data FROM click_blocks WHERE seg = ? ORDER BY link',
  );
  const parts: Part[] = [];
  let rows = 0;
  // Whole segments, at least one: the next chunk starts after the last one's ids.
  for (const { seg, count } of segs) {
    if (rows > 0 && rows + count > limit) break;
    for (const b of blocks.all(seg)) {
      const c = decodeBlock(b.data);
      let from = 0;
      while (from < c.count && c.id[from]! <= afterId) from++;
      if (from < c.count) parts.push({ c, from, linkOf: () => b.link });
    }
    rows += count;
  }
  return parts;
}

function tailAfter(sqlite: Database, afterId: number, limit: number): Part[] {
  const rows = sqlite
    .query<number[], [number, number]>(`SELECT link, ${TAIL_SELECT} FROM click_tail WHERE id > ? ORDER BY id LIMIT ?`)
    .values(afterId, limit) as number[][];
  if (rows.length === 0) return [];
  return [{ c: tailColumns(rows, 1), from: 0, linkOf: (i) => rows[i]![0]! }];
}

/** The stored visitor as PostgreSQL's int8 takes it: the signed 64 bits from their two halves. */
function visitorText(hi: number, lo: number): string {
  return (BigInt(hi) * 4294967296n + BigInt(lo)).toString();
}

/**
 * The clicks after `afterId`: whole sealed segments of about `limit` clicks, or up to `limit`
 * tail rows; null when none is left. Read while the previous chunk is being written.
 */
export function nextClickChunk(
  sqlite: Database,
  afterId: number,
  limit: number,
  uniquesFrom: number,
): ClickChunk | null {
  let parts = sealedAfter(sqlite, afterId, limit);
  if (parts.length === 0) parts = tailAfter(sqlite, afterId, limit);
  if (parts.length === 0) return null;
  let n = 0;
  for (const p of parts) n += p.c.count - p.from;
  const link = new Int32Array(n);
  const id = new Float64Array(n);
  const time = new Float64Array(n);
  const target = new Int32Array(n);
  const dims = Array.from({ length: DIM_COUNT }, () => new Int32Array(n));
  const visitor = new Array<string>(n);
  const flags = new Int16Array(n);
  const uniques: { day: number[]; link: number[]; visitor: string[] } = { day: [], link: [], visitor: [] };
  let at = 0;
  let lastId = afterId;
  for (const p of parts) {
    const c = p.c;
    for (let i = p.from; i < c.count; i++, at++) {
      link[at] = p.linkOf(i);
      id[at] = c.id[i]!;
      time[at] = c.time[i]!;
      target[at] = c.target[i]!;
      for (let d = 0; d < DIM_COUNT; d++) dims[d]![at] = c.dims[d]![i]!;
      visitor[at] = visitorText(c.visitorHi[i]!, c.visitorLo[i]!);
      flags[at] = c.flags[i]!;
      if (c.id[i]! > lastId) lastId = c.id[i]!;
      if ((c.flags[i]! & (FLAG_BOT | FLAG_FIRST_OF_DAY)) === FLAG_FIRST_OF_DAY && c.time[i]! >= uniquesFrom) {
        uniques.day.push(utcDay(c.time[i]!));
        uniques.link.push(link[at]!);
        uniques.visitor.push(visitor[at]!);
      }
    }
  }
  return {
    rows: n,
    lastId,
    columns: [link, id, time, target, ...dims, visitor, flags].map(arrayText),
    uniques: uniques.day.length > 0 ? [uniques.day, uniques.link, uniques.visitor].map(arrayText) : null,
  };
}

const TAIL_TYPES = ['int4', 'int8', 'int8', 'int4', ...Array.from({ length: DIM_COUNT }, () => 'int4'), 'int8', 'int2'];
const TAIL_INSERT = `INSERT INTO click_tail (link, id, time, target, ${DIM_COLUMNS.join(', ')}, visitor, flags)
  SELECT * FROM unnest(${TAIL_TYPES.map((t, i) => `$${i + 1}::text::${t}[]`).join(', ')})`;

/** Inserts a chunk in the caller's transaction (its first visits too, only when it has some: a chunk of older days never touches click_uniques). */
export async function writeClickChunk(tx: Pg, chunk: ClickChunk): Promise<void> {
  await tx.unsafe(TAIL_INSERT, chunk.columns);
  if (chunk.uniques !== null) {
    await tx.unsafe(
      `INSERT INTO click_uniques (day, link, visitor)
       SELECT * FROM unnest($1::text::int4[], $2::text::int4[], $3::text::int8[]) ON CONFLICT DO NOTHING`,
      chunk.uniques,
    );
  }
}

/**
 * click_tail's key is built once at the end of the copy instead of kept up row by row: the
 * copy inserts a segment's clicks link after link, so every link's run would land somewhere
 * else in the index (measured: a third of the insert time; the build at the end takes ~1 s per
 * million rows). A resumed copy finds it dropped already.
 */
export async function dropClickTailKey(tx: Pg): Promise<void> {
  await tx`ALTER TABLE click_tail DROP CONSTRAINT IF EXISTS click_tail_pkey`;
}

export async function restoreClickTailKey(tx: Pg): Promise<void> {
  await tx`ALTER TABLE click_tail ADD CONSTRAINT click_tail_pkey PRIMARY KEY (link, time, id)`;
}

/** The distinct (day, link, visitor) first visits at or after `from`: the click_uniques rows a copy makes. */
export function countFirstVisitsSince(sqlite: Database, from: number): number {
  const seen = new Set<string>();
  firstVisitsSince(sqlite, from, (linkId, time, visitor) => seen.add(`${utcDay(time)}|${linkId}|${visitor}`));
  return seen.size;
}

/** Raw clicks per link value id, of the links asked for (the tail's and the blocks'). */
export function rawClicksOf(sqlite: Database, links: readonly number[]): Map<number, number> {
  const out = new Map<number, number>(links.map((l) => [l, 0]));
  if (links.length === 0) return out;
  const list = links.join(', ');
  for (const r of sqlite
    .query<{ link: number; n: number }, []>(
      `SELECT link, count(*) AS n FROM click_tail WHERE link IN (${list}) GROUP BY link
       UNION ALL SELECT link, sum(count) FROM click_blocks WHERE link IN (${list}) GROUP BY link`,
    )
    .all())
    out.set(r.link, out.get(r.link)! + r.n);
  return out;
}
