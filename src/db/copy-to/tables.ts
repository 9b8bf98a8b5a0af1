/**
 * The tables `slink copy-to` copies row for row: the same columns under the same names on both
 * engines (PostgreSQL's migrations mirror SQLite's tables), ids kept. Each is read from SQLite
 * in key order as JSON (SQLite's json_object builds the text, so no row becomes a JavaScript
 * object) and inserted with one json_populate_recordset statement per chunk, which converts
 * each value to its column's type. A table is copied in one transaction with the copy's state,
 * so a crash leaves it whole or absent.
 */
import type { Database } from 'bun:sqlite';
import { DAY_MS, utcDay } from '../../lib/time';
import type { Pg } from '../postgres/client';

export interface PlainTable {
  name: string;
  /** The column read in order and resumed after (a unique one, or SQLite's rowid). */
  key: string;
  /** Which rows are copied (SQL over the SQLite row), when not all. */
  where?: (now: number) => string;
}

/** In an order that satisfies the foreign keys. */
export const PLAIN_TABLES: readonly PlainTable[] = [
  { name: 'accounts', key: 'id' },
  { name: 'api_keys', key: 'id' },
  { name: 'sessions', key: 'id' },
  { name: 'projects', key: 'id' },
  { name: 'links', key: 'id' },
  { name: 'link_tags', key: 'rowid' },
  { name: 'link_counters', key: 'link_id' },
  { name: 'variants', key: 'id' },
  // The dictionary and the targets with their ids: the buckets and the raw clicks name them.
  { name: 'rollup_values', key: 'id' },
  { name: 'click_targets', key: 'id' },
  { name: 'rollup_marks', key: 'scope' },
  // Today's and yesterday's salts: the writer deletes older ones, whose hashes are then unlinkable.
  { name: 'visitor_salts', key: 'day', where: (now) => `day >= ${utcDay(now) - 1}` },
];

/** Rows per statement: a chunk's JSON stays a few megabytes. */
const CHUNK = 5000;

interface Column {
  name: string;
  type: string;
}

async function pgColumns(sql: Pg, table: string): Promise<Column[]> {
  const rows = await sql`SELECT column_name AS name, data_type AS type FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = ${table} ORDER BY ordinal_position`;
  return rows.map((r: Column) => ({ name: r.name, type: r.type }));
}

/** The SQLite expression of a column as JSON: booleans (0/1 in SQLite) as true/false. */
function jsonValue(c: Column): string {
  const q = `"${c.name}"`;
  return c.type === 'boolean'
    ? `CASE WHEN ${q} IS NULL THEN NULL WHEN ${q} THEN json('true') ELSE json('false') END`
    : q;
}

export function countRows(sqlite: Database, table: PlainTable, now: number): number {
  const where = table.where ? ` WHERE ${table.where(now)}` : '';
  return sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM "${table.name}"${where}`).get()!.n;
}

/** Copies every row of `table` into `tx`; `copied(rows)` after each chunk. Returns the rows copied. */
export async function copyPlainTable(
  sqlite: Database,
  tx: Pg,
  table: PlainTable,
  now: number,
  copied: (rows: number) => void,
): Promise<number> {
  const columns = await pgColumns(tx, table.name);
  if (columns.length === 0) throw new Error(`the PostgreSQL database has no table ${table.name}`);
  const sqliteColumns = new Set(
    sqlite
      .query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${table.name}')`)
      .all()
      .map((c) => c.name),
  );
  const missing = columns.find((c) => !sqliteColumns.has(c.name));
  if (missing) throw new Error(`the SQLite table ${table.name} has no column ${missing.name}`);
  const pairs = columns.map((c) => `'${c.name}', ${jsonValue(c)}`).join(', ');
  const where = table.where ? ` AND ${table.where(now)}` : '';
  // The first chunk has no key to start after (null): ids are text or integers depending on the table.
  const read = sqlite.query<
    { rows: string; last: number | string | null; n: number },
    [number | string | null, number | string | null, number]
  >(
    `SELECT json_group_array(json_object(${pairs})) AS rows, max(k) AS last, count(*) AS n
     FROM (SELECT *, ${table.key} AS k FROM "${table.name}" WHERE (? IS NULL OR ${table.key} > ?)${where}
       ORDER BY ${table.key} LIMIT ?)`,
  );
  const names = columns.map((c) => `"${c.name}"`).join(', ');
  const insert = `INSERT INTO ${table.name} (${names}) SELECT ${names} FROM json_populate_recordset(NULL::${table.name}, $1::text::json)`;
  let after: number | string | null = null;
  let total = 0;
  for (;;) {
    const chunk: { rows: string; last: number | string | null; n: number } = read.get(after, after, CHUNK)!;
    if (chunk.n === 0) return total;
    await tx.unsafe(insert, [chunk.rows]);
    total += chunk.n;
    copied(chunk.n);
    after = chunk.last!;
  }
}

/** The first day whose uniques and salts are copied (today's and yesterday's). */
export function uniquesFrom(now: number): number {
  return (utcDay(now) - 1) * DAY_MS;
}
