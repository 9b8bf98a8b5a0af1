/**
 * The click side's part of a server's start and stop, in one place (server.ts calls only this):
 * before the server listens, clicks an older release stored are converted and the start's own
 * click writes run (sqlite/catch-up.ts); when those fail for want of space the click writer is
 * held and they are tried again until they succeed (sqlite/start-writes.ts). At a stop, what the
 * final flush could not write goes to the spill file, replayed at the next start.
 */
import type { Config } from '../../config';
import type { Db } from '../../db/client';
import type { Clock } from '../../lib/clock';
import type { Logger } from '../../lib/log';
import { ownHostsOf } from './capture/pipeline';
import type { WireClick } from './capture/record';
import type { HoldReason } from './capture/sink';
import { spillAtStop, spillPath } from './capture/spill';
import { catchUpClicks } from './sqlite/catch-up';
import { readOnlySalts } from './sqlite/salts';
import { StartWrites } from './sqlite/start-writes';
import { upgradeClickStorage } from './sqlite/upgrade';

/** Where the clicks buffered at a stop ended up. */
export interface StopResult {
  /** Clicks the database would not take before the deadline, saved to the spill file. */
  spilled: number;
  /** Clicks neither the database nor the spill file took: lost. */
  lost: number;
}

/** What the running server hands the click start once its parts exist. */
export interface RunningClicks {
  /** Adds human clicks a late fold counted to a link's live count (the slug index's countStored). */
  counted(linkId: string, humans: number): void;
  /** Opens the held click writer (the pipeline's openWriter). */
  openWriter(): void;
}

export interface ClickStart {
  /** Why the click writer must wait (the start's writes failed for want of space), or undefined. */
  readonly writerHeld: HoldReason | undefined;
  /** Called once the slug index and the pipeline exist: a held writer's retries begin. */
  running(clicks: RunningClicks): void;
  /**
   * After the final flush: stops the retries and saves `left` (what the database would not take)
   * to the spill file, logging what was spilled or lost.
   */
  stop(left: readonly WireClick[], flushed: boolean): Promise<StopResult>;
}

/**
 * Converts an older release's clicks and runs the start's own click writes; throws what cannot
 * wait (the conversion failing, a failure of the writes other than want of space).
 */
export function startClickStorage(db: Db, config: Config, log: Logger, clock: Clock): ClickStart {
  const spill = spillPath(config.dbPath);
  const ownHosts = ownHostsOf(config);
  // Set once the slug index exists; the start's first attempt runs before it does.
  let running: RunningClicks | null = null;
  // The start's own click writes: before the writer takes new clicks and before the links (and
  // their counters) are read. A start that has to wait for space reads the links first; the
  // human clicks its folds count later are then added to the slug index's counts.
  const startWrites = new StartWrites(
    () =>
      catchUpClicks(db.$client, {
        spill,
        geoDb: config.geoDb,
        ownHosts,
        clock,
        log,
        counted: (linkId, humans) => running?.counted(linkId, humans),
      }),
    config.dbPath,
    log,
  );
  // Clicks stored by an older release are converted before the writer starts and before the
  // server listens: the writer's ids must follow the converted ones, and statistics must not
  // answer from half a conversion. On a large database this takes a while (progress is logged;
  // docs/operations.md, "Upgrading": run `slink migrate` first to keep it out of the start).
  // Like a migration, it cannot wait for space.
  upgradeClickStorage(db.$client, { log: (line) => log.info(line) });
  const ready = startWrites.attempt();
  return {
    writerHeld: ready ? undefined : startWrites,
    running(clicks) {
      running = clicks;
      if (!ready) startWrites.retry(config.flushMs, () => clicks.openWriter());
    },
    async stop(left, flushed) {
      startWrites.stop();
      const result = spillAtStop(
        readOnlySalts(db.$client),
        spill,
        left,
        { geoDb: config.geoDb, geoLevel: config.privacy.geo, ownHosts, clock },
        log,
      );
      if (left.length === 0 && !flushed) {
        // Every click is written; only the fold failed, which the next start redoes.
        log.error('final click fold failed: the written clicks are counted at the next start');
      }
      return result;
    },
  };
}
