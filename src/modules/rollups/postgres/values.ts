/**
 * The dictionary of rollup values on PostgreSQL: the same ids the SQLite engine gives
 * (rollup-values.ts), held in memory once known. A batch's values are made known before its
 * transaction (`ensure`): the new ones inserted in one statement, committed on their own, so
 * the batch's transaction never waits on another writer's dictionary insert, and an id made for
 * a batch that then fails costs one unused row (ids are never reused or deleted).
 */
import { num, type Pg } from '../../../db/postgres/client';
import type { RollupDim } from '../dimensions';
import type { ValueIds } from '../rollups';

export interface ValueName {
  dim: RollupDim;
  key: string;
  value: string;
}

export class PgValues implements ValueIds {
  private readonly ids = new Map<string, number>();
  private readonly names: (ValueName | undefined)[] = [];
  private maxId = 0;
  /** While collecting: the names asked for that have no id yet. */
  private missing: Map<string, ValueName> | null = null;

  constructor(private readonly sql: Pg) {}

  private static keyOf(dim: string, key: string, value: string): string {
    return `${dim}\u0000${key}\u0000${value}`;
  }

  private remember(id: number, name: ValueName): void {
    this.ids.set(PgValues.keyOf(name.dim, name.key, name.value), id);
    this.names[id] = name;
    if (id > this.maxId) this.maxId = id;
  }

  /** The id of a known value; while collecting, 0 for an unknown one (noted for `ensure`). */
  idOf(dim: RollupDim, key: string, value: string): number {
    const k = PgValues.keyOf(dim, key, value);
    const id = this.ids.get(k);
    if (id !== undefined) return id;
    if (this.missing === null) throw new Error(`rollup value ${dim} ${key} ${value} was not made known first`);
    this.missing.set(k, { dim, key, value });
    return 0;
  }

  /**
   * Runs `ask` (which calls idOf for every value a batch needs) once to find the unknown ones,
   * gives them ids, and leaves every value `ask` named known.
   */
  async ensure(ask: () => void): Promise<void> {
    this.missing = new Map();
    try {
      ask();
    } finally {
      const missing = [...this.missing.values()];
      this.missing = null;
      if (missing.length > 0) await this.insert(missing);
    }
  }

  private async insert(names: ValueName[]): Promise<void> {
    const dims = this.sql.array(
      names.map((n) => n.dim),
      'text',
    );
    const keys = this.sql.array(
      names.map((n) => n.key),
      'text',
    );
    const values = this.sql.array(
      names.map((n) => n.value),
      'text',
    );
    // Another writer may insert the same value meanwhile: its id is read back either way.
    await this.sql`INSERT INTO rollup_values (dim, key, value)
      SELECT * FROM unnest(${dims}::text[], ${keys}::text[], ${values}::text[]) ORDER BY 1, 2, 3
      ON CONFLICT (dim, key, value) DO NOTHING`;
    const rows = await this.sql`SELECT r.id, r.dim, r.key, r.value FROM rollup_values r
      JOIN unnest(${dims}::text[], ${keys}::text[], ${values}::text[]) AS u(dim, key, value)
        ON r.dim = u.dim AND r.key = u.key AND r.value = u.value`;
    for (const r of rows) this.remember(num(r.id), { dim: r.dim, key: r.key, value: r.value });
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
