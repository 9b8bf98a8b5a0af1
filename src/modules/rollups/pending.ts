/**
 * What the written clicks add to rollups and counters, summed per link in the writer's memory
 * until the next fold (fold.ts): per link, its hour buckets by (hour, bot) with their breakdown
 * counts, its human, unique and bot clicks, its newest human click and its variants' human
 * clicks. Day buckets and the workspace's buckets are derived from these at fold time, so a
 * click costs one bucket here instead of four.
 */
import { HOUR_MS, hourStart } from '../../lib/time';
import type { Counts } from './rollup-codec';
import type { RollupClick } from './rollups';

export interface HourSums {
  start: number;
  bot: boolean;
  clicks: number;
  uniques: number;
  counts: Counts;
}

export interface LinkSums {
  /** The link's value id in the workspace buckets' `link` breakdown. */
  linkValue: number;
  hours: Map<number, HourSums>;
  humans: number;
  uniques: number;
  bots: number;
  /** The newest human click, or null. */
  last: number | null;
  /** Human clicks per variant id. */
  variants: Map<string, number>;
}

export class PendingSums {
  readonly links = new Map<string, LinkSums>();
  /** Clicks summed since the last clear. */
  clicks = 0;
  /** performance.now() when the first of them was added. */
  since = 0;

  /** Adds one written click; `ids` are its breakdown value ids (rollups.ts valueIdsOf). */
  add(c: RollupClick, unique: boolean, ids: readonly number[], linkValue: number): void {
    if (this.clicks++ === 0) this.since = performance.now();
    let link = this.links.get(c.linkId);
    if (link === undefined) {
      link = { linkValue, hours: new Map(), humans: 0, uniques: 0, bots: 0, last: null, variants: new Map() };
      this.links.set(c.linkId, link);
    }
    const start = hourStart(c.time);
    const key = (start / HOUR_MS) * 2 + (c.bot ? 1 : 0);
    let hour = link.hours.get(key);
    if (hour === undefined) {
      hour = { start, bot: c.bot, clicks: 0, uniques: 0, counts: new Map() };
      link.hours.set(key, hour);
    }
    hour.clicks++;
    if (unique) hour.uniques++;
    for (const id of ids) hour.counts.set(id, (hour.counts.get(id) ?? 0) + 1);
    if (c.bot) {
      link.bots++;
      return;
    }
    link.humans++;
    if (unique) link.uniques++;
    link.last = link.last === null ? c.time : Math.max(link.last, c.time);
    if (c.variantId) link.variants.set(c.variantId, (link.variants.get(c.variantId) ?? 0) + 1);
  }

  clear(): void {
    this.links.clear();
    this.clicks = 0;
  }
}
