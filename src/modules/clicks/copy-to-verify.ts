/**
 * The end of `slink copy-to`'s raw clicks: what each side holds, for the verification
 * (db/copy-to/verify.ts): counts per table, a link's raw clicks, its blocks byte for byte, and
 * the uniques a copy makes.
 */
import type { Database } from 'bun:sqlite';
import type { Pg } from '../../db/postgres/client';
import { utcDay } from '../../lib/time';
import { firstVisitsSince } from './sqlite/raw-read';

/** The distinct (day, link, visitor) first visits at or after `from`: the click_uniques rows a copy makes. */
export function countFirstVisitsSince(sqlite: Database, from: number): number {
  const seen = new Set<string>();
  firstVisitsSince(sqlite, from, (linkId, time, visitor) => seen.add(`${utcDay(time)}|${linkId}|${visitor}`));
  return seen.size;
}

/** What SQLite holds of the raw clicks, table by table (the blocks' clicks summed). */
export function sqliteClickCounts(sqlite: Database): {
  segments: number;
  blocks: number;
  sealed: number;
  tail: number;
} {
  return sqlite
    .query<{ segments: number; blocks: number; sealed: number; tail: number }, []>(
      `SELECT (SELECT count(*) FROM click_segments) AS segments, (SELECT count(*) FROM click_blocks) AS blocks,
         (SELECT coalesce(sum(count), 0) FROM click_blocks) AS sealed, (SELECT count(*) FROM click_tail) AS tail`,
    )
    .get()!;
}

/** The same on PostgreSQL. */
export async function pgClickCounts(
  sql: Pg,
): Promise<{ segments: number; blocks: number; sealed: number; tail: number }> {
  const [r] = await sql`SELECT (SELECT count(*) FROM click_segments) AS segments,
    (SELECT count(*) FROM click_blocks) AS blocks, (SELECT coalesce(sum(count), 0) FROM click_blocks) AS sealed,
    (SELECT count(*) FROM click_tail) AS tail`;
  return { segments: Number(r.segments), blocks: Number(r.blocks), sealed: Number(r.sealed), tail: Number(r.tail) };
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

/** The same on PostgreSQL, for one link. */
export async function pgRawClicksOf(sql: Pg, link: number): Promise<number> {
  const [r] = await sql`SELECT (SELECT count(*) FROM click_tail WHERE link = ${link})
    + (SELECT coalesce(sum(count), 0) FROM click_blocks WHERE link = ${link}) AS n`;
  return Number(r.n);
}

/** Whether a link's blocks are the same on both sides, segment for segment and byte for byte. */
export async function sameBlocks(sqlite: Database, sql: Pg, link: number): Promise<boolean> {
  const here = sqlite
    .query<{ seg: number; data: Uint8Array }, [number]>(
      'SELECT seg, data FROM click_blocks WHERE link = ? ORDER BY seg',
    )
    .all(link);
  const there = await sql`SELECT seg, data FROM click_blocks WHERE link = ${link} ORDER BY seg`;
  if (here.length !== there.length) return false;
  return here.every((b, i) => Number(there[i].seg) === b.seg && Buffer.from(b.data).equals(there[i].data));
}
