/**
 * The end of `slink copy-to`: both sides compared, one line per table for stdout; the first
 * difference throws (the copy is then not marked done, and a re-run verifies again). Counts per
 * table; every link's counters and every variant's click count; the rollups' hour buckets, and
 * PostgreSQL's day buckets adding up to them; the raw clicks (segments, blocks and the clicks
 * sealed in them, the tail); and for a sample of links (the busiest, and some spread over the
 * rest) and the workspace, their daily clicks and uniques, their breakdowns and their raw clicks
 * (their blocks byte for byte).
 */
import type { Database } from 'bun:sqlite';
import {
  countFirstVisitsSince,
  pgClickCounts,
  pgRawClicksOf,
  rawClicksOf,
  sameBlocks,
  sqliteClickCounts,
} from '../../modules/clicks/public';
import {
  firstDifferentScope,
  pgHourTotals,
  pgIncompleteDays,
  sqliteHourTotals,
  WORKSPACE,
} from '../../modules/rollups/public';
import type { Pg } from '../postgres/client';
import { countRows, PLAIN_TABLES, type PlainTable, uniquesFrom } from './tables';

/** The copy differs from its source: the one line the CLI prints. */
export class CopyMismatch extends Error {}

const SAMPLE_BUSIEST = 10;
const SAMPLE_SPREAD = 10;
const ROWS_PER_READ = 50_000;

/** What the line of a table compared row by row says, where more than 'every row equal'. */
const NOTES: Readonly<Record<string, string>> = {
  link_counters: ", every link's counters equal",
  variants: ', every click count equal',
};

function line(table: string, n: number, note = ''): string {
  return `${table}: ${n} rows on both sides${note}`;
}

async function pgCount(sql: Pg, table: string): Promise<number> {
  const [r] = await sql.unsafe(`SELECT count(*) AS n FROM ${table}`);
  return Number(r.n);
}

function equalCounts(table: string, sqliteN: number, pgN: number): void {
  if (sqliteN !== pgN)
    throw new CopyMismatch(`verification failed: ${table} has ${sqliteN} rows in SQLite, ${pgN} in PostgreSQL`);
}

/** A value as SQLite holds it: PostgreSQL's booleans as 0/1, its int8 (text) as the same digits. */
function asStored(v: unknown): string {
  if (v === true) return '1';
  if (v === false) return '0';
  return String(v ?? null);
}

/**
 * Every row of a table's compared columns equal on both sides, read in key order a chunk at a
 * time (text keys compare bytewise on both: SQLite's BINARY, PostgreSQL's "C").
 */
async function sameRows(sqlite: Database, sql: Pg, table: PlainTable): Promise<void> {
  const { name, key } = table;
  const columns = [key, ...table.compared];
  const list = columns.map((c) => `"${c}"`).join(', ');
  const read = sqlite.query<Record<string, unknown>, [string | number | null, string | number | null, number]>(
    `SELECT ${list} FROM ${name} WHERE (? IS NULL OR ${key} > ?) ORDER BY ${key} LIMIT ?`,
  );
  const ordered = table.textKey ? `${key} COLLATE "C"` : key;
  const cast = table.textKey ? '::text' : '::int8';
  let after: string | number | null = null;
  for (;;) {
    const here = read.all(after, after, ROWS_PER_READ);
    if (here.length === 0) return;
    const last = here[here.length - 1]![key] as string | number;
    const there = await sql.unsafe(
      `SELECT ${list} FROM ${name} WHERE ($1${cast} IS NULL OR ${ordered} > $1${cast}) AND ${ordered} <= $2${cast} ORDER BY ${ordered}`,
      [after, last],
    );
    for (let i = 0; i < here.length; i++) {
      const a = here[i]!;
      const b = there[i] as Record<string, unknown> | undefined;
      const differs = b === undefined || columns.some((c) => asStored(a[c]) !== asStored(b[c]));
      if (differs) throw new CopyMismatch(`verification failed: ${name} row ${String(a[key])} differs in PostgreSQL`);
    }
    if (there.length !== here.length)
      throw new CopyMismatch(`verification failed: ${name} has extra rows in PostgreSQL`);
    after = last;
  }
}

