/**
 * click_targets on PostgreSQL: a click's "where it went" (variant id, code, destination, params, rule)
 * as one id, as on SQLite (sqlite/click-targets.ts). A batch's unknown targets are inserted
 * before its transaction, in one statement, committed on their own (several writers insert the
 * same target at most once: the unique index decides, and each reads the id back).
 */

import { num, type Pg } from '../../../db/postgres/client';
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
    return bySerial(c) ? this.bySerial.get(c.serial) : this.byKey.get(keyOf(c));
  }

  /** The target id of each click, inserting the unknown targets first. */
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
      const cols = [
        this.sql.array(
          list.map((c) => c.linkId),
          'text',
        ),
        this.sql.array(
          list.map((c) => c.variantId ?? ''),
          'text',
        ),
        this.sql.array(
          list.map((c) => c.code),
          'text',
        ),
        this.sql.array(
          list.map((c) => c.destination),
          'text',
        ),
        this.sql.array(
          list.map((c) => c.paramsJson),
          'text',
        ),
      ];
      const rules = this.sql.array(
        list.map((c) => c.rule),
        'int4',
      );
      await this.sql`INSERT INTO click_targets (link_id, variant_id, code, destination, params, rule)
        SELECT * FROM unnest(${cols[0]}::text[], ${cols[1]}::text[], ${cols[2]}::text[], ${cols[3]}::text[], ${cols[4]}::text[],
          ${rules}::int4[])
        ORDER BY 1, 2, 3, 4, 5, 6
        ON CONFLICT DO NOTHING`;
      const rows = await this
        .sql`SELECT t.id, u.ord FROM unnest(${cols[0]}::text[], ${cols[1]}::text[], ${cols[2]}::text[],
          ${cols[3]}::text[], ${cols[4]}::text[], ${rules}::int4[])
          WITH ORDINALITY AS u(link_id, variant_id, code, destination, params, rule, ord)
        JOIN click_targets t ON t.link_id = u.link_id AND t.variant_id = u.variant_id
          AND t.code IS NOT DISTINCT FROM u.code AND t.destination = u.destination AND t.params = u.params
          AND t.rule IS NOT DISTINCT FROM u.rule`;
      for (const r of rows) {
        const c = list[num(r.ord) - 1]!;
        const id = num(r.id);
        found.set(keyOf(c), id);
        this.byKey.set(keyOf(c), id);
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
