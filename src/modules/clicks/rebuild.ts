/**
 * Rebuilds every rollup bucket from the raw clicks. Migration 0002 replaced the first rollup
 * format; a database that already holds clicks gets its buckets back from them at the next
 * start, so no recorded click goes missing from the statistics.
 */
import type { Database } from 'bun:sqlite';
import { type StoredClick, storedDimensions } from './read-clicks';
import { RollupValues } from './rollup-values';
import { RollupAccumulator, type RollupClick, RollupStore } from './rollups';

type RawRow = Omit<StoredClick, 'destination'> & { first_of_day: number };

const CHUNK = 20_000;

/** Returns how many clicks were counted; 0 (and no work) when buckets exist or no click does. */
export function rebuildRollupsIfMissing(sqlite: Database): number {
  const hasBuckets = sqlite.query('SELECT 1 FROM rollup_buckets LIMIT 1').get() !== null;
  const hasClicks = sqlite.query('SELECT 1 FROM clicks LIMIT 1').get() !== null;
  if (hasBuckets || !hasClicks) return 0;
  const values = new RollupValues(sqlite);
  const store = new RollupStore(sqlite);
  const page = sqlite.query<RawRow, [number, number]>(
    `SELECT id, link_id, timestamp, bot, variant_code, variant_id, params, country, city, device, os, browser,
       referrer, traffic_type, language, first_of_day FROM clicks WHERE id > ? ORDER BY id LIMIT ?`,
  );
  let counted = 0;
  let after = 0;
  // One transaction: a crash half-way leaves no buckets, so the next start rebuilds again.
  sqlite
    .transaction(() => {
      for (;;) {
        const rows = page.all(after, CHUNK);
        if (rows.length === 0) break;
        const acc = new RollupAccumulator(values);
        for (const r of rows) acc.addClick(toRollupClick(r), r.first_of_day === 1);
        store.apply(acc.buckets.values());
        counted += rows.length;
        after = rows[rows.length - 1]!.id;
      }
      // Every click is in the buckets now: a writer opening later must not fold them again.
      sqlite
        .query(
          `INSERT INTO click_state (name, value) VALUES ('folded_through', ?)
           ON CONFLICT (name) DO UPDATE SET value = max(value, excluded.value)`,
        )
        .run(after);
    })
    .immediate();
  values.commit();
  return counted;
}

function toRollupClick(r: RawRow): RollupClick {
  return {
    linkId: r.link_id,
    time: r.timestamp,
    bot: r.bot === 1,
    code: r.variant_code,
    variantId: r.variant_id,
    ...storedDimensions(r),
  };
}
