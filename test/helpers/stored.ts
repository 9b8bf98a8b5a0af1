/**
 * What only the database shows, on either engine: fixtures that no API writes (a link's
 * counters, which only the click pipeline moves) and reads that no API answers (whether a row
 * is gone with its link). One SQL text runs on both engines (`?` placeholders, numbered for
 * PostgreSQL); int8 columns come back as numbers on both. The database is a test app's, or
 * the one a spawned `slink` used (its address), read once that process has stopped.
 */
import { Database } from 'bun:sqlite';
import { SQL } from 'bun';
import type { DatabaseAddress } from '../../src/db/address';
import { DIM_COLUMNS } from '../../src/modules/rollups/public';
import type { TestApp } from './app';
import { queryRaw } from './raw-clicks';
import { pgRawClicks } from './stored-clicks';

/** A test app, or the address of a database a spawned process used. */
export type StoredSource = TestApp | DatabaseAddress;

/** Where the source's database is. */
export const addressOf = (source: StoredSource): DatabaseAddress =>
  'deps' in source ? source.deps.stores.address : source;

/** Runs `use` on the SQLite connection of the source: the test app's own, or one opened (and closed) for it. */
function withSqlite<T>(source: StoredSource, use: (sqlite: Database) => T): T {
  if ('deps' in source) return use(source.deps.db.$client);
  const address = addressOf(source);
  if (address.engine !== 'sqlite') throw new Error('not a SQLite database');
  const sqlite = new Database(address.path, { readonly: true });
  try {
    return use(sqlite);
  } finally {
    sqlite.close();
  }
}

type Param = string | number | null;
type Row = Record<string, unknown>;

/**
 * Runs `text` on the test app's database and answers its rows; PostgreSQL gets a connection of
 * its own, closed after. For what no store or API answers: the columns a row holds, what a
 * write left behind.
 */
export async function storedRows(source: StoredSource, text: string, ...params: Param[]): Promise<Row[]> {
  return query(source, text, params);
}

async function query(source: StoredSource, text: string, params: Param[] = []): Promise<Row[]> {
  const address = addressOf(source);
  if (address.engine === 'sqlite') return withSqlite(source, (s) => s.query(text).all(...(params as never[])) as Row[]);
  let n = 0;
  const numbered = text.replace(/\?/g, () => `$${++n}`);
  // int8 as BigInt, so that only int8 columns become numbers (text of digits stays text).
  const sql = new SQL(address.url, { max: 1, bigint: true });
  try {
    const rows = (await sql.unsafe(numbered, params)) as Row[];
    return rows.map((row) =>
      Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v])),
    );
  } finally {
    await sql.close();
  }
}

export interface CounterValues {
  clicks?: number;
  uniques?: number;
  bots?: number;
  lastClickedAt?: number | null;
}

/** Sets a link's stored counters as if clicks had been recorded (the slug index keeps its own). */
export async function setLinkCounters(t: TestApp, linkId: string, values: CounterValues): Promise<void> {
  const columns: [string, Param][] = [];
  if (values.clicks !== undefined) columns.push(['clicks', values.clicks]);
  if (values.uniques !== undefined) columns.push(['uniques', values.uniques]);
  if (values.bots !== undefined) columns.push(['bots', values.bots]);
  if (values.lastClickedAt !== undefined) columns.push(['last_clicked_at', values.lastClickedAt]);
  const set = columns.map(([c]) => `${c} = ?`).join(', ');
  await query(t, `UPDATE link_counters SET ${set} WHERE link_id = ?`, [...columns.map(([, v]) => v), linkId]);
}

/** A link's link_counters rows as stored: one for a link that exists, none once it is gone. */
export function linkCounterRows(t: TestApp, linkId: string): Promise<Row[]> {
  return query(t, 'SELECT link_id, clicks, uniques, bots, last_clicked_at FROM link_counters WHERE link_id = ?', [
    linkId,
  ]);
}

/** How many rows a table holds. */
export async function countRows(t: TestApp, table: 'links' | 'link_tags' | 'variants' | 'projects'): Promise<number> {
  const [row] = await query(t, `SELECT count(*) AS n FROM ${table}`);
  return Number(row!.n);
}

