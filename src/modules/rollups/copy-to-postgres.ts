/**
 * `slink copy-to`'s part of the rollups: the buckets of a SQLite database written into a
 * PostgreSQL one, a run of scopes at a time, in the caller's transaction.
 *
 * Ids are kept (the dictionary is copied with its ids first), so the packed breakdowns are the
 * same bytes on both engines (rollup-codec.ts) and are copied as they are. Both engines roll a
 * link's days up from its hours (sqlite/link-days.ts, postgres/link-days.ts), and the marks are
 * copied with the plain tables; a link's days from its mark on are also summed from its hour
 * buckets here, so every day bucket of the copy is complete and the verification can add them up
 * (pgIncompleteDays): the next roll-up overwrites them. The workspace's buckets are complete in
 * both grains on both engines.
 */
import type { Database } from 'bun:sqlite';
import type { Pg } from '../../db/postgres/client';
import { utcDay } from '../../lib/time';
import { decodeCounts, encodeCounts, forEachCount } from './rollup-codec';
import { GRAIN_CODE, WORKSPACE } from './rollups';
import { daysFromHours, linkDaysBefore } from './sqlite/link-days';

interface Row {
  scope: number;
  grain: number;
  start: number;
  bot: number;
  clicks: number;
  uniques: number;
  data: Uint8Array;
}

/**
 * A run of whole scopes ready to insert: the buckets read from SQLite, and the columns of the
 * buckets to write as the texts of PostgreSQL arrays (faster to send and parse than the
 * driver's typed array parameters).
 */
export interface RollupChunk {
  read: number;
  lastScope: number;
  columns: string[];
}

const arrayText = (values: readonly (number | string)[]): string => `{${values.join(',')}}`;

/** A packed breakdown as an element of a bytea[] literal: "\\x<hex>" (the array literal unescapes one backslash). */
function byteaElement(data: Uint8Array): string {
  return `"\\\\x${Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('hex')}"`;
}

/** The buckets of one scope as PostgreSQL keeps them: a link's later days summed from its hours. */
function completeDays(sqlite: Database, scope: number, rows: Row[]): Row[] {
  if (scope === WORKSPACE) return rows;
  const mark = linkDaysBefore(sqlite, scope);
  const kept = rows.filter((r) => r.grain === GRAIN_CODE.hour || r.start < mark);
  const hours = rows
    .filter((r) => r.grain === GRAIN_CODE.hour && r.start >= mark)
    .map((r) => ({
      start: r.start,
      bot: r.bot === 1,
      clicks: r.clicks,
      uniques: r.uniques,
      counts: decodeCounts(r.data),
    }));
  for (const d of daysFromHours(scope, hours)) {
    kept.push({
      scope,
      grain: GRAIN_CODE.day,
      start: d.start,
      bot: d.bot ? 1 : 0,
      clicks: d.clicks,
      uniques: d.uniques,
      data: encodeCounts(d.counts),
    });
  }
  return kept.sort((a, b) => a.grain - b.grain || a.start - b.start || a.bot - b.bot);
}

/**
 * The buckets of the scopes from `fromScope` on (0, the workspace, first), whole scopes of about
 * `limit` buckets; null when no scope is left. Read while the previous chunk is being written.
 */
export function nextRollupChunk(sqlite: Database, fromScope: number, limit: number): RollupChunk | null {
  const select = 'SELECT scope, grain, start, bot, clicks, uniques, data FROM rollups';
  let rows = sqlite
    .query<Row, [number, number]>(`${select} WHERE scope >= ? ORDER BY scope, grain, start, bot LIMIT ?`)
    .all(fromScope, limit);
  if (rows.length === 0) return null;
  const lastScope = rows[rows.length - 1]!.scope;
  // The last scope may go on past the limit: it is copied whole.
  if (rows.length === limit) {
    rows = rows
      .filter((r) => r.scope !== lastScope)
      .concat(sqlite.query<Row, [number]>(`${select} WHERE scope = ? ORDER BY grain, start, bot`).all(lastScope));
  }
  const out: Row[] = [];
  let from = 0;
  for (let i = 1; i <= rows.length; i++) {
    if (i < rows.length && rows[i]!.scope === rows[from]!.scope) continue;
    out.push(...completeDays(sqlite, rows[from]!.scope, rows.slice(from, i)));
    from = i;
  }
  return {
    read: rows.length,
    lastScope,
    columns: [
      arrayText(out.map((r) => r.scope)),
      arrayText(out.map((r) => r.grain)),
      arrayText(out.map((r) => r.start)),
      arrayText(out.map((r) => (r.bot === 1 ? 't' : 'f'))),
      arrayText(out.map((r) => r.clicks)),
      arrayText(out.map((r) => r.uniques)),
      `{${out.map((r) => byteaElement(r.data)).join(',')}}`,
    ],
  };
}

