/**
 * Sealing on PostgreSQL: the oldest tail clicks move into one new segment, packed per link with
 * SQLite's block codec (block-codec.ts, the same bytes, so `copy-to` moves SQLite's blocks as
 * they are), in one transaction: a sealed click costs its share of a block (~20-30 bytes and a
 * block row per link) instead of a ~140-byte tail row and its index entry.
 *
 * Only clicks no writer can still add below are sealed. Several writers take ids from one
 * sequence and commit in any order, so a sealer first takes a horizon (takeHorizon): every
 * batch holds CLICK_BARRIER_LOCK shared for its whole transaction (postgres/store.ts), so
 * whoever holds it exclusively knows that every id the sequence gave so far belongs to a
 * committed batch or to none; the sequence's value is then the horizon, and later batches take
 * ids above it. A click written later with an old time (a spill replay) takes a new id and
 * waits in the tail for a later segment; readers merge by (time, id), whatever the segment.
 *
 * One sealer at a time across connections and nodes: CLICK_SEAL_LOCK, tried inside the seal's
 * transaction (a second sealer skips its turn). The seal deletes its tail rows with DELETE ...
 * RETURNING and packs exactly what it deleted, so a link's deletion or a retention step deleting
 * the same rows at the same moment wins each row or loses it whole: no click is packed after its
 * row went, and a link deleted meanwhile finds the block (delete.ts deletes blocks after rows).
 *
 * `click_state` keeps `sealed_through` (every click with an id at or below it is sealed or gone)
 * and `last_seg` (segment numbers are never given twice, even after retention dropped the newest).
 */
import { intList, joinBytes, num, type Pg } from '../../../db/postgres/client';
import { CLICK_BARRIER_LOCK, CLICK_SEAL_LOCK } from '../../../db/postgres/locks';
import { DIM_COLUMNS, DIM_COUNT } from '../../rollups/public';
import { emptyColumns, encodeBlock } from '../block-codec';
import { SEAL_ROWS } from '../stored-click';

/**
 * Clicks per segment on PostgreSQL, at least: four times SQLite's. SQLite's threshold is set by
 * its tail, which every list page scans; PostgreSQL's tail is indexed by (link, time, id), so a
 * longer one costs a page nothing, and larger segments pack each link's clicks into fewer,
 * larger blocks. Measured with a million clicks over 10,000 links (one with 11% of them, the
 * rest Zipf): blocks 52.3 bytes per click at 32,768, 46.1 at 65,536, 37.9 at 131,072; the
 * tail 6 MB against 25 MB; a seal ~9 us per click either way, ~1.5 s at a time on a loaded
 * 2-core box (SQLite's writer pauses as long for a fold).
 */
export const PG_SEAL_ROWS = 4 * SEAL_ROWS;

/** A backlog (a long outage, a spill replay) is sealed at most this many segments' worth at a time. */
const MAX_SEGMENT_FACTOR = 2;

/**
 * How long taking a horizon waits for the batches in flight. New batches queue behind a waiting
 * exclusive request, so the wait is short: a batch held open longer (a spill replay's) makes
 * the sealer skip its turn instead of stalling every writer.
 */
export const HORIZON_WAIT_MS = 2000;

/**
 * The horizon: every click id at or below it is committed or never will be. Null when the
 * batches in flight did not end within `waitMs` (tried again after a later batch).
 */
export async function takeHorizon(sql: Pg, waitMs = HORIZON_WAIT_MS): Promise<number | null> {
  try {
    return await sql.begin(async (tx) => {
      await tx`SELECT set_config('lock_timeout', ${`${Math.max(1, Math.round(waitMs))}ms`}, true)`;
      await tx`SELECT pg_advisory_xact_lock(${CLICK_BARRIER_LOCK})`;
      // The sequence is CACHE 1 (migration 0002): its value is the last id any session was given.
      const [r] = await tx`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS id FROM click_ids`;
      return num(r.id);
    });
  } catch (err) {
    if (isLockTimeout(err)) return null;
    throw err;
  }
}

function isLockTimeout(err: unknown): boolean {
  const e = err as { errno?: string; code?: string; message?: string };
  return e.errno === '55P03' || e.code === '55P03' || /lock timeout/i.test(e.message ?? '');
}

