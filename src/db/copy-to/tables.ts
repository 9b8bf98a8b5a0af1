/**
 * What `slink copy-to` copies, derived from the schema (src/db/schema.ts): every table is copied
 * row for row (plain tables below) unless it is named in SPECIAL_TABLES, the one place that says
 * which tables are handled otherwise and how. Plain tables have the same columns under the same
 * names on both engines (PostgreSQL's migrations mirror SQLite's tables), ids kept. Each is read
 * from SQLite in key order as JSON (SQLite's json_object builds the text, so no row becomes a
 * JavaScript object) and inserted with one json_populate_recordset statement per chunk, which
 * converts each value to its column's type. A table is copied in one transaction with the
 * copy's state, so a crash leaves it whole or absent.
 */
import type { Database } from 'bun:sqlite';
import { getTableName, is } from 'drizzle-orm';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { DAY_MS, utcDay } from '../../lib/time';
import type { Pg } from '../postgres/client';
import * as schema from '../schema';

/** The schema's tables not copied row for row, and what happens to them instead. */
export const SPECIAL_TABLES: Readonly<Record<string, string>> = {
  rollups: 'the rollups step: the packed buckets, a chunk of scopes at a time',
  click_blocks: 'the click_blocks step: the sealed raw clicks as bytes, with their segments',
  click_segments: 'the click_blocks step, with its blocks',
  click_tail: 'the click_tail step: the raw clicks not sealed yet',
  click_state: "the sequences step: the sealer's watermark",
  clicks: 'none: the first click table, emptied into click_tail when the file is brought up to date',
  event_listeners: "none: the live streams open on the old database's processes, which lapse within a minute",
  click_imports: 'none: a copy is refused while imported history waits in it for the click writer (copy.ts)',
  link_changes:
    "none: the change feed between the processes on one database, each engine's own and never the workspace's data",
};

/**
 * Tables only PostgreSQL has (what SQLite keeps in memory or derives), and whether they hold
 * the workspace's data: a target with a row in one of those is not empty, and a copy started
 * over empties them.
 */
export const POSTGRES_ONLY: Readonly<Record<string, { data: boolean; why: string }>> = {
  click_uniques: { data: true, why: 'the first visits of today and yesterday, made from the raw clicks' },
  click_limits: { data: true, why: "a limited link's shared count, made again from its stored clicks" },
  click_deltas: { data: true, why: 'click batches not counted yet' },
  link_changes_pruned: { data: false, why: 'the change feed between nodes' },
  rollup_writes: { data: false, why: 'the change feed between nodes' },
  window_secret: { data: false, why: 'the key of the windows shared between nodes' },
  rate_limit_windows: { data: false, why: 'rate limits shared between nodes' },
  sign_in_failures: { data: false, why: 'rate limits shared between nodes' },
  setup_tokens: { data: false, why: "the first account's setup, shared between nodes" },
  slink_migrations: { data: false, why: 'the migrations applied' },
  import_nodes: { data: false, why: 'the live nodes that may take a crashed import over' },
  import_run_keys: { data: false, why: "a running import's token, sealed to the live nodes" },
  import_run_files: { data: false, why: "a running import's file, while it runs" },
  read_through_misses: { data: false, why: "read-through's remembered misses, shared between nodes" },
};

/** Tables only SQLite has. */
export const SQLITE_ONLY: Readonly<Record<string, string>> = {
  __drizzle_migrations: 'the migrations applied',
  sqlite_sequence: "SQLite's AUTOINCREMENT counters (the sequences step moves PostgreSQL's past them)",
  clicks: 'the first click table, which PostgreSQL never had',
  click_imports: "imported history waiting for SQLite's one click writer (a copy refuses a database where some waits)",
};

/**
 * Rows the migrations themselves make in an empty database (SQL condition over the table): not
 * the workspace's data. The emptiness check passes them over and a copy deletes them first.
 */
export const MIGRATION_ROWS: Readonly<Record<string, string>> = {
  // The first domain, unnamed until a start names it after SLINK_SHORT_HOST (domains/table.ts).
  domains: "host = ''",
};

/** The PostgreSQL sequence of a table's ids where it is not the column's own (identity or serial). */
export const NAMED_SEQUENCES: Readonly<Record<string, string>> = { webhook_events: 'webhook_event_seq' };

/** Which rows are copied, where not all (SQL over the SQLite row). */
const ROWS: Readonly<Record<string, (now: number) => string>> = {
  // Today's and yesterday's salts: the writer deletes older ones, whose hashes are then unlinkable.
  visitor_salts: (now) => `day >= ${utcDay(now) - 1}`,
};

/** Columns compared row by row by the verification (the others by their row count). */
const COMPARED: Readonly<Record<string, readonly string[] | 'all'>> = {
  link_counters: ['clicks', 'uniques', 'bots', 'last_clicked_at', 'fallback_visits'],
  variants: ['link_id', 'code', 'click_count'],
  // The outbox arrives as it was: every webhook with its secrets, every event, every delivery
  // with its attempts, next retry and claim, every logged attempt.
  webhooks: 'all',
  webhook_events: 'all',
  webhook_deliveries: 'all',
  webhook_attempts: 'all',
  // A link's short URL is its domain's origin: every domain arrives with every setting.
  domains: 'all',
  // The audit log arrives as it was: who did what, when, every entry.
  audit_log: 'all',
};