/** Inserts a chunk in the caller's transaction (in key order: the index grows at its end). */
export async function writeRollupChunk(tx: Pg, chunk: RollupChunk): Promise<void> {
  await tx.unsafe(
    `INSERT INTO rollups (scope, grain, start, bot, clicks, uniques, data)
     SELECT * FROM unnest($1::text::int4[], $2::text::int2[], $3::text::int8[], $4::text::bool[], $5::text::int8[],
       $6::text::int8[], $7::text::bytea[])`,
    chunk.columns,
  );
}

/** Clicks and uniques per (day, bot), and the breakdown summed over every day: what the statistics add up. */
interface ScopeStats {
  days: Map<string, string>;
  counts: Map<number, number>;
}

function addRow(s: ScopeStats, start: number, bot: boolean, clicks: number, uniques: number, data: Uint8Array) {
  const key = `${utcDay(start)}|${bot ? 1 : 0}`;
  const [c, u] = (s.days.get(key) ?? '0|0').split('|').map(Number);
  s.days.set(key, `${c! + clicks}|${u! + uniques}`);
  const counts = s.counts;
  forEachCount(data, (id, n) => counts.set(id, (counts.get(id) ?? 0) + n));
}

function sameStats(a: ScopeStats, b: ScopeStats): boolean {
  if (a.days.size !== b.days.size || a.counts.size !== b.counts.size) return false;
  for (const [k, v] of a.days) if (b.days.get(k) !== v) return false;
  for (const [k, v] of a.counts) if (b.counts.get(k) !== v) return false;
  return true;
}

/**
 * The statistics of each scope equal on both sides: on SQLite from its hour buckets (always
 * complete), on PostgreSQL from its day buckets (what its readers sum for whole days). Returns
 * the first scope that differs, or null.
 */
export async function firstDifferentScope(
  sqlite: Database,
  sql: Pg,
  scopes: readonly number[],
): Promise<number | null> {
  for (const scope of scopes) {
    const here: ScopeStats = { days: new Map(), counts: new Map() };
    for (const r of sqlite
      .query<Row, [number, number]>('SELECT * FROM rollups WHERE scope = ? AND grain = ?')
      .all(scope, GRAIN_CODE.hour))
      addRow(here, r.start, r.bot === 1, r.clicks, r.uniques, r.data);
    const there: ScopeStats = { days: new Map(), counts: new Map() };
    for (const r of await sql`SELECT start, bot, clicks, uniques, data FROM rollups WHERE scope = ${scope} AND grain = ${GRAIN_CODE.day}`)
      addRow(there, Number(r.start), r.bot, Number(r.clicks), Number(r.uniques), r.data);
    if (!sameStats(here, there)) return scope;
  }
  return null;
}

/** Hour buckets: how many, and their clicks and uniques, as "rows:clicks:uniques". */
export function sqliteHourTotals(sqlite: Database): string {
  const r = sqlite
    .query<{ n: number; c: number; u: number }, [number]>(
      'SELECT count(*) AS n, total(clicks) AS c, total(uniques) AS u FROM rollups WHERE grain = ?',
    )
    .get(GRAIN_CODE.hour)!;
  return `${r.n}:${r.c}:${r.u}`;
}

export async function pgHourTotals(sql: Pg): Promise<string> {
  const [r] = await sql`SELECT count(*) AS n, coalesce(sum(clicks), 0) AS c, coalesce(sum(uniques), 0) AS u
    FROM rollups WHERE grain = ${GRAIN_CODE.hour}`;
  return `${Number(r.n)}:${Number(r.c)}:${Number(r.u)}`;
}

/** PostgreSQL scopes whose day buckets do not add up to their hour buckets (right after a copy, every one does). */
export async function pgIncompleteDays(sql: Pg): Promise<number> {
  const [r] = await sql`SELECT count(*) AS n FROM (
      SELECT scope, bot FROM rollups GROUP BY scope, bot
      HAVING sum(clicks) FILTER (WHERE grain = 0) IS DISTINCT FROM sum(clicks) FILTER (WHERE grain = 1)
        OR sum(uniques) FILTER (WHERE grain = 0) IS DISTINCT FROM sum(uniques) FILTER (WHERE grain = 1)) x`;
  return Number(r.n);
}
