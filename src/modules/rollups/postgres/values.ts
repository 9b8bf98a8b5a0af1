/**
 * The dictionary of rollup values on PostgreSQL: the same ids the SQLite engine gives
 * (rollup-values.ts), held in memory once known. A batch's values are made known before its
 * transaction (`ensure`): the ones not known here are first read (a link's value is made with
 * the link: `nameLinkValuesPg`, so a link's first click reads it), and only those still missing
 * inserted, in one statement, committed on their own, so the batch's transaction never waits
 * on another writer's dictionary insert, and an id made for a batch that then fails costs one
 * unused row (ids are never reused or deleted).
 */
import { num, type Pg, type PgFragment } from '../../../db/postgres/client';
import type { RollupDim } from '../dimensions';
import type { ValueIds } from '../rollups';

export interface ValueName {
  dim: RollupDim;
  key: string;
  value: string;
}

export class PgValues implements ValueIds {
  /**
   * Ids by dimension, then by `value` when the key is '' (most), else by NUL, key, NUL, value
   * (no text stored can hold NUL): a lookup hashes the value string the click already holds
   * (its hash kept from the last lookup) instead of a new string joined for each.
   */
  private readonly ids = new Map<string, Map<string, number>>();
  private readonly names: (ValueName | undefined)[] = [];
  private maxId = 0;
  /** While collecting: the names asked for that have no id yet, by dimension and inner key. */
  private missing: Map<string, ValueName> | null = null;

  constructor(private readonly sql: Pg) {}

  private static innerKey(key: string, value: string): string {
    return key === '' ? value : `\u0000${key}\u0000${value}`;
  }

  private dimMap(dim: string): Map<string, number> {
    let m = this.ids.get(dim);
    if (m === undefined) {
      m = new Map();
      this.ids.set(dim, m);
    }
    return m;
  }

  private remember(id: number, name: ValueName): void {
    this.dimMap(name.dim).set(PgValues.innerKey(name.key, name.value), id);
    this.names[id] = name;
    if (id > this.maxId) this.maxId = id;
  }

  private has(name: ValueName): boolean {
    return this.ids.get(name.dim)?.has(PgValues.innerKey(name.key, name.value)) ?? false;
  }

  /** The id of a known value; while collecting, 0 for an unknown one (noted for `ensure`). */
  idOf(dim: RollupDim, key: string, value: string): number {
    const inner = PgValues.innerKey(key, value);
    const id = this.ids.get(dim)?.get(inner);
    if (id !== undefined) return id;
    if (this.missing === null) throw new Error(`rollup value ${dim} ${key} ${value} was not made known first`);
    this.missing.set(`${dim}\u0000${inner}`, { dim, key, value });
    return 0;
  }

  /**
   * Runs `ask` (which calls idOf for every value a batch needs) once to find the unknown ones,
   * gives them ids, and leaves every value `ask` named known. Returns how many were unknown:
   * when none, the ids `ask` was given are every one right (an unknown one is 0).
   */
  async ensure(ask: () => void): Promise<number> {
    this.missing = new Map();
    let missing: ValueName[] = [];
    try {
      ask();
    } finally {
      missing = [...this.missing.values()];
      this.missing = null;
    }
    if (missing.length > 0) await this.learn(missing);
    return missing.length;
  }

  /** Reads the ids of these names; inserts those the dictionary does not have yet, and reads theirs. */
  private async learn(names: ValueName[]): Promise<void> {
    await this.read(names);
    const absent = names.filter((n) => !this.has(n));
    if (absent.length === 0) return;
    const [dims, keys, values] = this.columns(absent);
    // Another writer may insert the same value meanwhile: its id is read back either way.
    await this.sql`INSERT INTO rollup_values (dim, key, value)
      SELECT * FROM unnest(${dims}::text[], ${keys}::text[], ${values}::text[]) ORDER BY 1, 2, 3
      ON CONFLICT (dim, key, value) DO NOTHING`;
    await this.read(absent);
  }

  private columns(names: readonly ValueName[]) {
    return [
      this.sql.array(
        names.map((n) => n.dim),
        'text',
      ),
      this.sql.array(
        names.map((n) => n.key),
        'text',
      ),
      this.sql.array(
        names.map((n) => n.value),
        'text',
      ),
    ] as const;
  }

  /**
   * Reads and remembers the ids the dictionary has of these names. Links' values (most of a
   * batch's unknown names: its links never clicked) by one array of ids in the names' order,
   * the others by a join; side by side when there are both.
   */
  private async read(names: readonly ValueName[]): Promise<void> {
    const links = names.filter((n) => n.dim === 'link' && n.key === '');
    const others = links.length === names.length ? [] : names.filter((n) => !(n.dim === 'link' && n.key === ''));
    await Promise.all([this.readLinks(links), this.readOthers(others)]);
  }