/** Every link (archived ones too) with the fields the list sorts by, as stored. */
export async function storedLinks(
  t: TestApp,
): Promise<{ id: string; createdAt: number; updatedAt: number; clickCount: number; status: string }[]> {
  const rows = await query(
    t,
    `SELECT l.id AS id, l.created_at AS created, l.updated_at AS updated, c.clicks AS clicks, l.status AS status
     FROM links l JOIN link_counters c ON c.link_id = l.id`,
  );
  return rows.map((r) => ({
    id: r.id as string,
    createdAt: Number(r.created),
    updatedAt: Number(r.updated),
    clickCount: Number(r.clicks),
    status: r.status as string,
  }));
}

/**
 * Makes the database refuse to insert a link with this destination (a failure part-way through
 * a write of several links); the answer removes the refusal.
 */
export async function refuseLinkInserts(t: TestApp, destination: string): Promise<() => Promise<void>> {
  const literal = `'${destination.replaceAll("'", "''")}'`;
  if (t.deps.stores.engine === 'sqlite') {
    await query(
      t,
      `CREATE TRIGGER refuse_link BEFORE INSERT ON links WHEN NEW.destination = ${literal} BEGIN SELECT RAISE(ABORT, 'refused'); END`,
    );
    return async () => void (await query(t, 'DROP TRIGGER refuse_link'));
  }
  await query(
    t,
    `CREATE FUNCTION refuse_link() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN IF NEW.destination = ${literal} THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`,
  );
  await query(t, 'CREATE TRIGGER refuse_link BEFORE INSERT ON links FOR EACH ROW EXECUTE FUNCTION refuse_link()');
  return async () => {
    await query(t, 'DROP TRIGGER refuse_link ON links');
    await query(t, 'DROP FUNCTION refuse_link()');
  };
}

/** Every row of every table of the application, with its table's name. */
export async function allStoredRows(t: TestApp): Promise<{ table: string; row: Row }[]> {
  const tables = await query(
    t,
    t.deps.stores.engine === 'sqlite'
      ? "SELECT name FROM sqlite_master WHERE type = 'table'"
      : "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'",
  );
  const all: { table: string; row: Row }[] = [];
  for (const { name } of tables) {
    for (const row of await query(t, `SELECT * FROM "${name}"`)) all.push({ table: name as string, row });
  }
  return all;
}

/**
 * The stored raw clicks in id order, with the columns of test/helpers/raw-clicks.ts (raw_clicks)
 * but the id: on SQLite read through its click store's reader, on PostgreSQL from the tail and
 * the sealed blocks (stored-clicks.ts) with their dictionary values and targets named.
 */
export async function storedClicks(source: StoredSource): Promise<Row[]> {
  const address = addressOf(source);
  if (address.engine === 'sqlite') {
    const rows = withSqlite(source, (s) => queryRaw(s, 'SELECT * FROM raw_clicks ORDER BY id').all() as Row[]);
    return rows.map(({ id: _id, ...row }) => row);
  }
  const sql = new SQL(address.url, { max: 1 });
  try {
    const values = new Map<number, string>(
      (await sql`SELECT id, value FROM rollup_values`).map((r: { id: number; value: string }) => [r.id, r.value]),
    );
    const targets = new Map<number, Row>(
      (await sql`SELECT id, variant_id, code, destination, params FROM click_targets`).map((r: Row) => [
        r.id as number,
        r,
      ]),
    );
    const text = (id: number) => (values.get(id) === '' ? null : values.get(id)!);
    return (await pgRawClicks(sql)).map((c) => {
      const target = targets.get(c.target)!;
      const dims = Object.fromEntries(
        DIM_COLUMNS.map((column, d) => [column === 'traffic' ? 'traffic_type' : column, text(c.dims[d]!)]),
      );
      return {
        link_id: values.get(c.link),
        timestamp: c.time,
        variant_id: target.variant_id === '' ? null : target.variant_id,
        variant_code: target.code,
        destination: target.destination,
        params: target.params,
        ...dims,
        bot: c.flags & 1,
        visitor_hash: c.visitor,
        first_of_day: (c.flags & 2) >> 1,
        opted_out: (c.flags & 4) >> 2,
      };
    });
  } finally {
    await sql.close();
  }
}

