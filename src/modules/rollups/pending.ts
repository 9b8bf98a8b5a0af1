/**
 * What the written clicks add to rollups and counters, summed per link in the writer's memory
 * until the next fold (fold.ts): per link, its hour buckets by (hour, bot) with their breakdown
 * counts, its human, unique and bot clicks and its newest human click; and the human clicks per
 * variant. Day buckets and the workspace's buckets are derived from these at fold time, so a
 * click costs one bucket here instead of four.
 *
 * Everything lives in typed arrays that are reused from fold to fold, not in objects: with
 * 100,000 links a fold's worth of clicks made tens of thousands of maps that lived just long
 * enough to leave the young generation, and the writer's heap grew by hundreds of megabytes
 * between full collections (docs/performance.md). Three tables, each a slot index:
 * - links: a slot per link, found by its value id;
 * - hours: a slot per (link, hour, bot), chained per link (a link has one or two);
 * - entries: a (hour slot, value id) -> clicks count, chained per hour and found through an
 *   open-addressing hash table.
 */
import { hourStart } from '../../lib/time';
import { grown } from '../../lib/typed-arrays';
import type { RollupClick } from './rollups';

const NONE = -1;

/** What of a click the sums count (its breakdown comes as value ids). */
export type PendingClick = Pick<RollupClick, 'linkId' | 'time' | 'bot' | 'variantId'>;

/** One hour bucket of a link, as the fold reads it. */
export interface PendingHour {
  start: number;
  bot: boolean;
  clicks: number;
  uniques: number;
  /** The breakdown value ids in ascending order, and their clicks, `size` of them. */
  ids: Int32Array;
  counts: Int32Array;
  size: number;
}

export class PendingSums {
  /** Clicks summed since the last clear. */
  clicks = 0;
  /** performance.now() when the first of them was added. */
  since = 0;
  /** Human clicks per variant id. */
  readonly variants = new Map<string, number>();

  // Links: slotOfValue[link value id] is the slot + 1 (0: none).
  private slotOfValue = new Int32Array(1024);
  private linkCount = 0;
  private readonly linkIdOf: string[] = [];
  private linkValueOf = new Int32Array(256);
  private humans = new Int32Array(256);
  private uniques = new Int32Array(256);
  private bots = new Int32Array(256);
  /** The newest human click, NaN when none. */
  private last = new Float64Array(256);
  private firstHour = new Int32Array(256);

  // Hours.
  private hourCount = 0;
  private hourStartOf = new Float64Array(256);
  private hourBot = new Int32Array(256);
  private hourClicks = new Int32Array(256);
  private hourUniques = new Int32Array(256);
  private hourNext = new Int32Array(256);
  private hourFirstEntry = new Int32Array(256);
  private hourSize = new Int32Array(256);

  // Entries and their hash table (entry index, NONE when free), at most half full.
  private entryCount = 0;
  private entryHour = new Int32Array(1024);
  private entryValue = new Int32Array(1024);
  private entryClicks = new Int32Array(1024);
  private entryNext = new Int32Array(1024);
  private table = new Int32Array(2048).fill(NONE);

  // The fold's scratch space for one hour's sorted breakdown.
  private scratchIds = new Int32Array(64);
  private scratchCounts = new Int32Array(64);

