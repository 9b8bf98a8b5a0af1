/**
 * The fold on PostgreSQL: counts the click deltas (postgres/deltas.ts) into the link and variant
 * counters and the rollup buckets, and deletes them, in one transaction per step: a delta is
 * counted exactly once whoever folds it and whenever (a writer killed before its fold leaves its
 * deltas to the next fold, of any writer or node).
 *
 * One fold at a time (ROLLUP_FOLD_LOCK): the buckets are then read and rewritten without row
 * locks (rollups/postgres/buckets.ts). It holds the click barrier shared, as a batch does, so a
 * link's deletion (which takes it exclusively) never runs between its check of which links
 * still exist and its commit: clicks of a link deleted after their batch are dropped here.
 */
import type { Pg } from '../../../db/postgres/client';
import { CLICK_BARRIER_LOCK, ROLLUP_FOLD_LOCK } from '../../../db/postgres/locks';
import { type Clock, systemClock } from '../../../lib/clock';
import { markStep } from '../../../lib/step-cpu';
import { DAY_MS, utcDay } from '../../../lib/time';
import { bumpLinkCounters, existingLinks } from '../../links/public';
import { PendingSums, PgRollupWriter } from '../../rollups/public';
import { bumpVariantCounters } from '../../variants/public';
import { addDelta } from './deltas';

/** Deltas counted per transaction: up to this many batches' clicks are summed in memory at once. */
export const FOLD_DELTAS = 32;

export class PgFolder {
  private readonly pending = new PendingSums();
  private readonly rollups = new PgRollupWriter();

  constructor(
    private readonly sql: Pg,
    private readonly clock: Clock = systemClock,
  ) {}

  /** Counts every delta there is; returns the clicks counted. */
  async fold(): Promise<number> {
    let counted = 0;
    for (;;) {
      const step = await this.step();
      counted += step.clicks;
      if (step.deltas < FOLD_DELTAS) return counted;
    }
  }

  private async step(): Promise<{ deltas: number; clicks: number }> {
    const pending = this.pending;
    pending.clear();
    try {
      const done = await this.sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${ROLLUP_FOLD_LOCK})`;
        await tx`SELECT pg_advisory_xact_lock_shared(${CLICK_BARRIER_LOCK})`;
        const rows = await tx`DELETE FROM click_deltas
          WHERE id IN (SELECT id FROM click_deltas ORDER BY id LIMIT ${FOLD_DELTAS})
          RETURNING data`;
        markStep('fold: locks, deltas taken');
        let clicks = 0;
        for (const r of rows as { data: Uint8Array }[]) clicks += addDelta(r.data, pending);
        markStep('fold: deltas decoded and summed');
        if (clicks === 0) return { deltas: rows.length, clicks };
        const kept = await existingLinks(tx, pending.linkIds());
        markStep('fold: link check');
        // In link id order, sorted once for the counters and the buckets.
        const links = pending.linksInOrder().filter((slot) => kept.has(pending.linkId(slot)));
        const bumped = bumpLinkCounters(
          tx,
          links.map((slot) => pending.counterBump(slot)),
        );
        markStep('fold: counters, arrays built');
        await bumped;
        markStep('fold: counters, awaited');
        await bumpVariantCounters(tx, pending.variants);
        markStep('fold: variants');
        await this.rollups.add(tx, pending, kept, utcDay(this.clock.now()) * DAY_MS, links);
        return { deltas: rows.length, clicks };
      });
      markStep('fold: commit');
      return done;
    } catch (err) {
      // What the cache holds may be what this rolled-back transaction wrote.
      this.rollups.dropCache();
      throw err;
    }
  }
}
