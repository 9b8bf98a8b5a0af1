/**
 * A link's raw clicks read back on PostgreSQL, newest first by (time, id): its tail rows and its
 * sealed blocks (postgres/seal.ts), merged as on SQLite (block-page.ts).
 *
 * A page is one statement, so one snapshot: the link's tail rows below the page's key (primary
 * key (link, time, id): a range) together with the list of its blocks that can hold a row of it.
 * A seal committing later moves rows from the tail into a new block; the statement saw them in
 * the tail and not the block, or (the next page) in the block and not the tail, never both or
 * neither. The blocks' bytes are read after it, by (link, seg): a block never changes once
 * written and its segment number is never given again, so they cannot differ from what the
 * statement saw; they can only be gone (the link deleted, or retention), which a reader notices.
 */
import { num, type Pg } from '../../../db/postgres/client';
import { BoundedCache } from '../../../lib/bounded-cache';
import { linkExistsCondition } from '../../links/public';
import { DIM_COLUMNS, DIM_COUNT } from '../../rollups/public';
import { decodeBlock, emptyColumns } from '../block-codec';
import {
  belowFullPage,
  type ClickFilter,
  type ClickKey,
  type ClickRef,
  mergeInto,
  type SortedBlock,
  sortNewestFirst,
  takeBelow,
} from '../block-page';
import type { ClickTarget } from '../stored-click';

interface BlockMeta {
  seg: number;
  maxTime: number;
  lastId: number;
  count: number;
}

export const TAIL_DIMS = `ARRAY[${DIM_COLUMNS.map((c) => `t.${c}`).join(', ')}]`;

/** Decoded rows the blocks a pool's readers keep hold at most (~60 bytes each). */
const CACHED_BLOCK_ROWS = 400_000;

/**
 * Decoded blocks shared by a pool's readers, the least recently used dropped first: the next
 * page of a list or an export is usually in the block the last one read (a busy link's block
 * holds tens of thousands of clicks, ~15 ms to fetch and decode). A block never changes once
 * written and its (link, seg) is never given again, so a kept one stays right.
 */
class BlockCache {
  private readonly blocks = new Map<string, SortedBlock>();
  private rows = 0;

  get(key: string): SortedBlock | undefined {
    const block = this.blocks.get(key);
    if (block !== undefined) {
      this.blocks.delete(key);
      this.blocks.set(key, block);
    }
    return block;
  }

  set(key: string, block: SortedBlock): void {
    if (block.c.count > CACHED_BLOCK_ROWS) return;
    for (const [k, b] of this.blocks) {
      if (this.rows + block.c.count <= CACHED_BLOCK_ROWS) break;
      this.blocks.delete(k);
      this.rows -= b.c.count;
    }
    this.blocks.set(key, block);
    this.rows += block.c.count;
  }
}

const blockCaches = new WeakMap<Pg, BlockCache>();

function blockCache(sql: Pg): BlockCache {
  let cache = blockCaches.get(sql);
  if (cache === undefined) {
    cache = new BlockCache();
    blockCaches.set(sql, cache);
  }
  return cache;
}

/**
 * Pages of one link's clicks. `checkAlive` (the export): each page also asks whether the link
 * still exists, in its snapshot; a page of a deleted link is null.
 */
export class PgLinkClickReader {
  private readonly blocks: BlockCache;

  constructor(
    private readonly sql: Pg,
    private readonly linkId: string,
    private readonly link: number,
    private readonly filter: ClickFilter,
    private readonly options: { checkAlive: boolean },
  ) {
    this.blocks = blockCache(sql);
  }