  /** Adds one written click; `ids` are its breakdown value ids (rollups.ts valueIdsOf). */
  add(c: PendingClick, unique: boolean, ids: ArrayLike<number>, linkValue: number): void {
    if (this.clicks++ === 0) this.since = performance.now();
    const link = this.linkSlot(linkValue, c.linkId);
    const hour = this.hourSlot(link, hourStart(c.time), c.bot);
    this.hourClicks[hour]!++;
    if (unique) this.hourUniques[hour]!++;
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      // Not `this.entryClicks[this.entry(...)]++`: the array is read before entry() may grow it.
      const e = this.entry(hour, id);
      this.entryClicks[e]!++;
    }
    if (c.bot) {
      this.bots[link]!++;
      return;
    }
    this.humans[link]!++;
    if (unique) this.uniques[link]!++;
    const last = this.last[link]!;
    if (Number.isNaN(last) || c.time > last) this.last[link] = c.time;
    if (c.variantId) this.variants.set(c.variantId, (this.variants.get(c.variantId) ?? 0) + 1);
  }

  /**
   * Adds `clicks` human clicks of a link with no breakdown, no unique and no newest click: an
   * imported daily count (imports/history), put in the first hour of its day, which is all the
   * source says of when they happened.
   */
  addCount(linkId: string, linkValue: number, hour: number, clicks: number): void {
    if (clicks <= 0) return;
    if (this.clicks === 0) this.since = performance.now();
    this.clicks += clicks;
    const link = this.linkSlot(linkValue, linkId);
    const h = this.hourSlot(link, hourStart(hour), false);
    this.hourClicks[h]! += clicks;
    this.humans[link]! += clicks;
  }

  private linkSlot(linkValue: number, linkId: string): number {
    this.slotOfValue = grown(this.slotOfValue, linkValue + 1);
    const found = this.slotOfValue[linkValue]!;
    if (found > 0) return found - 1;
    const slot = this.linkCount++;
    if (slot >= this.linkValueOf.length) {
      const need = slot + 1;
      this.linkValueOf = grown(this.linkValueOf, need);
      this.humans = grown(this.humans, need);
      this.uniques = grown(this.uniques, need);
      this.bots = grown(this.bots, need);
      this.last = grown(this.last, need);
      this.firstHour = grown(this.firstHour, need);
    }
    this.slotOfValue[linkValue] = slot + 1;
    this.linkIdOf[slot] = linkId;
    this.linkValueOf[slot] = linkValue;
    this.humans[slot] = 0;
    this.uniques[slot] = 0;
    this.bots[slot] = 0;
    this.last[slot] = Number.NaN;
    this.firstHour[slot] = NONE;
    return slot;
  }

  private hourSlot(link: number, start: number, bot: boolean): number {
    const botFlag = bot ? 1 : 0;
    for (let h = this.firstHour[link]!; h !== NONE; h = this.hourNext[h]!)
      if (this.hourStartOf[h] === start && this.hourBot[h] === botFlag) return h;
    const h = this.hourCount++;
    if (h >= this.hourClicks.length) {
      const need = h + 1;
      this.hourStartOf = grown(this.hourStartOf, need);
      this.hourBot = grown(this.hourBot, need);
      this.hourClicks = grown(this.hourClicks, need);
      this.hourUniques = grown(this.hourUniques, need);
      this.hourNext = grown(this.hourNext, need);
      this.hourFirstEntry = grown(this.hourFirstEntry, need);
      this.hourSize = grown(this.hourSize, need);
    }
    this.hourStartOf[h] = start;
    this.hourBot[h] = botFlag;
    this.hourClicks[h] = 0;
    this.hourUniques[h] = 0;
    this.hourFirstEntry[h] = NONE;
    this.hourSize[h] = 0;
    this.hourNext[h] = this.firstHour[link]!;
    this.firstHour[link] = h;
    return h;
  }

  /** The entry of (hour, value id), made with 0 clicks when new. */
  private entry(hour: number, id: number): number {
    const mask = this.table.length - 1;
    // Multiplicative hashing of both halves of the key; Math.imul keeps it in 32 bits.
    let i = (Math.imul(hour, 0x9e3779b1) ^ Math.imul(id, 0x85ebca6b)) & mask;
    for (;;) {
      const e = this.table[i]!;
      if (e === NONE) break;
      if (this.entryHour[e] === hour && this.entryValue[e] === id) return e;
      i = (i + 1) & mask;
    }
    const e = this.entryCount++;
    if (e >= this.entryHour.length) {
      const need = e + 1;
      this.entryHour = grown(this.entryHour, need);
      this.entryValue = grown(this.entryValue, need);
      this.entryClicks = grown(this.entryClicks, need);
      this.entryNext = grown(this.entryNext, need);
    }
    this.entryHour[e] = hour;
    this.entryValue[e] = id;
    this.entryClicks[e] = 0;
    this.entryNext[e] = this.hourFirstEntry[hour]!;
    this.hourFirstEntry[hour] = e;
    this.hourSize[hour]!++;
    if (this.entryCount * 2 > this.table.length) {
      this.rehash(this.table.length * 2);
      return e;
    }
    this.table[i] = e;
    return e;
  }

  private rehash(size: number): void {
    this.table = new Int32Array(size).fill(NONE);
    const mask = size - 1;
    for (let e = 0; e < this.entryCount; e++) {
      let i = (Math.imul(this.entryHour[e]!, 0x9e3779b1) ^ Math.imul(this.entryValue[e]!, 0x85ebca6b)) & mask;
      while (this.table[i] !== NONE) i = (i + 1) & mask;
      this.table[i] = e;
    }
  }

  /** The link slots in link id order: the fold then visits rows in key order, page after page. */
  linksInOrder(): number[] {
    const slots = Array.from({ length: this.linkCount }, (_, i) => i);
    const ids = this.linkIdOf;
    return slots.sort((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0));
  }

  linkId(slot: number): string {
    return this.linkIdOf[slot]!;
  }

  /** The link ids with sums, in slot order. */
  linkIds(): string[] {
    return this.linkIdOf.slice(0, this.linkCount);
  }

  linkValue(slot: number): number {
    return this.linkValueOf[slot]!;
  }

  /** A link's human, unique and bot clicks and its newest human click (null: none). */
  counters(slot: number): { humans: number; uniques: number; bots: number; last: number | null } {
    const last = this.last[slot]!;
    return {
      humans: this.humans[slot]!,
      uniques: this.uniques[slot]!,
      bots: this.bots[slot]!,
      last: Number.isNaN(last) ? null : last,
    };
  }

  /** The same with the link's id, in one object (the fold makes one a link). */
  counterBump(slot: number): { id: string; humans: number; uniques: number; bots: number; last: number | null } {
    const last = this.last[slot]!;
    return {
      id: this.linkIdOf[slot]!,
      humans: this.humans[slot]!,
      uniques: this.uniques[slot]!,
      bots: this.bots[slot]!,
      last: Number.isNaN(last) ? null : last,
    };
  }

  /** The first and last hour start among a link's hour buckets (the fold reads that span at once). */
  hourSpan(slot: number): { from: number; to: number } {
    let from = Number.POSITIVE_INFINITY;
    let to = Number.NEGATIVE_INFINITY;
    for (let h = this.firstHour[slot]!; h !== NONE; h = this.hourNext[h]!) {
      const start = this.hourStartOf[h]!;
      if (start < from) from = start;
      if (start > to) to = start;
    }
    return { from, to };
  }

  /**
   * Calls `fn` with each hour bucket of a link. The hour's `ids` and `counts` are scratch
   * arrays, overwritten by the next hour: use them before `fn` returns.
   */
  forEachHour(slot: number, fn: (hour: PendingHour) => void): void {
    for (let h = this.firstHour[slot]!; h !== NONE; h = this.hourNext[h]!) {
      const size = this.hourSize[h]!;
      if (size > this.scratchIds.length) {
        this.scratchIds = grown(this.scratchIds, size);
        this.scratchCounts = grown(this.scratchCounts, size);
      }
      const ids = this.scratchIds;
      const counts = this.scratchCounts;
      // Insertion sort by id: an hour holds a few dozen values, and they come nearly sorted.
      let n = 0;
      for (let e = this.hourFirstEntry[h]!; e !== NONE; e = this.entryNext[e]!) {
        const id = this.entryValue[e]!;
        const clicks = this.entryClicks[e]!;
        let j = n++;
        while (j > 0 && ids[j - 1]! > id) {
          ids[j] = ids[j - 1]!;
          counts[j] = counts[j - 1]!;
          j--;
        }
        ids[j] = id;
        counts[j] = clicks;
      }
      fn({
        start: this.hourStartOf[h]!,
        bot: this.hourBot[h] === 1,
        clicks: this.hourClicks[h]!,
        uniques: this.hourUniques[h]!,
        ids,
        counts,
        size,
      });
    }
  }

  clear(): void {
    for (let slot = 0; slot < this.linkCount; slot++) this.slotOfValue[this.linkValueOf[slot]!] = 0;
    this.linkIdOf.length = 0;
    this.linkCount = 0;
    this.hourCount = 0;
    this.table.fill(NONE);
    this.entryCount = 0;
    this.variants.clear();
    this.clicks = 0;
  }
}
