/**
 * The fold: the written clicks' pending sums (pending.ts) go into the rollup buckets, the link
 * counters and the variant counters in ONE transaction that also moves the watermark
 * (`folded_through`) to the last click they count. Everything up to the watermark is counted,
 * nothing after it: a writer that dies with sums in memory loses nothing, the next one re-reads
 * the clicks after the watermark and folds them (`refold`).
 *
 * The raw clicks and the watermark belong to the clicks module (the watermark is a row of its
 * click_state, next to the last click id): the fold reads and moves them only through the
 * ClickSource the caller passes in (rollups.ts; clicks/raw-read.ts clickSource makes one), so
 * this module never imports the clicks module nor names its tables.
 *
 * A link's sums go to its hour buckets; its days are rolled up from them once they are over
 * (link-days.ts), so only a late click of a day already rolled up goes to a link day bucket here.
 * The workspace's buckets, both grains, are derived here from the links' sums, skipping links deleted since
 * their clicks were written (checked inside this transaction): a link delete takes the link's
 * folded buckets out of the workspace's (rollups.ts forgetLinkRollups), and its pending sums
 * never get there.
 */
import type { Database } from 'bun:sqlite';
import { type Clock, systemClock } from '../../lib/clock';
import { DAY_MS, utcDay } from '../../lib/time';
import { prepareLinkCounters } from '../links/counters';
import { prepareVariantCounters } from '../variants/counters';
import { LinkDays } from './link-days';
import { PendingSums } from './pending';
import { RollupValues } from './rollup-values';
import { type ClickSource, RollupStore, valueIdsOf } from './rollups';

export interface Folder {
  /** Folds in its own IMMEDIATE transaction; throws (and nothing is written) when it fails. */
  fold(pending: PendingSums, through: number): void;
  /** Re-folds the clicks written after the watermark; returns how many. */
  refold(values: RollupValues): number;
}

/** Clicks re-read and folded per transaction by refold. */
const REFOLD_CHUNK = 50_000;

export function createFolder(sqlite: Database, clicks: ClickSource, clock: Clock): Folder {
  const linkCounters = prepareLinkCounters(sqlite);
  const linkDays = new LinkDays(sqlite);
  const variantCounters = prepareVariantCounters(sqlite);
  // The workspace buckets stay decoded between folds (see RollupStore).
  const rollupStore = new RollupStore(sqlite, { cacheWorkspace: true });

  const apply = sqlite.transaction((pending: PendingSums, through: number) => {
    const exists = linkCounters.existing(pending.linkIds());
    const today = utcDay(clock.now()) * DAY_MS;
    // In link id order: the links' buckets and rows are then visited in key order, a B-tree page
    // after the other, instead of at random.
    for (const slot of pending.linksInOrder()) {
      const linkId = pending.linkId(slot);
      // Deleted since its clicks were written (and they with it): nothing to count.
      if (!exists.has(linkId)) continue;
      const linkValue = pending.linkValue(slot);
      // The link's days come from its hour buckets, rolled up once a day is over (link-days.ts);
      // only a click of a day already rolled up goes to its day bucket now.
      const mark = linkDays.advance(linkValue, today);
      pending.forEachHour(slot, (h) => {
        const day = utcDay(h.start) * DAY_MS;
        rollupStore.addHour(linkValue, 'hour', h.start, h);
        if (day < mark) rollupStore.addHour(linkValue, 'day', day, h);
        // The workspace's hour and day, which also count clicks per link (dim `link`).
        for (const w of [rollupStore.workspace('hour', h.start, h.bot), rollupStore.workspace('day', day, h.bot)]) {
          w.clicks += h.clicks;
          w.uniques += h.uniques;
          w.counts.addPairs(h.ids, h.counts, h.size);
          w.counts.add(linkValue, h.clicks);
        }
      });
      const c = pending.counters(slot);
      linkCounters.bump(linkId, c.humans, c.uniques, c.bots, c.last);
    }
    // A variant of a link deleted meanwhile went with it: its update finds no row.
    for (const [id, n] of pending.variants) variantCounters.bump(id, n);
    rollupStore.writeWorkspace();
    clicks.markFolded(through);
  });

  const fold = (pending: PendingSums, through: number): void => {
    try {
      // IMMEDIATE: take the write lock first, so a read-then-write never fails on a stale snapshot.
      apply.immediate(pending, through);
    } catch (err) {
      rollupStore.dropCache();
      linkDays.dropCache();
      throw err;
    }
  };

  /** One chunk of clicks after the watermark, summed and folded in one transaction; how many. */
  const refoldChunk = sqlite.transaction((values: RollupValues): number => {
    const read = clicks.readAfter(clicks.foldedThrough(), REFOLD_CHUNK);
    if (read.length === 0) return 0;
    const pending = new PendingSums();
    for (const c of read) pending.add(c, c.firstOfDay, valueIdsOf(values, c), values.idOf('link', '', c.linkId));
    apply(pending, read[read.length - 1]!.id);
    return read.length;
  });

  const refold = (values: RollupValues): number => {
    let counted = 0;
    for (;;) {
      let n: number;
      try {
        n = refoldChunk.immediate(values);
        values.commit();
      } catch (err) {
        values.rollback();
        rollupStore.dropCache();
        linkDays.dropCache();
        throw err;
      }
      if (n === 0) return counted;
      counted += n;
    }
  };

  return { fold, refold };
}

/**
 * The server's start, before anything reads a counter (the slug index loads the links' click
 * counts for click limits): folds what a killed writer left unfolded. The writer's own open
 * then finds nothing left to fold.
 */
export function refoldUnfolded(sqlite: Database, clicks: ClickSource, clock: Clock = systemClock): number {
  const values = new RollupValues(sqlite);
  values.refresh();
  return createFolder(sqlite, clicks, clock).refold(values);
}