/** Where sealing stands: ids sealed through, and the last segment number given. */
const SEAL_STATE = `SELECT
    greatest(coalesce((SELECT value FROM click_state WHERE name = 'sealed_through'), 0),
      coalesce((SELECT max(last_id) FROM click_segments), 0)) AS through,
    greatest(coalesce((SELECT value FROM click_state WHERE name = 'last_seg'), 0),
      coalesce((SELECT max(seg) FROM click_segments), 0)) AS seg`;

/** The tail row as the codec's columns need it; int8s as float8 (exact below 2^53) so they come back as numbers. */
const RETURNING = `link, id::float8, time::float8, target, ${DIM_COLUMNS.join(', ')},
  (visitor >> 32)::int4, (visitor & 4294967295)::float8, flags`;

export interface SealBounds {
  /** Seal only when the ids to seal span at least this many (the threshold). */
  minRows: number;
  /** Seal the ids of at most this many: a backlog is sealed a bounded step at a time. */
  maxRows: number;
}

/**
 * Seals every tail click with an id at or below `horizon` (a value takeHorizon gave) and not
 * more than `maxRows` ids past the last seal, as one new segment, in one transaction; returns
 * how many. 0 when another sealer holds the lock, or fewer than `minRows` ids are due.
 */
export async function sealSegmentPg(sql: Pg, horizon: number, bounds: SealBounds): Promise<number> {
  return sql.begin(async (tx) => {
    const [lock] = await tx`SELECT pg_try_advisory_xact_lock(${CLICK_SEAL_LOCK}) AS got`;
    if (!lock.got) return 0;
    const [state] = await tx.unsafe(SEAL_STATE);
    const through = num(state.through);
    if (horizon - through < Math.max(1, bounds.minRows)) return 0;
    const upTo = Math.min(horizon, through + bounds.maxRows);
    const rows = (await tx
      .unsafe(`DELETE FROM click_tail WHERE id <= $1 RETURNING ${RETURNING}`, [upTo])
      .values()) as number[][];
    let seg = num(state.seg);
    if (rows.length > 0) {
      seg++;
      await writeSegment(tx, seg, rows);
    }
    await tx`INSERT INTO click_state (name, value) VALUES ('sealed_through', ${upTo}), ('last_seg', ${seg})
      ON CONFLICT (name) DO UPDATE SET value = excluded.value`;
    return rows.length;
  });
}

/** Packs rows (RETURNING's columns) per link and inserts the blocks and the segment's row. */
async function writeSegment(tx: Pg, seg: number, rows: number[][]): Promise<void> {
  const n = rows.length;
  const c = emptyColumns(n);
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => rows[a]![1]! - rows[b]![1]!);
  const links = new Int32Array(n);
  // Columns in id order: the codec packs a block's rows in id order.
  for (let k = 0; k < n; k++) {
    const r = rows[order[k]!]!;
    links[k] = r[0]!;
    c.id[k] = r[1]!;
    c.time[k] = r[2]!;
    c.target[k] = r[3]!;
    for (let d = 0; d < DIM_COUNT; d++) c.dims[d]![k] = r[4 + d]!;
    c.visitorHi[k] = r[4 + DIM_COUNT]!;
    c.visitorLo[k] = r[5 + DIM_COUNT]!;
    c.flags[k] = r[6 + DIM_COUNT]!;
  }
  const byLink = new Map<number, number[]>();
  for (let k = 0; k < n; k++) {
    const list = byLink.get(links[k]!);
    if (list) list.push(k);
    else byLink.set(links[k]!, [k]);
  }
  const block = { link: [] as number[], first: [] as number[], last: [] as number[], min: [] as number[] };
  const more = { max: [] as number[], count: [] as number[], data: [] as Uint8Array[] };
  for (const [link, list] of byLink) {
    let minTime = Number.POSITIVE_INFINITY;
    let maxTime = Number.NEGATIVE_INFINITY;
    for (const k of list) {
      const t = c.time[k]!;
      if (t < minTime) minTime = t;
      if (t > maxTime) maxTime = t;
    }
    block.link.push(link);
    block.first.push(c.id[list[0]!]!);
    block.last.push(c.id[list[list.length - 1]!]!);
    block.min.push(minTime);
    more.max.push(maxTime);
    more.count.push(list.length);
    more.data.push(encodeBlock(c, list));
  }
  // Integer columns as array literals and every block's bytes in one bytea parameter, each row
  // its substring: `sql.array` turns each element into quoted text, a block's bytes into hex,
  // at several times the cost (docs/decisions/2026-11-30-fold-statements-text.md).
  const blob = joinBytes(more.data);
  await tx`INSERT INTO click_blocks (link, seg, first_id, last_id, min_time, max_time, count, data)
    SELECT u.link, ${seg}, u.first_id, u.last_id, u.min_time, u.max_time, u.count,
      substring(${blob.bytes}::bytea FROM u.at FOR u.length)
    FROM unnest(${intList(block.link)}::int4[], ${intList(block.first)}::int8[],
      ${intList(block.last)}::int8[], ${intList(block.min)}::int8[],
      ${intList(more.max)}::int8[], ${intList(more.count)}::int4[],
      ${intList(blob.at)}::int4[], ${intList(blob.lengths)}::int4[])
      AS u(link, first_id, last_id, min_time, max_time, count, at, length)
    ORDER BY u.link`;
  let minTime = Number.POSITIVE_INFINITY;
  let maxTime = Number.NEGATIVE_INFINITY;
  for (const t of c.time) {
    if (t < minTime) minTime = t;
    if (t > maxTime) maxTime = t;
  }
  await tx`INSERT INTO click_segments (seg, first_id, last_id, min_time, max_time, count)
    VALUES (${seg}, ${c.id[0]!}, ${c.id[n - 1]!}, ${minTime}, ${maxTime}, ${n})`;
}

