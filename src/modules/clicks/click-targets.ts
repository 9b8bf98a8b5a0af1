/**
 * click_targets: the deduplicated "where it went" of a click (variant id, code, destination,
 * params JSON). The writer turns each click's four strings into one id (TargetIds); readers
 * turn ids back into the strings (TargetNames). Both cache, bounded: a link has a handful of
 * targets, but 100,000 links have hundreds of thousands.
 */
import type { Database, Statement } from 'bun:sqlite';
import { BoundedCache } from '../../lib/bounded-cache';

export interface ClickTarget {
  linkId: string;
  /** null when the code matched no variant (stored as ''). */
  variantId: string | null;
  code: string | null;
  destination: string;
  /** The params as JSON text, exactly as the click stored them. */
  params: string;
}

const CACHED_TARGETS = 50_000;

/** The writer's side: ids of targets, inserted (inside the caller's transaction) when new. */
export class TargetIds {
  private readonly cache = new BoundedCache<string, number>(CACHED_TARGETS);
  private pending: string[] = [];
  private readonly select: Statement<{ id: number }, [string, string, string | null, string, string]>;
  private readonly insert: Statement<{ id: number }, [string, string, string | null, string, string]>;

  constructor(sqlite: Database) {
    // `code IS ?`: a null code must match a null code, which `=` never does.
    this.select = sqlite.prepare(
      'SELECT id FROM click_targets WHERE link_id = ? AND variant_id = ? AND code IS ? AND destination = ? AND params = ?',
    );
    this.insert = sqlite.prepare(
      'INSERT INTO click_targets (link_id, variant_id, code, destination, params) VALUES (?, ?, ?, ?, ?) RETURNING id',
    );
  }

  idOf(linkId: string, variantId: string | null, code: string | null, destination: string, params: string): number {
    // \u0001 marks a null code, so a code can never collide with "no code".
    const key = `${linkId}\u0000${variantId ?? ''}\u0000${code ?? '\u0001'}\u0000${destination}\u0000${params}`;
    let id = this.cache.get(key);
    if (id === undefined) {
      const found = this.select.get(linkId, variantId ?? '', code, destination, params);
      if (found) id = found.id;
      else {
        id = this.insert.get(linkId, variantId ?? '', code, destination, params)!.id;
        this.pending.push(key);
      }
      this.cache.set(key, id);
    }
    return id;
  }

  commit(): void {
    this.pending = [];
  }

  /** The caller's transaction rolled back: the targets it inserted do not exist. */
  rollback(): void {
    if (this.pending.length) this.cache.clear();
    this.pending = [];
  }
}

/** The readers' side: a target by id (ids are never reused, so a cached entry stays right). */
export class TargetNames {
  private readonly cache = new BoundedCache<number, ClickTarget>(CACHED_TARGETS);
  private readonly select: Statement<
    { link_id: string; variant_id: string; code: string | null; destination: string; params: string },
    [number]
  >;

  constructor(sqlite: Database) {
    this.select = sqlite.prepare(
      'SELECT link_id, variant_id, code, destination, params FROM click_targets WHERE id = ?',
    );
  }

  get(id: number): ClickTarget {
    let t = this.cache.get(id);
    if (t === undefined) {
      const r = this.select.get(id);
      if (!r) throw new Error(`click target ${id} is missing`);
      t = {
        linkId: r.link_id,
        variantId: r.variant_id === '' ? null : r.variant_id,
        code: r.code,
        destination: r.destination,
        params: r.params,
      };
      this.cache.set(id, t);
    }
    return t;
  }
}