  private async readLinks(names: readonly ValueName[]): Promise<void> {
    if (names.length === 0) return;
    // A subquery a name, not a join: a join of a batch's 2,000 names is planned as a hash of the
    // whole dictionary (a scan of every link's value), growing with the links; this is an index
    // probe a name (docs/decisions/2026-11-29-postgres-name-reads-probe-the-index.md).
    const [row] = await this.sql`SELECT array_agg(
        (SELECT r.id FROM rollup_values r WHERE r.dim = 'link' AND r.key = '' AND r.value = u.value) ORDER BY u.ord) AS ids
      FROM unnest(${this.sql.array(
        names.map((n) => n.value),
        'text',
      )}::text[]) WITH ORDINALITY AS u(value, ord)`;
    const ids = row.ids as (number | null)[];
    names.forEach((n, k) => {
      const id = ids[k];
      if (id !== null && id !== undefined) this.remember(num(id), n);
    });
  }

  private async readOthers(names: readonly ValueName[]): Promise<void> {
    if (names.length === 0) return;
    const [dims, keys, values] = this.columns(names);
    // An index probe a name, as readLinks: a join would hash the whole dictionary.
    const rows = await this.sql`SELECT u.dim, u.key, u.value,
        (SELECT r.id FROM rollup_values r WHERE r.dim = u.dim AND r.key = u.key AND r.value = u.value) AS id
      FROM unnest(${dims}::text[], ${keys}::text[], ${values}::text[]) AS u(dim, key, value)`;
    for (const r of rows) if (r.id !== null) this.remember(num(r.id), { dim: r.dim, key: r.key, value: r.value });
  }

  /** Reads the values added since the last call (all at the first): readers name ids with it. */
  async refresh(): Promise<void> {
    const rows = await this.sql`SELECT id, dim, key, value FROM rollup_values WHERE id > ${this.maxId} ORDER BY id`;
    for (const r of rows) this.remember(num(r.id), { dim: r.dim, key: r.key, value: r.value });
  }

  /**
   * Makes every one of these ids known: the newer ones by refresh(), and any still unknown by id.
   * Those are ids given to one writer before another's higher one but committed after it (several
   * nodes): a refresh that already read the higher id never reads them.
   */
  async know(ids: Iterable<number>): Promise<void> {
    let unknown: number[] = [];
    for (const id of ids) if (this.names[id] === undefined) unknown.push(id);
    if (unknown.length === 0) return;
    if (unknown.some((id) => id > this.maxId)) {
      await this.refresh();
      unknown = unknown.filter((id) => this.names[id] === undefined);
      if (unknown.length === 0) return;
    }
    const rows = await this.sql`SELECT id, dim, key, value FROM rollup_values
      WHERE id = ANY(${this.sql.array([...new Set(unknown)], 'int4')}::int4[])`;
    for (const r of rows) this.remember(num(r.id), { dim: r.dim, key: r.key, value: r.value });
  }

  /** The name of an id known here (refresh() first for ids newer than what was read). */
  nameOf(id: number): ValueName | undefined {
    return this.names[id];
  }

  /** One past the largest id known. */
  get size(): number {
    return this.maxId + 1;
  }
}

/**
 * Gives these links their dictionary value, in the caller's transaction (the links' creation):
 * the writer then reads it at a link's first click instead of inserting it (`ensure`). A value
 * already there (a link id is never reused, but a retried creation may find it) is kept.
 */
export async function nameLinkValuesPg(tx: Pg, linkIds: readonly string[]): Promise<void> {
  if (linkIds.length === 0) return;
  await tx`INSERT INTO rollup_values (dim, key, value)
    SELECT 'link', '', u.value FROM unnest(${tx.array([...linkIds].sort(), 'text')}::text[]) AS u(value)
    ON CONFLICT (dim, key, value) DO NOTHING`;
}

/** The dictionary id of a link, or null when no click of it was ever written. */
export async function linkValueIdPg(sql: Pg, linkId: string): Promise<number | null> {
  const [row] = await sql`SELECT id FROM rollup_values WHERE dim = 'link' AND key = '' AND value = ${linkId}`;
  return row === undefined ? null : num(row.id);
}

/** The scopes (value ids) of these links that were ever clicked, by link id, in one query. */
export async function linkValueIdsPg(sql: Pg, linkIds: readonly string[]): Promise<Map<string, number>> {
  const rows = await sql<{ id: string | number; value: string }[]>`
    SELECT id, value FROM rollup_values WHERE dim = 'link' AND key = '' AND value = ANY(${sql.array([...linkIds], 'text')}::text[])`;
  return new Map(rows.map((r) => [r.value, num(r.id)]));
}

/**
 * The dictionary value id of the link whose id is `linkId` (a column of the caller's query), or
 * null: the slug index reads it with the link (links' redirect rows), so its clicks carry it.
 * Compared in the dictionary's collation, or its index is not used (links' ids are "C").
 */
export function linkValueColumnPg(sql: Pg, linkId: PgFragment): PgFragment {
  return sql`(SELECT r.id FROM rollup_values r WHERE r.dim = 'link' AND r.key = '' AND r.value = ${linkId} COLLATE "default")`;
}