/**
 * A link row (and its counters row) written straight into the database, bypassing the API's
 * checks; on the default domain unless `domainId` says another.
 */
export async function insertLinkRow(
  t: TestApp,
  row: { id: string; slug: string; destination: string; at: number; domainId?: number },
) {
  await query(
    t,
    "INSERT INTO links (id, slug, domain_id, destination, params, status, created_at, updated_at) VALUES (?, ?, ?, ?, '{}', 'active', ?, ?)",
    [row.id, row.slug, row.domainId ?? t.deps.domains.default.id, row.destination, row.at, row.at],
  );
  await query(t, 'INSERT INTO link_counters (link_id) VALUES (?)', [row.id]);
}

export interface ClickTotals {
  /** The link's raw clicks (humans and bots). */
  raw: number;
  /** Its counters. */
  link: { clicks: number; bots: number };
  /** Clicks (humans and bots) in the hour buckets of the link and of the workspace. */
  hours: { link: number; workspace: number };
}

/**
 * A link's clicks as each place keeps them: the raw clicks (tail and sealed blocks), the link's
 * counters, and the hour buckets the statistics read (a link's hours are always whole; its days
 * are rolled up later). After a stop or a crash they show what reached the database.
 */
export async function storedClickTotals(source: StoredSource, linkId: string): Promise<ClickTotals> {
  const [counters] = await query(source, 'SELECT clicks, bots FROM link_counters WHERE link_id = ?', [linkId]);
  const link = { clicks: Number(counters!.clicks), bots: Number(counters!.bots) };
  if (addressOf(source).engine === 'sqlite') {
    return withSqlite(source, (s) => {
      const n = (text: string, ...params: string[]) => Number((queryRaw(s, text).get(...params) as { n: number }).n);
      const hours = (scope: string) =>
        n("SELECT coalesce(sum(clicks), 0) AS n FROM named_buckets WHERE scope = ? AND grain = 'hour'", scope);
      return {
        raw: n('SELECT count(*) AS n FROM raw_clicks WHERE link_id = ?', linkId),
        link,
        hours: { link: hours(linkId), workspace: hours('') },
      };
    });
  }
  const [row] = await query(
    source,
    `WITH l AS (SELECT id FROM rollup_values WHERE dim = 'link' AND key = '' AND value = ?)
     SELECT (SELECT count(*) FROM click_tail WHERE link = (SELECT id FROM l))
         + (SELECT coalesce(sum(count), 0) FROM click_blocks WHERE link = (SELECT id FROM l)) AS raw,
       (SELECT coalesce(sum(clicks), 0) FROM rollups WHERE scope = (SELECT id FROM l) AND grain = 0) AS link_hours,
       (SELECT coalesce(sum(clicks), 0) FROM rollups WHERE scope = 0 AND grain = 0) AS workspace_hours`,
    [linkId],
  );
  return {
    raw: Number(row!.raw),
    link,
    hours: { link: Number(row!.link_hours), workspace: Number(row!.workspace_hours) },
  };
}

/** How many rollup buckets (every grain, humans and bots) a link's own scope holds: none once it is deleted. */
export async function storedLinkBuckets(source: StoredSource, linkId: string): Promise<number> {
  if (addressOf(source).engine === 'sqlite')
    return withSqlite(source, (s) =>
      Number((queryRaw(s, 'SELECT count(*) AS n FROM named_buckets WHERE scope = ?').get(linkId) as { n: number }).n),
    );
  const [row] = await query(
    source,
    `SELECT count(*) AS n FROM rollups r JOIN rollup_values v ON v.id = r.scope
     WHERE r.scope <> 0 AND v.dim = 'link' AND v.key = '' AND v.value = ?`,
    [linkId],
  );
  return Number(row!.n);
}
