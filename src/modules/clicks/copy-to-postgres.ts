/**
 * `slink copy-to`'s part of the raw clicks: a SQLite database's sealed segments and blocks, then
 * its tail, written into a PostgreSQL database, a chunk at a time in the caller's transaction,
 * with their ids, link and dimension ids and target ids as they are (the dictionary and the
 * targets are copied with their ids first).
 *
 * Both engines pack sealed clicks with the same codec (block-codec.ts), so SQLite's blocks go
 * over as bytes, whole segments per chunk, and the PostgreSQL sealer (postgres/seal.ts) goes on
 * after the last of them (copySealState). The tail's rows go to click_tail, one row each.
 *
 * The PostgreSQL engine decides uniques with click_uniques rows, today's and yesterday's (the
 * SQLite writer keeps them in memory, rebuilt from the first-visit flags): a chunk's human first
 * visits at or after `uniquesFrom` become its rows (a segment's blocks are decoded for that only
 * when it reaches that far).
 */
import type { Database } from 'bun:sqlite';
import type { Pg } from '../../db/postgres/client';
import { utcDay } from '../../lib/time';
import { DIM_COLUMNS, DIM_COUNT } from '../rollups/public';
import { type ClickColumns, decodeBlock } from './block-codec';
import { lastSealedId, TAIL_SELECT, tailColumns } from './sqlite/seal';
import { FLAG_BOT, FLAG_FIRST_OF_DAY } from './stored-click';

export { countClicks as countRawClicks } from './sqlite/raw-read';
export { readLastId as lastAssignedClickId } from './sqlite/tail-append';

const arrayText = (values: ArrayLike<number | string>): string => `{${Array.prototype.join.call(values, ',')}}`;

/** The stored visitor as PostgreSQL's int8 takes it: the signed 64 bits from their two halves. */
function visitorText(hi: number, lo: number): string {
  return (BigInt(hi) * 4294967296n + BigInt(lo)).toString();
}

/** click_uniques rows (day, link, visitor) gathered from a chunk's clicks. */
class Uniques {
  readonly day: number[] = [];
  readonly link: number[] = [];
  readonly visitor: string[] = [];

  constructor(private readonly from: number) {}

  add(link: number, c: ClickColumns, i: number): void {
    if ((c.flags[i]! & (FLAG_BOT | FLAG_FIRST_OF_DAY)) !== FLAG_FIRST_OF_DAY || c.time[i]! < this.from) return;
    this.day.push(utcDay(c.time[i]!));
    this.link.push(link);
    this.visitor.push(visitorText(c.visitorHi[i]!, c.visitorLo[i]!));
  }

  /** The three arrays as text, or null: none in the chunk. */
  texts(): string[] | null {
    return this.day.length > 0 ? [this.day, this.link, this.visitor].map(arrayText) : null;
  }
}

/** Inserts a chunk's uniques, only when it has some: a chunk of older days never touches click_uniques. */
async function writeUniques(tx: Pg, uniques: string[] | null): Promise<void> {
  if (uniques === null) return;
  await tx.unsafe(
    `INSERT INTO click_uniques (day, link, visitor)
     SELECT * FROM unnest($1::text::int4[], $2::text::int4[], $3::text::int8[]) ON CONFLICT DO NOTHING`,
    uniques,
  );
}

interface SegmentRow {
  seg: number;
  first_id: number;
  last_id: number;
  min_time: number;
  max_time: number;
  count: number;
}

interface BlockRow {
  seg: number;
  link: number;
  first_id: number;
  last_id: number;
  min_time: number;
  max_time: number;
  count: number;
  data: Uint8Array;
}

/** Whole sealed segments, their rows and their blocks as stored, and the last segment number in it. */
export interface BlockChunk {
  /** Clicks sealed in the chunk's segments (for progress). */
  rows: number;
  lastSeg: number;
  segments: SegmentRow[];
  blocks: BlockRow[];
  uniques: string[] | null;
}

/**
 * The segments after `afterSeg`, whole, of about `limit` clicks (at least one segment), or
 * null when none is left. Read while the previous chunk is being written.
 */
export function nextBlockChunk(
  sqlite: Database,
  afterSeg: number,
  limit: number,
  uniquesFrom: number,
): BlockChunk | null {
  const all = sqlite
    .query<SegmentRow, [number]>(
      'SELECT seg, first_id, last_id, min_time, max_time, count FROM click_segments WHERE seg > ? ORDER BY seg',
    )
    .all(afterSeg);
  const segments: SegmentRow[] = [];
  let rows = 0;
  for (const s of all) {
    if (segments.length > 0 && rows + s.count > limit) break;
    segments.push(s);
    rows += s.count;
  }
  if (segments.length === 0) return null;
  const read = sqlite.query<BlockRow, [number]>(
    `SELECT seg, link, first_id, last_id, min_time, max_time, count, data FROM click_blocks WHERE seg = ? ORDER BY link`,
  );
  const blocks: BlockRow[] = [];
  const uniques = new Uniques(uniquesFrom);
  for (const s of segments) {
    for (const b of read.all(s.seg)) {
      blocks.push(b);
      if (b.max_time < uniquesFrom) continue;
      const c = decodeBlock(b.data);
      for (let i = 0; i < c.count; i++) uniques.add(b.link, c, i);
    }
  }
  return { rows, lastSeg: segments[segments.length - 1]!.seg, segments, blocks, uniques: uniques.texts() };
}

