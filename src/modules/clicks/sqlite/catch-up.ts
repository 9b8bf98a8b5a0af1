/**
 * The start's own click writes, done before the click writer takes new clicks (server.ts):
 * rollups rebuilt when an older release left none, the clicks a killed writer wrote but never
 * folded, the clicks the last stop saved to the spill file. A write that changes nothing goes
 * first, to find out whether the disk takes writes at all; each step after it writes nothing
 * when it has nothing to do.
 */
import type { Database } from 'bun:sqlite';
import { checkWrites } from '../../../db/storage';
import { rebuildRollupsIfMissing, refoldUnfolded } from '../../rollups/public';
import { clickSource } from './raw-read';
import { type ReplayOptions, replaySpill } from './replay';

export interface CatchUpOptions extends ReplayOptions {
  /** The spill file (spill.ts spillPath). */
  spill: string;
}

/**
 * Runs them in order. Throws what stopped it, a storage failure (db/storage.ts) when the disk
 * is full or read-only: what a step wrote before is committed and the steps are safe to run
 * again (each finds what is left to do).
 */
export function catchUpClicks(sqlite: Database, options: CatchUpOptions): void {
  const { log, clock, counted } = options;
  checkWrites(sqlite);
  // The rollups read the raw clicks and the fold watermark only through what the clicks module hands them.
  const source = clickSource(sqlite);
  const rebuilt = rebuildRollupsIfMissing(sqlite, source, clock);
  if (rebuilt > 0) log.info(`statistics rebuilt from ${rebuilt} recorded clicks`);
  const refolded = refoldUnfolded(sqlite, source, clock, counted);
  if (refolded > 0) log.info(`${refolded} clicks written before the last stop counted in the statistics`);
  replaySpill(sqlite, options.spill, options);
  // A replay whose fold failed left its clicks written and unfolded: they are counted here, or
  // this throws and the next run counts them.
  refoldUnfolded(sqlite, source, clock, counted);
}
