/**
 * Sealing: the tail's clicks move into one new segment, packed per link (block-codec.ts).
 * The tail then stays small (a reader scans it whole), and a sealed click costs a third of a
 * tail row. Only clicks already counted in the rollups are sealed (`through`), so a restart
 * that recounts unfolded clicks finds them all in the tail.
 */
import type { Database } from 'bun:sqlite';
import { DIM_COLUMNS, DIM_COUNT } from '../../rollups/public';
import { type ClickColumns, emptyColumns, encodeBlock } from '../block-codec';
import { SEAL_ROWS } from '../stored-click';

/** The tail's columns as SQL gives them: the visitor in two halves, each a safe JavaScript number. */
export const TAIL_SELECT = `id, time, target, ${DIM_COLUMNS.join(', ')}, visitor >> 32, visitor & 4294967295, flags`;

/** Rows selected with TAIL_SELECT (after `skip` leading columns) as columns. */
export function tailColumns(rows: number[][], skip = 0): ClickColumns {
  const c = emptyColumns(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    c.id[i] = r[skip]!;
    c.time[i] = r[skip + 1]!;
    c.target[i] = r[skip + 2]!;
    for (let d = 0; d < DIM_COUNT; d++) c.dims[d]![i] = r[skip + 3 + d]!;
    const after = skip + 3 + DIM_COUNT;
    c.visitorHi[i] = r[after]!;
    c.visitorLo[i] = r[after + 1]!;
    c.flags[i] = r[after + 2]!;
  }
  return c;
}

/** The newest sealed click id (0 before the first seal). */
export function lastSealedId(sqlite: Database): number {
  return (
    sqlite.query<{ id: number }, []>('SELECT last_id AS id FROM click_segments ORDER BY seg DESC LIMIT 1').get()?.id ??
    0
  );
}

/** Moves every tail click with id <= `through` into a new segment, in one transaction; returns how many. */
export function sealThrough(sqlite: Database, through: number): number {
  return sqlite
    .transaction(() => {
      const rows = sqlite
        .query<number[], [number]>(`SELECT link, ${TAIL_SELECT} FROM click_tail WHERE id <= ? ORDER BY id`)
        .values(through) as number[][];
      if (rows.length === 0) return 0;
      const cols = tailColumns(rows, 1);
      const byLink = new Map<number, number[]>();
      for (let i = 0; i < rows.length; i++) {
        const link = rows[i]![0]!;
        const list = byLink.get(link);
        if (list) list.push(i);
        else byLink.set(link, [i]);
      }
      const seg = sqlite
        .query<{ seg: number }, []>('SELECT coalesce(max(seg), 0) + 1 AS seg FROM click_segments')
        .get()!.seg;
      const insert = sqlite.prepare(
        `INSERT INTO click_blocks (seg, link, first_id, last_id, min_time, max_time, count, data)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      // In link order: the (seg, link) key then only ever grows, every insert at the tree's end.
      for (const link of [...byLink.keys()].sort((a, b) => a - b)) {
        const list = byLink.get(link)!;
        let minTime = Number.POSITIVE_INFINITY;
        let maxTime = Number.NEGATIVE_INFINITY;
        for (const i of list) {
          const t = cols.time[i]!;
          if (t < minTime) minTime = t;
          if (t > maxTime) maxTime = t;
        }
        insert.run(
          seg,
          link,
          cols.id[list[0]!]!,
          cols.id[list[list.length - 1]!]!,
          minTime,
          maxTime,
          list.length,
          encodeBlock(cols, list),
        );
      }
      let minTime = Number.POSITIVE_INFINITY;
      let maxTime = Number.NEGATIVE_INFINITY;
      for (const t of cols.time) {
        if (t < minTime) minTime = t;
        if (t > maxTime) maxTime = t;
      }
      sqlite
        .query(
          'INSERT INTO click_segments (seg, first_id, last_id, min_time, max_time, count) VALUES (?, ?, ?, ?, ?, ?)',
        )
        .run(seg, cols.id[0]!, cols.id[rows.length - 1]!, minTime, maxTime, rows.length);
      sqlite.query('DELETE FROM click_tail WHERE id <= ?').run(through);
      return rows.length;
    })
    .immediate();
}

/** How much larger than SEAL_ROWS one segment may grow when there is a backlog to seal. */
const MAX_SEGMENT_FACTOR = 4;

/**
 * Seals every tail click with id <= `through`, SEAL_ROWS at a time (one transaction each, so
 * memory stays bounded however long the tail is); returns how many. For a backlog known at
 * start, before the writer runs (the upgrade's converted clicks).
 */
export function sealBacklog(sqlite: Database, through: number, rows = SEAL_ROWS): number {
  let sealed = 0;
  for (let from = lastSealedId(sqlite); from < through; from = Math.min(through, from + rows)) {
    sealed += sealThrough(sqlite, Math.min(through, from + rows));
  }
  return sealed;
}

/** Seals when enough clicks are sealable; the writer calls it after each batch. */
export class Sealer {
  /** The newest id sealed or found with nothing to seal; read at the first call. */
  private sealed: number | null = null;

  constructor(
    private readonly sqlite: Database,
    private readonly rows = SEAL_ROWS,
  ) {}

  /**
   * Seals the clicks with id <= `through` when there are SEAL_ROWS of them. Ids are dense
   * (only a link's deletion leaves gaps), so the id range stands in for a count. Never throws:
   * the batch is already committed, and a failed seal is tried again after the next one.
   */
  sealIfDue(through: number): number {
    try {
      this.sealed ??= lastSealedId(this.sqlite);
      if (through - this.sealed < this.rows) return 0;
      // One segment per batch, of at most MAX_SEGMENT_FACTOR times the threshold: a backlog (a
      // tail left by an upgrade, a long outage) is sealed a bounded step at a time.
      const upTo = Math.min(through, this.sealed + this.rows * MAX_SEGMENT_FACTOR);
      const n = sealThrough(this.sqlite, upTo);
      this.sealed = upTo;
      return n;
    } catch (err) {
      console.error(`sealing clicks failed (tried again after the next batch): ${String(err)}`);
      return 0;
    }
  }
}