/** The link value ids of the sample: the busiest links and some spread over the rest. */
function sampleLinks(sqlite: Database): number[] {
  const busiest = sqlite
    .query<{ id: string }, [number]>('SELECT link_id AS id FROM link_counters ORDER BY clicks DESC, link_id LIMIT ?')
    .all(SAMPLE_BUSIEST)
    .map((r) => r.id);
  const count = sqlite.query<{ n: number }, []>('SELECT count(*) AS n FROM links').get()!.n;
  const step = Math.max(1, Math.floor(count / SAMPLE_SPREAD));
  const spread = sqlite
    .query<{ id: string }, [number]>('SELECT id FROM links WHERE (rowid % ?) = 0 LIMIT 10')
    .all(step)
    .map((r) => r.id);
  const value = sqlite.query<{ id: number }, [string]>(
    "SELECT id FROM rollup_values WHERE dim = 'link' AND key = '' AND value = ?",
  );
  const ids = [...new Set([...busiest, ...spread])].flatMap((linkId) => {
    const v = value.get(linkId);
    return v ? [v.id] : [];
  });
  return ids;
}

export async function verifyCopy(sqlite: Database, sql: Pg, now: number): Promise<string[]> {
  const lines: string[] = [];
  for (const table of PLAIN_TABLES) {
    const n = countRows(sqlite, table, now);
    equalCounts(table.name, n, await pgCount(sql, table.name));
    if (table.compared.length > 0) await sameRows(sqlite, sql, table);
    lines.push(line(table.name, n, NOTES[table.name] ?? (table.compared.length > 0 ? ', every row equal' : '')));
  }

  const hours = sqliteHourTotals(sqlite);
  if (hours !== (await pgHourTotals(sql))) throw new CopyMismatch('verification failed: the hour buckets differ');
  const incomplete = await pgIncompleteDays(sql);
  if (incomplete > 0) throw new CopyMismatch(`verification failed: ${incomplete} scopes' day buckets miss clicks`);
  lines.push(
    `rollups: ${hours.split(':')[0]} hour buckets on both sides, ${await pgCount(sql, 'rollups')} buckets in all, every day complete`,
  );

  const here = sqliteClickCounts(sqlite);
  const there = await pgClickCounts(sql);
  equalCounts('click_segments', here.segments, there.segments);
  lines.push(line('click_segments', here.segments));
  equalCounts('click_blocks', here.blocks, there.blocks);
  if (here.sealed !== there.sealed)
    throw new CopyMismatch(
      `verification failed: click_blocks hold ${here.sealed} clicks in SQLite, ${there.sealed} in PostgreSQL`,
    );
  lines.push(line('click_blocks', here.blocks, ` (${here.sealed} sealed raw clicks)`));
  equalCounts('click_tail', here.tail, there.tail);
  lines.push(line('click_tail', here.tail, ' (raw clicks not sealed yet)'));
  const uniques = countFirstVisitsSince(sqlite, uniquesFrom(now));
  equalCounts('click_uniques', uniques, await pgCount(sql, 'click_uniques'));
  lines.push(line('click_uniques', uniques, " (today's and yesterday's first visits)"));

  const sample = sampleLinks(sqlite);
  const different = await firstDifferentScope(sqlite, sql, [WORKSPACE, ...sample]);
  if (different !== null) throw new CopyMismatch(`verification failed: the statistics of scope ${different} differ`);
  const raw = rawClicksOf(sqlite, sample);
  for (const [link, n] of raw) {
    if ((await pgRawClicksOf(sql, link)) !== n || !(await sameBlocks(sqlite, sql, link)))
      throw new CopyMismatch(`verification failed: the raw clicks of scope ${link} differ`);
  }
  lines.push(
    `statistics: ${sample.length} links and the workspace: daily clicks, uniques, breakdowns and raw clicks equal`,
  );
  return lines;
}
