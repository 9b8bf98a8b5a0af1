/**
 * click_targets on PostgreSQL: a click's "where it went" (variant id, code, destination, params, rule)
 * as one id, as on SQLite (sqlite/click-targets.ts). A link's plain target (no variant, code or
 * rule) is made with the link (`namePlainTargetsPg`, in its creation's transaction), so a
 * batch's targets not cached here are first read, in one statement; only those still missing
 * (a variant's, a rule's, a link made before targets were made with it or since edited) are
 * inserted before the batch's transaction, in one statement, committed on their own (several
 * writers insert the same target at most once: the unique index decides, and each reads the id
 * back).
 */

import { num, type Pg, type PgFragment } from '../../../db/postgres/client';
import { BoundedCache } from '../../../lib/bounded-cache';
import type { EnrichedClick } from '../enrich/enrich';

const CACHED_TARGETS = 50_000;
const CACHED_SERIALS = 400_000;

function keyOf(c: EnrichedClick): string {
  // \u0001 marks a null code, so a code can never collide with "no code".
  return `${c.linkId}\u0000${c.variantId ?? ''}\u0000${c.code ?? '\u0001'}\u0000${c.destination}\u0000${c.paramsJson}\u0000${c.rule ?? ''}`;
}

/** A serial names the target unless the address carried a code that matched no variant. */
function bySerial(c: EnrichedClick): boolean {
  return c.serial > 0 && (c.code === null || c.variantId !== null);
}

/** The six columns of these targets, as the arrays `unnest` takes (one fragment). */
function columns(sql: Pg, list: readonly EnrichedClick[]) {
  const text = (pick: (c: EnrichedClick) => string | null) => sql`${sql.array(list.map(pick), 'text')}::text[]`;
  return sql`${text((c) => c.linkId)}, ${text((c) => c.variantId ?? '')}, ${text((c) => c.code)},
    ${text((c) => c.destination)}, ${text((c) => c.paramsJson)}, ${sql`${sql.array(
      list.map((c) => c.rule),
      'int4',
    )}::int4[]`}`;
}

/** A link's plain target: where its clicks without a variant, code or rule go. */
export interface PlainTarget {
  linkId: string;
  /** The destination with the link's params applied (the redirect's Location). */
  location: string;
  paramsJson: string;
}

/**
 * Gives these links their plain click target, in the caller's transaction (the links'
 * creation), so a link's first click reads its target instead of inserting it. A target already
 * there is kept.
 */
export async function namePlainTargetsPg(tx: Pg, targets: readonly PlainTarget[]): Promise<void> {
  if (targets.length === 0) return;
  const sorted = [...targets].sort((a, b) => (a.linkId < b.linkId ? -1 : a.linkId > b.linkId ? 1 : 0));
  await tx`INSERT INTO click_targets (link_id, variant_id, code, destination, params, rule)
    SELECT u.link_id, '', NULL, u.destination, u.params, NULL
    FROM unnest(${tx.array(
      sorted.map((t) => t.linkId),
      'text',
    )}::text[], ${tx.array(
      sorted.map((t) => t.location),
      'text',
    )}::text[], ${tx.array(
      sorted.map((t) => t.paramsJson),
      'text',
    )}::text[]) AS u(link_id, destination, params)
    ON CONFLICT DO NOTHING`;
}

/**
 * The plain click targets (no variant, code or rule) of the link whose id is `linkId` (a column
 * of the caller's query), as JSON text of [id, destination, params] each, or null: the slug index
 * reads them with the link (links' redirect rows) and keeps the one it serves, so its clicks
 * carry it. Compared in the targets' collation, or their index is not used (links' ids are "C").
 */
export function plainTargetsColumnPg(sql: Pg, linkId: PgFragment): PgFragment {
  return sql`(SELECT json_agg(json_build_array(t.id, t.destination, t.params))::text FROM click_targets t
    WHERE t.link_id = ${linkId} COLLATE "default" AND t.variant_id = '' AND t.code IS NULL AND t.rule IS NULL)`;
}

export class PgTargets {
  private readonly byKey: BoundedCache<string, number>;
  private readonly bySerial: BoundedCache<number, number>;

  /** `cached`: targets kept by key (tests make it small), and four times as many by serial. */
  constructor(
    private readonly sql: Pg,
    cached = CACHED_TARGETS,
  ) {
    this.byKey = new BoundedCache(cached);
    this.bySerial = new BoundedCache(cached === CACHED_TARGETS ? CACHED_SERIALS : cached * 4);
  }

  private cached(c: EnrichedClick): number | undefined {
    // The id the click carried from the slug index (its link's plain target, as stored).
    if (c.targetId) return c.targetId;
    return bySerial(c) ? this.bySerial.get(c.serial) : this.byKey.get(keyOf(c));
  }

  /**
   * Reads the ids of these targets into `found` (and the cache by key); returns those not
   * stored.
   */
  private async read(list: readonly EnrichedClick[], found: Map<string, number>): Promise<EnrichedClick[]> {
    // One row: the ids in the list's order (null where none), not a row per target. A subquery
    // a target, not a join: a join is planned as a hash of every target stored, per batch.
    const [row] = await this.sql`SELECT array_agg((SELECT t.id FROM click_targets t
        WHERE t.link_id = u.link_id AND t.variant_id = u.variant_id
          AND t.code IS NOT DISTINCT FROM u.code AND t.destination = u.destination AND t.params = u.params
          AND t.rule IS NOT DISTINCT FROM u.rule) ORDER BY u.ord) AS ids
      FROM unnest(${columns(this.sql, list)}) WITH ORDINALITY AS u(link_id, variant_id, code, destination, params, rule, ord)`;
    const ids = row.ids as ArrayLike<number | null>;
    const absent: EnrichedClick[] = [];
    list.forEach((c, k) => {
      const id = ids[k];
      if (id === null || id === undefined) {
        absent.push(c);
        return;
      }
      const key = keyOf(c);
      found.set(key, num(id));
      this.byKey.set(key, num(id));
    });
    return absent;
  }

  /** The target id of each click, reading (and if need be inserting) the ones not cached first. */
  async idsOf(clicks: readonly EnrichedClick[]): Promise<number[]> {
    // Known ids are taken now and the batch's new ones kept apart from the cache: the cache may
    // start over while the new ones are remembered (more than it holds), and every click of the
    // batch must still find its id below.
    const known = clicks.map((c) => this.cached(c));
    const found = new Map<string, number>();
    const unknown = new Map<string, EnrichedClick>();
    clicks.forEach((c, i) => {
      if (known[i] === undefined) unknown.set(keyOf(c), c);
    });
    if (unknown.size > 0) {
      const list = [...unknown.values()];
      const absent = await this.read(list, found);
      if (absent.length > 0) {
        await this.sql`INSERT INTO click_targets (link_id, variant_id, code, destination, params, rule)
          SELECT * FROM unnest(${columns(this.sql, absent)}) ORDER BY 1, 2, 3, 4, 5, 6
          ON CONFLICT DO NOTHING`;
        await this.read(absent, found);
      }
    }
    return clicks.map((c, i) => {
      let id = known[i];
      if (id === undefined) {
        id = found.get(keyOf(c));
        if (id === undefined) throw new Error(`click target of ${c.linkId} is missing after its insert`);
        if (bySerial(c)) this.bySerial.set(c.serial, id);
      }
      return id;
    });
  }
}