/** Inserts a chunk of segments in the caller's transaction: their rows, their blocks' bytes, their uniques. */
export async function writeBlockChunk(tx: Pg, chunk: BlockChunk): Promise<void> {
  const column = <T>(rows: T[], key: keyof T & string, type: 'int4' | 'int8') =>
    tx`${tx.array(
      rows.map((r) => r[key] as number),
      type,
    )}::${tx.unsafe(type)}[]`;
  const s = chunk.segments;
  await tx`INSERT INTO click_segments (seg, first_id, last_id, min_time, max_time, count)
    SELECT * FROM unnest(${column(s, 'seg', 'int8')}, ${column(s, 'first_id', 'int8')}, ${column(s, 'last_id', 'int8')},
      ${column(s, 'min_time', 'int8')}, ${column(s, 'max_time', 'int8')}, ${column(s, 'count', 'int4')})`;
  const b = chunk.blocks;
  if (b.length > 0) {
    const data = tx.array(
      b.map((r) => r.data),
      'bytea',
    );
    await tx`INSERT INTO click_blocks (link, seg, first_id, last_id, min_time, max_time, count, data)
      SELECT * FROM unnest(${column(b, 'link', 'int4')}, ${column(b, 'seg', 'int8')}, ${column(b, 'first_id', 'int8')},
        ${column(b, 'last_id', 'int8')}, ${column(b, 'min_time', 'int8')}, ${column(b, 'max_time', 'int8')},
        ${column(b, 'count', 'int4')}, ${data}::bytea[])`;
  }
  await writeUniques(tx, chunk.uniques);
}

/**
 * A chunk of tail clicks ready to insert: each column as the text of a PostgreSQL array
 * (measured: a third faster to send and parse than the driver's typed array parameters), and
 * the last id it holds, where the next chunk starts.
 */
export interface TailChunk {
  rows: number;
  lastId: number;
  columns: string[];
  uniques: string[] | null;
}

/** Up to `limit` tail clicks with an id after `afterId`, or null when none is left. */
export function nextTailChunk(sqlite: Database, afterId: number, limit: number, uniquesFrom: number): TailChunk | null {
  const rows = sqlite
    .query<number[], [number, number]>(`SELECT link, ${TAIL_SELECT} FROM click_tail WHERE id > ? ORDER BY id LIMIT ?`)
    .values(afterId, limit) as number[][];
  if (rows.length === 0) return null;
  const c = tailColumns(rows, 1);
  const n = c.count;
  const link = Int32Array.from(rows, (r) => r[0]!);
  const visitor = Array.from({ length: n }, (_, i) => visitorText(c.visitorHi[i]!, c.visitorLo[i]!));
  const uniques = new Uniques(uniquesFrom);
  for (let i = 0; i < n; i++) uniques.add(link[i]!, c, i);
  return {
    rows: n,
    lastId: c.id[n - 1]!,
    columns: [link, c.id, c.time, c.target, ...c.dims, visitor, c.flags].map(arrayText),
    uniques: uniques.texts(),
  };
}

const TAIL_TYPES = ['int4', 'int8', 'int8', 'int4', ...Array.from({ length: DIM_COUNT }, () => 'int4'), 'int8', 'int2'];
const TAIL_INSERT = `INSERT INTO click_tail (link, id, time, target, ${DIM_COLUMNS.join(', ')}, visitor, flags)
  SELECT * FROM unnest(${TAIL_TYPES.map((t, i) => `$${i + 1}::text::${t}[]`).join(', ')})`;

/** Inserts a chunk of tail clicks in the caller's transaction, with its uniques. */
export async function writeTailChunk(tx: Pg, chunk: TailChunk): Promise<void> {
  await tx.unsafe(TAIL_INSERT, chunk.columns);
  await writeUniques(tx, chunk.uniques);
}

/**
 * click_tail's key is built once at the end of the copy instead of kept up row by row: the
 * tail's rows come in id order, and every link's run would land somewhere else in the index
 * (measured: a third of the insert time; the build at the end takes ~1 s per million rows). A
 * resumed copy finds it dropped already.
 */
export async function dropClickTailKey(tx: Pg): Promise<void> {
  await tx`ALTER TABLE click_tail DROP CONSTRAINT IF EXISTS click_tail_pkey`;
}

export async function restoreClickTailKey(tx: Pg): Promise<void> {
  await tx`ALTER TABLE click_tail ADD CONSTRAINT click_tail_pkey PRIMARY KEY (link, time, id)`;
}

/**
 * Where the PostgreSQL sealer goes on: sealed through SQLite's last sealed id (every click at or
 * below it is in a copied block), and segment numbers after SQLite's last one.
 */
export async function copySealState(sqlite: Database, tx: Pg): Promise<void> {
  const through = lastSealedId(sqlite);
  const seg = sqlite.query<{ seg: number | null }, []>('SELECT max(seg) AS seg FROM click_segments').get()!.seg ?? 0;
  if (through === 0 && seg === 0) return;
  await tx`INSERT INTO click_state (name, value) VALUES ('sealed_through', ${through}), ('last_seg', ${seg})
    ON CONFLICT (name) DO UPDATE SET value = excluded.value`;
}
