/**
 * Rebuilds every rollup bucket from the raw clicks. Migrations 0002 and 0006 replaced the rollup
 * format without converting it; a database that already holds clicks gets its buckets back from
 * them at the next start, so no recorded click goes missing from the statistics. Only the folded
 * clicks (up to the watermark) are counted: the ones after it are the fold's, which also counts
 * them in the link counters (fold.ts refoldUnfolded, run next). Imported daily counts, which have
 * no raw click, are added back from where the fold that counted them kept them (imported_days).
 * The raw clicks, the imported days and the watermark
 * come from the caller's ClickSource (rollups.ts): this module never names the click tables.
 */
import type { Database } from 'bun:sqlite';
import { type Clock, systemClock } from '../../../lib/clock';
import { DAY_MS, utcDay } from '../../../lib/time';
import { RollupValues } from '../rollup-values';
import { type ClickSource, type ImportedDay, RollupAccumulator } from '../rollups';
import { RollupStore } from './bucket-store';
import { markAllLinkDays } from './link-days';

const CHUNK = 20_000;

/** Returns how many clicks were counted; 0 (and no work) when buckets exist or no click does. */
export function rebuildRollupsIfMissing(sqlite: Database, source: ClickSource, clock: Clock = systemClock): number {
  const hasBuckets = sqlite.query('SELECT 1 FROM rollups LIMIT 1').get() !== null;
  if (hasBuckets || (!source.hasClicks() && source.importedDaysAfter(null, 1).length === 0)) return 0;
  const values = new RollupValues(sqlite);
  const store = new RollupStore(sqlite);
  let counted = 0;
  let after = 0;
  // One transaction: a crash half-way leaves no buckets, so the next start rebuilds again.
  sqlite
    .transaction(() => {
      const through = source.foldedThrough();
      while (after < through) {
        const clicks = source.readAfter(after, CHUNK).filter((c) => c.id <= through);
        if (clicks.length === 0) break;
        const acc = new RollupAccumulator(values);
        for (const c of clicks) acc.addClick(c, c.firstOfDay);
        store.apply(acc.buckets.values());
        counted += clicks.length;
        after = clicks[clicks.length - 1]!.id;
      }
      // Imported daily counts have no raw click: added back from where their fold kept them.
      let day: ImportedDay | null = null;
      for (;;) {
        const days = source.importedDaysAfter(day, CHUNK);
        if (days.length === 0) break;
        const acc = new RollupAccumulator(values);
        for (const d of days) acc.addCount(d.linkId, d.start, d.clicks);
        store.apply(acc.buckets.values());
        for (const d of days) counted += d.clicks;
        day = days[days.length - 1]!;
      }
      // Both grains are written whole: every link's day buckets can be trusted up to today.
      markAllLinkDays(sqlite, utcDay(clock.now()) * DAY_MS);
    })
    .immediate();
  values.commit();
  return counted;
}
