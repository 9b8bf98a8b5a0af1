/**
 * The dictionary of rollup values: every (dim, key, value) a breakdown has seen gets a small
 * integer id once, and buckets store ids instead of strings. Ids only grow; an entry is never
 * deleted (a value that no bucket counts any more costs one row).
 */
import type { Database, Statement } from 'bun:sqlite';
import type { RollupDim } from './dimensions';

interface ValueName {
  dim: RollupDim;
  key: string;
  value: string;
}

interface ValueRow extends ValueName {
  id: number;
}

/**
 * dim -> key -> value -> id: three lookups of strings the caller already has, where one map of
 * joined keys built a new string per call (the writer asks about ten times per click).
 */
type IdTree = Map<string, Map<string, Map<string, number>>>;

export class RollupValues {
  private readonly ids: IdTree = new Map();
  private readonly names: (ValueName | undefined)[] = [];
  /** Ids inserted by a transaction that has not committed yet. */
  private pending: number[] = [];
  private maxId = 0;
  private readonly since: Statement<ValueRow, [number]>;
  private readonly insert: Statement<{ id: number }, [string, string, string]>;

  constructor(sqlite: Database) {
    this.since = sqlite.prepare('SELECT id, dim, key, value FROM rollup_values WHERE id > ? ORDER BY id');
    // The no-op update makes RETURNING answer for a value another connection added meanwhile.
    this.insert = sqlite.prepare(
      'INSERT INTO rollup_values (dim, key, value) VALUES (?, ?, ?) ON CONFLICT (dim, key, value) DO UPDATE SET id = id RETURNING id',
    );
    // Nothing is read here: the server builds one at start, where reading every value (one per
    // link at least) would hold back the first redirect. Readers refresh() before use; idOf()
    // is right either way (the upsert returns an existing id).
  }

  /** Reads the entries not known yet: all at the first call, then those added since (ids are increasing). */
  refresh(): void {
    for (const row of this.since.all(this.maxId)) this.remember(row);
  }

  private branch(dim: string, key: string): Map<string, number> {
    let keys = this.ids.get(dim);
    if (keys === undefined) {
      keys = new Map();
      this.ids.set(dim, keys);
    }
    let values = keys.get(key);
    if (values === undefined) {
      values = new Map();
      keys.set(key, values);
    }
    return values;
  }

  private remember(row: ValueRow): void {
    this.branch(row.dim, row.key).set(row.value, row.id);
    this.names[row.id] = { dim: row.dim, key: row.key, value: row.value };
    if (row.id > this.maxId) this.maxId = row.id;
  }

  /** The id of a value, inserting it (inside the caller's transaction) when new. */
  idOf(dim: RollupDim, key: string, value: string): number {
    let id = this.ids.get(dim)?.get(key)?.get(value);
    if (id === undefined) {
      id = this.insert.get(dim, key, value)!.id;
      this.remember({ id, dim, key, value });
      this.pending.push(id);
    }
    return id;
  }

  /** The caller's transaction committed: the new ids are real. */
  commit(): void {
    this.pending = [];
  }

  /** The caller's transaction rolled back: forget the ids it inserted. */
  rollback(): void {
    for (const id of this.pending) {
      const name = this.names[id];
      if (name) this.ids.get(name.dim)?.get(name.key)?.delete(name.value);
      this.names[id] = undefined;
    }
    this.pending = [];
    this.maxId = this.names.length === 0 ? 0 : this.lastKnownId();
  }

  private lastKnownId(): number {
    for (let id = this.names.length - 1; id > 0; id--) if (this.names[id]) return id;
    return 0;
  }

  /** Name of an id; refreshes once from the database when it is newer than what we know. */
  nameOf(id: number): ValueName | undefined {
    if (id > this.maxId) this.refresh();
    return this.names[id];
  }

  /** One past the largest id known: sizes the typed arrays that sum buckets. */
  get size(): number {
    return this.maxId + 1;
  }
}

/** The dictionary id of a link, or null when no click of it was ever written. */
export function linkValueId(sqlite: Database, linkId: string): number | null {
  return (
    sqlite
      .query<{ id: number }, [string]>("SELECT id FROM rollup_values WHERE dim = 'link' AND key = '' AND value = ?")
      .get(linkId)?.id ?? null
  );
}

/** The scopes (value ids) of these links that were ever clicked, by link id, in one query. */
export function linkValueIds(sqlite: Database, linkIds: readonly string[]): Map<string, number> {
  const rows = sqlite
    .query<{ id: number; value: string }, [string]>(
      "SELECT id, value FROM rollup_values WHERE dim = 'link' AND key = '' AND value IN (SELECT value FROM json_each(?))",
    )
    .all(JSON.stringify(linkIds));
  return new Map(rows.map((r) => [r.value, r.id]));
}