/**
 * A seal deletes a segment's worth of tail rows at once, every few seconds under load, while
 * autovacuum looks at most once a minute: vacuumed right away, the next batches reuse their
 * space instead of growing the table and its index by a segment each time (measured: the tail
 * at 70 MB for 14,000 live rows after a million clicks without it). Skipped when another
 * vacuum of it runs.
 */
async function vacuumTail(sql: Pg): Promise<void> {
  await sql`VACUUM (SKIP_LOCKED) click_tail`;
}

export interface SealerOptions {
  /** Clicks per segment, at least (PG_SEAL_ROWS; tests seal sooner). */
  rows?: number;
  /** How long a horizon waits for the batches in flight (HORIZON_WAIT_MS). */
  waitMs?: number;
}

/** Seals when a segment's worth of clicks is due; the click store asks after each batch. */
export class PgSealer {
  private readonly rows: number;
  private readonly waitMs: number;
  private running: Promise<number> | null = null;

  constructor(
    private readonly sql: Pg,
    options: SealerOptions = {},
  ) {
    this.rows = options.rows ?? PG_SEAL_ROWS;
    this.waitMs = options.waitMs ?? HORIZON_WAIT_MS;
  }

  /**
   * Starts sealIfDue unless a seal of this sealer is under way, without waiting for it: a seal
   * takes seconds when its segment spans many links (100,000 blocks: ~2 s to insert, measured),
   * and the writer's next batches need not wait (a seal takes no lock a batch takes; its
   * horizon waits for the batch in flight, not the other way). Never throws.
   */
  sealSoon(): void {
    if (this.running !== null) return;
    this.running = this.sealIfDue().finally(() => {
      this.running = null;
    });
  }

  /** Once the seal under way (if any) has ended; what it sealed (0 without one). */
  async idle(): Promise<number> {
    return (await this.running) ?? 0;
  }

  /**
   * One segment when the ids given since the last seal span `rows` (ids are dense: only a
   * deleted link's clicks and a failed batch leave gaps, so the span stands in for a count, as
   * on SQLite), of at most MAX_SEGMENT_FACTOR times that. Asked first without any lock, so a
   * batch that finds nothing due costs one small read. Never throws: the batch before it is
   * committed, and a failed seal is tried again after the next one.
   */
  async sealIfDue(): Promise<number> {
    try {
      const [due] = await this.sql.unsafe(
        `SELECT (SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM click_ids) AS last, s.through
         FROM (${SEAL_STATE}) s`,
      );
      if (num(due.last) - num(due.through) < this.rows) return 0;
      const horizon = await takeHorizon(this.sql, this.waitMs);
      if (horizon === null) return 0;
      const sealed = await sealSegmentPg(this.sql, horizon, {
        minRows: this.rows,
        maxRows: this.rows * MAX_SEGMENT_FACTOR,
      });
      if (sealed > 0) await vacuumTail(this.sql);
      return sealed;
    } catch (err) {
      console.error(`sealing clicks failed (tried again after the next batch): ${String(err)}`);
      return 0;
    }
  }
}