export interface PlainTable {
  name: string;
  /** The column read in order and resumed after (the primary key, or SQLite's rowid). */
  key: string;
  /** Whether the key is text (compared bytewise: PostgreSQL's "C" collation). */
  textKey: boolean;
  /** Whether the key is an integer id that a sequence hands out (AUTOINCREMENT in SQLite). */
  autoIncrement: boolean;
  /** Which rows are copied (SQL over the SQLite row), when not all. */
  where?: (now: number) => string;
  /** The columns besides the key compared row by row by the verification. */
  compared: readonly string[];
}

/** Every table of the schema, in the order of their names in it (a module namespace's keys are sorted). */
export const SCHEMA_TABLES: readonly SQLiteTable[] = (Object.values(schema) as unknown[]).filter(
  (v): v is SQLiteTable => is(v, SQLiteTable),
);

function plainTable(table: SQLiteTable): PlainTable {
  const config = getTableConfig(table);
  const name = config.name;
  const primary = config.columns.filter((c) => c.primary);
  const key = primary.length === 1 ? primary[0]! : null;
  const compared = COMPARED[name] ?? [];
  return {
    name,
    key: key?.name ?? 'rowid',
    textKey: key?.columnType === 'SQLiteText',
    autoIncrement: key !== null && 'autoIncrement' in key && key.autoIncrement === true,
    where: ROWS[name],
    compared: compared === 'all' ? config.columns.filter((c) => c !== key).map((c) => c.name) : compared,
  };
}

/**
 * Foreign keys PostgreSQL has that SQLite's tables cannot declare (a column added by ALTER TABLE
 * with a reference must default to null there): the copy orders by them too.
 */
const POSTGRES_REFERENCES: Readonly<Record<string, readonly string[]>> = { links: ['domains'] };

/** The tables a table's foreign keys name. */
function referenced(table: SQLiteTable): string[] {
  const name = getTableName(table);
  return [
    ...getTableConfig(table).foreignKeys.map((fk) => getTableName(fk.reference().foreignTable)),
    ...(POSTGRES_REFERENCES[name] ?? []),
  ];
}

/** The tables with each one after those its foreign keys name, otherwise in the order given. */
function inKeyOrder(tables: readonly SQLiteTable[]): SQLiteTable[] {
  const byName = new Map(tables.map((t) => [getTableName(t), t]));
  const out: SQLiteTable[] = [];
  const seen = new Set<string>();
  const visit = (t: SQLiteTable) => {
    const name = getTableName(t);
    if (seen.has(name)) return;
    seen.add(name);
    for (const r of referenced(t)) {
      const target = byName.get(r);
      if (target !== undefined) visit(target);
    }
    out.push(t);
  };
  for (const t of tables) visit(t);
  return out;
}

/** The tables copied row for row: every table of the schema but the special ones, in foreign key order. */
export const PLAIN_TABLES: readonly PlainTable[] = inKeyOrder(SCHEMA_TABLES)
  .filter((t) => !(getTableName(t) in SPECIAL_TABLES))
  .map(plainTable);

/**
 * Every table of the target that holds the workspace's data: a target with a row in any of them
 * is not empty, and a copy started over empties them all. The change feed is no data: a node
 * that wrote links left rows there, and the links say so.
 */
export const DATA_TABLES: readonly string[] = [
  ...SCHEMA_TABLES.map((t) => getTableName(t)).filter((name) => !(name in SQLITE_ONLY) && name !== 'link_changes'),
  ...Object.entries(POSTGRES_ONLY)
    .filter(([, t]) => t.data)
    .map(([name]) => name),
];

/** Rows per statement: a chunk's JSON stays a few megabytes. */
const CHUNK = 5000;

interface Column {
  name: string;
  type: string;
}

/** The columns a copy writes: not the generated ones (link_counters.click_rank), which PostgreSQL computes. */
async function pgColumns(sql: Pg, table: string): Promise<Column[]> {
  const rows = await sql`SELECT column_name AS name, data_type AS type FROM information_schema.columns
    WHERE table_schema = current_schema() AND table_name = ${table} AND is_generated = 'NEVER'
    ORDER BY ordinal_position`;
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

/** The PostgreSQL sequence that hands out a table's ids (its identity column's, or a named one), or null. */
export async function pgSequenceOf(sql: Pg, table: PlainTable): Promise<string | null> {
  const named = NAMED_SEQUENCES[table.name];
  if (named !== undefined) return named;
  const [row] = await sql`SELECT pg_get_serial_sequence(${table.name}, ${table.key}) AS s`;
  return row.s ?? null;
}

/** The first day whose uniques and salts are copied (today's and yesterday's). */
export function uniquesFrom(now: number): number {
  return (utcDay(now) - 1) * DAY_MS;
}
