/**
 * click_targets: the deduplicated "where it went" of a click (variant id, code, destination,
 * params JSON, the link rule that chose the destination). The writer turns each click's four strings into one id (TargetIds); readers
 * turn ids back into the strings (TargetNames). Both cache, bounded: a link has a handful of
 * targets, but 100,000 links have hundreds of thousands.
 */
import type { Database, Statement } from 'bun:sqlite';
import { BoundedCache } from '../../../lib/bounded-cache';
import type { ClickTarget } from '../stored-click';

const CACHED_TARGETS = 50_000;
type TargetRow = [string, string, string | null, string, string, number | null];
/** Serials (target-block.ts) kept: numbers only, so every target of 100,000 links and more fits. */
const CACHED_SERIALS = 400_000;

/** The writer's side: ids of targets, inserted (inside the caller's transaction) when new. */
export class TargetIds {
  private readonly cache = new BoundedCache<string, number>(CACHED_TARGETS);
  /**
   * By the redirect's target serial: no key to build and a number to hash. The string cache
   * above, bounded lower, then only holds clicks with an unknown variant code (their code is
   * not the target's) and replayed spills (no serial).
   */
  private readonly bySerial = new BoundedCache<number, number>(CACHED_SERIALS);
  private pending = 0;
  private readonly select: Statement<{ id: number }, TargetRow>;
  private readonly insert: Statement<{ id: number }, TargetRow>;

  constructor(sqlite: Database) {
    // `IS ?`: a null code (or rule) must match a null one, which `=` never does.
    this.select = sqlite.prepare(
      'SELECT id FROM click_targets WHERE link_id = ? AND variant_id = ? AND code IS ? AND destination = ? AND params = ? AND rule IS ?',
    );
    this.insert = sqlite.prepare(
      'INSERT INTO click_targets (link_id, variant_id, code, destination, params, rule) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
    );
  }

  /** `serial`: the redirect's target serial (target-block.ts), 0 when unknown. */
  idOf(serial: number, target: ClickTarget): number {
    // A serial names the link, variant, destination and params; the code is the variant's own
    // (or none) unless the address carried a code that matched no variant.
    if (serial > 0 && (target.code === null || target.variantId !== null)) {
      let id = this.bySerial.get(serial);
      if (id === undefined) {
        // Only the serial's entry: the string cache would just thrash with 100,000 links.
        id = this.stored(target);
        this.bySerial.set(serial, id);
      }
      return id;
    }
    const { linkId, variantId, code, destination, params, rule } = target;
    // \u0001 marks a null code, so a code can never collide with "no code".
    const key = `${linkId}\u0000${variantId ?? ''}\u0000${code ?? '\u0001'}\u0000${destination}\u0000${params}\u0000${rule ?? ''}`;
    let id = this.cache.get(key);
    if (id === undefined) {
      id = this.stored(target);
      this.cache.set(key, id);
    }
    return id;
  }

  /** The target's row id, inserted (inside the caller's transaction) when it has none yet. */
  private stored({ linkId, variantId, code, destination, params, rule }: ClickTarget): number {
    const found = this.select.get(linkId, variantId ?? '', code, destination, params, rule);
    if (found) return found.id;
    this.pending++;
    return this.insert.get(linkId, variantId ?? '', code, destination, params, rule)!.id;
  }

  commit(): void {
    this.pending = 0;
  }

  /**
   * The caller's transaction rolled back: the targets it inserted do not exist, and their ids
   * will be given again (the AUTOINCREMENT high-water mark rolls back too). No reader saw them.
   */
  rollback(): void {
    if (this.pending > 0) {
      this.cache.clear();
      this.bySerial.clear();
    }
    this.pending = 0;
  }
}

/**
 * The readers' side: a target by id. A cached entry stays right because an id is never given to
 * another row (AUTOINCREMENT: table.ts), even once its link and its targets were deleted.
 */
export class TargetNames {
  private readonly cache = new BoundedCache<number, ClickTarget>(CACHED_TARGETS);
  private readonly select: Statement<
    {
      link_id: string;
      variant_id: string;
      code: string | null;
      destination: string;
      params: string;
      rule: number | null;
    },
    [number]
  >;

  constructor(sqlite: Database) {
    this.select = sqlite.prepare(
      'SELECT link_id, variant_id, code, destination, params, rule FROM click_targets WHERE id = ?',
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
        rule: r.rule,
      };
      this.cache.set(id, t);
    }
    return t;
  }
}
