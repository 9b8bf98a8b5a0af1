/**
 * The raw clicks of many links at once, for links with few clicks (the workspace export, which
 * reads every link's clicks): one statement reads, for a group of links, their tail rows (at
 * most `limit` + 1 each) and the list of their blocks; a second reads those blocks' bytes. The
 * same keys, order and filter as PgLinkClickReader (raw-read.ts), without its round trips per
 * link (~1 ms each here), which bounded an export of many small links. A link with more than
 * `limit` clicks that could pass (its tail rows and its blocks' counts), or whose block went
 * between the two statements, is answered null: its caller reads it page by page instead.
 */
import type { Pg } from '../../../db/postgres/client';
import { DIM_COUNT } from '../../rollups/public';
import { type ClickColumns, decodeBlock, emptyColumns } from '../block-codec';
import { type ClickFilter, type ClickRef, mergeInto, sortNewestFirst, takeBelow } from '../block-page';
import { TAIL_DIMS } from './raw-read';

const EVERYTHING = { timestamp: Number.MAX_SAFE_INTEGER, id: Number.MAX_SAFE_INTEGER };

interface TailRow {
  l: number;
  a: number;
  b: number;
  d: number;
  e: number;
  dims: number[];
}

/** Every click of each link (its scope: the link's value id), newest first, or null for a link to read page by page. */
export async function fewClicksOfLinks(
  sql: Pg,
  scopes: readonly number[],
  filter: ClickFilter,
  limit: number,
): Promise<Map<number, ClickRef[] | null>> {
  const out = new Map<number, ClickRef[] | null>();
  if (scopes.length === 0) return out;
  const maxId = Number.isFinite(filter.maxId) ? filter.maxId : Number.MAX_SAFE_INTEGER;
  const links = sql.array([...scopes], 'int4');
  const rows = await sql`
    SELECT 0 AS kind, t.link::float8 AS l, t.id::float8 AS a, t.time::float8 AS b, 0::float8 AS c,
      t.target AS d, t.flags::int4 AS e, ${sql.unsafe(TAIL_DIMS)} AS dims
    FROM (SELECT *, row_number() OVER (PARTITION BY link ORDER BY time DESC, id DESC) AS n FROM click_tail
      WHERE link = ANY(${links}::int4[]) AND time >= ${filter.from}::int8 AND id <= ${maxId}::int8
        AND (${filter.bots}::bool OR flags & 1 = 0)) t
    WHERE t.n <= ${limit + 1}
    UNION ALL
    SELECT 1, link::float8, seg::float8, max_time::float8, last_id::float8, count, 0, NULL::int4[] FROM click_blocks
    WHERE link = ANY(${links}::int4[]) AND max_time >= ${filter.from}::int8 AND first_id <= ${maxId}::int8`;
  const tails = new Map<number, TailRow[]>();
  const segs = new Map<number, number[]>();
  const counted = new Map<number, number>();
  for (const r of rows as (TailRow & { kind: number; c: number })[]) {
    counted.set(r.l, (counted.get(r.l) ?? 0) + (r.kind === 0 ? 1 : r.d));
    if (r.kind === 0) {
      const list = tails.get(r.l);
      if (list) list.push(r);
      else tails.set(r.l, [r]);
    } else {
      const list = segs.get(r.l);
      if (list) list.push(r.a);
      else segs.set(r.l, [r.a]);
    }
  }
  const wanted = new Set<string>();
  for (const scope of scopes) {
    if ((counted.get(scope) ?? 0) > limit) {
      out.set(scope, null);
      continue;
    }
    for (const seg of segs.get(scope) ?? []) wanted.add(`${scope}:${seg}`);
  }
  const blocks = new Map<string, ClickColumns>();
  if (wanted.size > 0) {
    const withBlocks = [...segs.keys()].filter((s) => out.get(s) !== null);
    const allSegs = [...new Set(withBlocks.flatMap((s) => segs.get(s)!))];
    const got = await sql`SELECT link::float8 AS link, seg::float8 AS seg, data FROM click_blocks
      WHERE link = ANY(${sql.array(withBlocks, 'int4')}::int4[]) AND seg = ANY(${sql.array(allSegs, 'int8')}::int8[])`;
    for (const r of got as { link: number; seg: number; data: Uint8Array }[]) {
      const key = `${r.link}:${r.seg}`;
      if (wanted.has(key)) blocks.set(key, decodeBlock(r.data));
    }
  }
  for (const scope of scopes) {
    if (out.has(scope)) continue;
    const tail = tails.get(scope) ?? [];
    const c = emptyColumns(tail.length);
    for (const [i, r] of tail.entries()) {
      c.id[i] = r.a;
      c.time[i] = r.b;
      c.target[i] = r.d;
      c.flags[i] = r.e;
      for (let d = 0; d < DIM_COUNT; d++) c.dims[d]![i] = r.dims[d]!;
    }
    let page = mergeInto(
      [],
      tail.map((_, i) => ({ c, i })),
      limit,
    );
    let whole = true;
    for (const seg of segs.get(scope) ?? []) {
      const block = blocks.get(`${scope}:${seg}`);
      // Gone since the statement (the link deleted, or retention): read page by page instead.
      if (block === undefined) {
        whole = false;
        break;
      }
      page = mergeInto(page, takeBelow(sortNewestFirst(block), EVERYTHING, filter, maxId, limit), limit);
    }
    out.set(scope, whole ? page : null);
  }
  return out;
}
