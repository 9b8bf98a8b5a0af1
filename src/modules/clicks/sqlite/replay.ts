/**
 * The spill file's replay on SQLite (capture/spill.ts writes the file): one of the start's own
 * writes (catch-up.ts), before the click writer takes new clicks.
 */
import type { Database } from 'bun:sqlite';
import { existsSync } from 'node:fs';
import { storageFailure } from '../../../db/storage';
import type { Logger } from '../../../lib/log';
import { DAY_MS } from '../../../lib/time';
import type { CountedHumans } from '../../rollups/public';
import { openGeoOrNone, readSpill, type SpillOptions, spillReplayed } from '../capture/spill';
import type { EnrichedClick } from '../enrich/enrich';
import { noGeo } from '../enrich/geo';
import { SqliteClickWriter } from './store';

export interface ReplayOptions extends SpillOptions {
  log: Logger;
  counted?: CountedHumans;
}

/**
 * Writes the clicks of the spill file (if there is one) in one transaction through a SqliteClickWriter
 * on `sqlite`, deletes the file, then folds them. Returns how many clicks were replayed. A
 * storage failure (a full disk) before the clicks are written is thrown, the file kept, for the
 * caller to try again once space returns; any other failure is logged and leaves the file for
 * the next start. A fold that fails is logged: the clicks are written, the next refold counts
 * them (catch-up.ts).
 */
export function replaySpill(sqlite: Database, path: string, options: ReplayOptions): number {
  if (!existsSync(path)) return 0;
  const { log } = options;
  let store: SqliteClickWriter | null = null;
  let replayed = 0;
  try {
    const { clicks, salts, unreadable } = readSpill(path);
    if (unreadable > 0) log.error(`${unreadable} unreadable lines in ${path} skipped`);
    if (clicks.length > 0) {
      // Each click's first visit is decided against those stored for its own day, however old.
      let oldest = Number.POSITIVE_INFINITY;
      for (const { click } of clicks) oldest = Math.min(oldest, click.time);
      const captured = clicks.some((c) => c.kind === 'captured');
      const geo = captured ? openGeoOrNone(options.geoDb) : noGeo;
      store = new SqliteClickWriter(sqlite, geo, options.ownHosts, options.clock, {
        firstVisitsFrom: Math.floor(oldest / DAY_MS) * DAY_MS,
        counted: options.counted,
      });
      for (const [day, salt] of salts) store.adoptSalt(day, salt);
      const enriched: EnrichedClick[] = clicks.map((c) => (c.kind === 'enriched' ? c.click : store!.enrich(c.click)));
      // One transaction: either every click of the file is written, or none is and the file stays.
      const outcome = store.writeEnriched(enriched);
      replayed = outcome.written;
      if (outcome.skipped > 0) log.info(`${outcome.skipped} clicks saved at the last stop skipped: their link is gone`);
    }
  } catch (err) {
    if (storageFailure(err) !== null) throw err;
    log.error(`replaying the clicks saved at the last stop failed; ${path} is kept for the next start`, err);
    return 0;
  }
  spillReplayed(path, replayed, log);
  try {
    store?.fold();
  } catch (err) {
    log.error('folding the replayed clicks failed; they are counted at the next fold', err);
  }
  return replayed;
}
