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
import { type Clock, systemClock } from '../../../lib/clock';
import { DAY_MS, utcDay } from '../../../lib/time';
import { PendingSums } from '../pending';
import { RollupValues } from '../rollup-values';
import { type ClickSource, valueIdsOf } from '../rollups';
import { RollupStore } from './bucket-store';
import { LinkDays } from './link-days';

export interface Folder {
  /**
   * Folds in its own IMMEDIATE transaction; throws (and nothing is written) when it fails.
   * `inside` runs last in it (the writer deletes the imported daily counts the sums hold).
   */
  fold(pending: PendingSums, through: number, inside?: () => void): void;
  /** Re-folds the clicks written after the watermark; returns how many. */
  refold(values: RollupValues): number;
}

/** Clicks re-read and folded per transaction by refold. */
const REFOLD_CHUNK = 50_000;

/**
 * Told, once a fold has committed, of the human clicks it added to a link's counter: a start
 * that waited for space read its links' counts before its own folds (server.ts), and the slug
 * index adds these to them for the click limits.
 */
export type CountedHumans = (linkId: string, humans: number) => void;

function report(pending: PendingSums, counted: CountedHumans | undefined): void {
  if (counted === undefined) return;
  for (const slot of pending.linksInOrder()) {
    const { humans } = pending.counters(slot);
    if (humans > 0) counted(pending.linkId(slot), humans);
  }
}

export function createFolder(sqlite: Database, clicks: ClickSource, clock: Clock, counted?: CountedHumans): Folder {
  const { links: linkCounters, variants: variantCounters } = clicks.prepareCounters();
  const linkDays = new LinkDays(sqlite);
  // The workspace buckets stay decoded between folds (see RollupStore).
  const rollupStore = new RollupStore(sqlite, { cacheWorkspace: true });

  const apply = sqlite.transaction((pending: PendingSums, through: number, inside?: () => void) => {
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
      const hours = pending.hourSpan(slot);
      const firstDay = utcDay(hours.from) * DAY_MS;
      rollupStore.hold(
        linkValue,
        hours,
        firstDay < mark ? { from: firstDay, to: Math.min(utcDay(hours.to) * DAY_MS, mark - DAY_MS) } : null,
      );
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
      rollupStore.release();
      const c = pending.counters(slot);
      linkCounters.bump(linkId, c.humans, c.uniques, c.bots, c.last);
    }
    // A variant of a link deleted meanwhile went with it: its update finds no row.
    for (const [id, n] of pending.variants) variantCounters.bump(id, n);
    rollupStore.writeWorkspace();
    clicks.markFolded(through);
    inside?.();
  });

  const fold = (pending: PendingSums, through: number, inside?: () => void): void => {
    try {
      // IMMEDIATE: take the write lock first, so a read-then-write never fails on a stale snapshot.
      apply.immediate(pending, through, inside);
    } catch (err) {
      rollupStore.discard();
      rollupStore.dropCache();
      linkDays.dropCache();
      throw err;
    }
    report(pending, counted);
  };

  /** One chunk of clicks after the watermark, summed and folded in one transaction; its sums, null when none. */
  const refoldChunk = sqlite.transaction((values: RollupValues): PendingSums | null => {
    const read = clicks.readAfter(clicks.foldedThrough(), REFOLD_CHUNK);
    if (read.length === 0) return null;
    const pending = new PendingSums();
    for (const c of read) pending.add(c, c.firstOfDay, valueIdsOf(values, c), values.idOf('link', '', c.linkId));
    apply(pending, read[read.length - 1]!.id);
    return pending;
  });

  const refold = (values: RollupValues): number => {
    let refolded = 0;
    for (;;) {
      let pending: PendingSums | null;
      try {
        pending = refoldChunk.immediate(values);
        values.commit();
      } catch (err) {
        values.rollback();
        rollupStore.discard();
        rollupStore.dropCache();
        linkDays.dropCache();
        throw err;
      }
      if (pending === null) return refolded;
      refolded += pending.clicks;
      report(pending, counted);
    }
  };

  return { fold, refold };
}

/**
 * One of the server's own writes at start (clicks/catch-up.ts): folds what a killed writer left
 * unfolded, before the writer opens (which then finds nothing left to fold). It runs before the
 * slug index reads the links' counts, or, when the start waited for space, after: `counted`
 * then tells the index what it added.
 */
export function refoldUnfolded(
  sqlite: Database,
  clicks: ClickSource,
  clock: Clock = systemClock,
  counted?: CountedHumans,
): number {
  const values = new RollupValues(sqlite);
  values.refresh();
  return createFolder(sqlite, clicks, clock, counted).refold(values);
}