  /** Up to `limit` clicks below `before`, newest first; null when the link is gone. */
  async page(before: ClickKey, limit: number): Promise<ClickRef[] | null> {
    const { sql, link, filter } = this;
    const maxId = Number.isFinite(filter.maxId) ? filter.maxId : Number.MAX_SAFE_INTEGER;
    const alive = this.options.checkAlive ? linkExistsCondition(sql, this.linkId) : sql`true`;
    const rows = await sql`
      WITH alive AS (SELECT ${alive} AS ok)
      SELECT 0 AS kind, t.id::float8 AS a, t.time::float8 AS b, 0::float8 AS c, t.target AS d, t.flags::int4 AS e,
        ${sql.unsafe(TAIL_DIMS)} AS dims
      FROM (SELECT * FROM click_tail
        WHERE (SELECT ok FROM alive) AND link = ${link}
          AND (time, id) < (${before.timestamp}::int8, ${before.id}::int8)
          AND time >= ${filter.from}::int8 AND id <= ${maxId}::int8
          AND (${filter.bots}::bool OR flags & 1 = 0)
        ORDER BY time DESC, id DESC LIMIT ${limit}) t
      UNION ALL
      SELECT 1, seg::float8, max_time::float8, last_id::float8, count, 0, NULL::int4[] FROM click_blocks
      WHERE (SELECT ok FROM alive) AND link = ${link} AND max_time >= ${filter.from}::int8
        AND min_time <= ${before.timestamp}::int8 AND first_id <= ${maxId}::int8
      UNION ALL
      SELECT 2, CASE WHEN ok THEN 1 ELSE 0 END, 0, 0, 0, 0, NULL FROM alive
      ORDER BY 1, 3 DESC, 2 DESC`;
    const last = rows[rows.length - 1];
    if (last.a !== 1) return null;
    const tailCount = rows.findIndex((r: { kind: number }) => r.kind !== 0);
    const tail = emptyColumns(tailCount);
    let page: ClickRef[] = [];
    for (let i = 0; i < tailCount; i++) {
      const r = rows[i];
      tail.id[i] = r.a;
      tail.time[i] = r.b;
      tail.target[i] = r.d;
      tail.flags[i] = r.e;
      for (let d = 0; d < DIM_COUNT; d++) tail.dims[d]![i] = r.dims[d];
      page.push({ c: tail, i });
    }
    const metas: BlockMeta[] = [];
    for (let i = tailCount; i < rows.length - 1; i++) {
      const r = rows[i];
      metas.push({ seg: r.a, maxTime: r.b, lastId: r.c, count: r.d });
    }
    // Newest blocks first (the statement's order): after the first round the page is usually
    // full, and every older block is passed over unread.
    let next = 0;
    while (next < metas.length) {
      const round: BlockMeta[] = [];
      let rowsInRound = 0;
      while (next < metas.length && (round.length === 0 || page.length + rowsInRound < limit)) {
        const m = metas[next++]!;
        if (belowFullPage(page, limit, m.maxTime, m.lastId)) continue;
        round.push(m);
        rowsInRound += m.count;
      }
      if (round.length === 0) break;
      const blocks = await this.blocksOf(round.map((m) => m.seg));
      for (const m of round) {
        const block = blocks.get(m.seg);
        if (block === undefined) {
          // Deleted since the statement: with its link (the page is then not whole), or by retention.
          if (!(await this.stillThere())) return null;
          continue;
        }
        if (belowFullPage(page, limit, m.maxTime, m.lastId)) continue;
        page = mergeInto(page, takeBelow(block, before, filter, maxId, limit), limit);
      }
    }
    return page;
  }

  /** The link's blocks of these segments, decoded and sorted (kept, or read in one statement). */
  private async blocksOf(segs: number[]): Promise<Map<number, SortedBlock>> {
    const out = new Map<number, SortedBlock>();
    const missing: number[] = [];
    for (const seg of segs) {
      const kept = this.blocks.get(`${this.link}:${seg}`);
      if (kept) out.set(seg, kept);
      else missing.push(seg);
    }
    if (missing.length === 0) return out;
    const rows = await this.sql`SELECT seg::float8 AS seg, data FROM click_blocks
      WHERE link = ${this.link} AND seg = ANY(${this.sql.array(missing, 'int8')}::int8[])`;
    for (const r of rows as { seg: number; data: Uint8Array }[]) {
      const block = sortNewestFirst(decodeBlock(r.data));
      out.set(r.seg, block);
      this.blocks.set(`${this.link}:${r.seg}`, block);
    }
    return out;
  }

  private async stillThere(): Promise<boolean> {
    const [r] = await this.sql`SELECT ${linkExistsCondition(this.sql, this.linkId)} AS alive`;
    return r.alive === true;
  }
}

const CACHED_TARGETS = 50_000;

/**
 * Targets by id, for a reader naming the clicks of a page; a cached entry stays right for good
 * (click_targets ids come from an identity and are never given again, and a row never changes).
 */
export class PgTargetNames {
  private readonly cache = new BoundedCache<number, ClickTarget>(CACHED_TARGETS);

  constructor(private readonly sql: Pg) {}

  /** The targets of these ids, read in one statement when not cached; null when one is gone (its link deleted). */
  async of(ids: Iterable<number>): Promise<Map<number, ClickTarget> | null> {
    const out = new Map<number, ClickTarget>();
    const unknown: number[] = [];
    for (const id of ids) {
      if (out.has(id)) continue;
      const t = this.cache.get(id);
      if (t === undefined) unknown.push(id);
      else out.set(id, t);
    }
    if (unknown.length === 0) return out;
    const rows = await this.sql`SELECT id, link_id, variant_id, code, destination, params, rule FROM click_targets
      WHERE id = ANY(${this.sql.array([...new Set(unknown)], 'int4')}::int4[])`;
    for (const r of rows) {
      const t: ClickTarget = {
        linkId: r.link_id,
        variantId: r.variant_id === '' ? null : r.variant_id,
        code: r.code,
        destination: r.destination,
        params: r.params,
        rule: r.rule === null ? null : num(r.rule),
      };
      this.cache.set(num(r.id), t);
      out.set(num(r.id), t);
    }
    for (const id of unknown) if (!out.has(id)) return null;
    return out;
  }
}
