/**
 * Rebuilds every rollup bucket from the raw clicks. Migration 0002 replaced the first rollup
 * format; a database that already holds clicks gets its buckets back from them at the next
 * start, so no recorded click goes missing from the statistics.
 */
import type { Database } from 'bun:sqlite';
import { hasClicks, readClicksAfter } from './raw-read';
import { RollupValues } from './rollup-values';
import { RollupAccumulator, RollupStore } from './rollups';

const CHUNK = 20_000;

/** Returns how many clicks were counted; 0 (and no work) when buckets exist or no click does. */
export function rebuildRollupsIfMissing(sqlite: Database): number {
  const hasBuckets = sqlite.query('SELECT 1 FROM rollup_buckets LIMIT 1').get() !== null;
  if (hasBuckets || !hasClicks(sqlite)) return 0;
  const values = new RollupValues(sqlite);
  const store = new RollupStore(sqlite);
  let counted = 0;
  let after = 0;
  // One transaction: a crash half-way leaves no buckets, so the next start rebuilds again.
  sqlite
    .transaction(() => {
      for (;;) {
        const clicks = readClicksAfter(sqlite, after, CHUNK);
        if (clicks.length === 0) break;
        const acc = new RollupAccumulator(values);
        for (const c of clicks) acc.addClick(c, c.firstOfDay);
        store.apply(acc.buckets.values());
        counted += clicks.length;
        after = clicks[clicks.length - 1]!.id;
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
