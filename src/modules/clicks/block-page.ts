/**
 * A page of one link's raw clicks, newest first by (timestamp, id), merged from the tail's rows
 * and the link's sealed blocks: the same keys and order on both engines (sqlite/raw-read.ts,
 * postgres/raw-read.ts read the rows; this merges them). Engine-free: columns in, refs out.
 */
import type { ClickColumns } from './block-codec';
import { FLAG_BOT } from './stored-click';

/** Where a page of clicks ends: newest first, so the next page holds keys below (timestamp, id). */
export interface ClickKey {
  timestamp: number;
  id: number;
}

/** Which of a link's clicks a page may hold. */
export interface ClickFilter {
  /** The oldest timestamp (epoch ms) inclusive. */
  from: number;
  /** Only clicks up to this id (an export's snapshot); Infinity for all. */
  maxId: number;
  bots: boolean;
}

/** One click of a page: row `i` of columns `c`. */
export interface ClickRef {
  c: ClickColumns;
  i: number;
}

/** (a.time, a.id) > (b.time, b.id): a comes first, newest first. */
export function newer(c1: ClickColumns, i1: number, c2: ClickColumns, i2: number): boolean {
  const t1 = c1.time[i1]!;
  const t2 = c2.time[i2]!;
  return t1 > t2 || (t1 === t2 && c1.id[i1]! > c2.id[i2]!);
}

/** A decoded block with its rows sorted newest first. */
export interface SortedBlock {
  c: ClickColumns;
  order: Uint32Array;
}

export function sortNewestFirst(c: ClickColumns): SortedBlock {
  const n = c.count;
  const order = new Uint32Array(n);
  let rising = true;
  for (let i = 1; i < n && rising; i++) if (c.time[i]! < c.time[i - 1]!) rising = false;
  // Rows are in id order and times nearly always rise with ids: then newest first is just backwards.
  for (let i = 0; i < n; i++) order[i] = n - 1 - i;
  if (!rising) order.sort((a, b) => c.time[b]! - c.time[a]! || c.id[b]! - c.id[a]!);
  return { c, order };
}

/**
 * Whether a block whose newest click is (maxTime, lastId) at most can hold no row of a page
 * already full: its newest possible key is below the page's last.
 */
export function belowFullPage(page: readonly ClickRef[], limit: number, maxTime: number, lastId: number): boolean {
  if (page.length < limit) return false;
  const last = page[limit - 1]!;
  const t = last.c.time[last.i]!;
  return maxTime < t || (maxTime === t && lastId < last.c.id[last.i]!);
}

/** Up to `limit` rows of a block below `before` that pass the filter, newest first. */
export function takeBelow(
  block: SortedBlock,
  before: ClickKey,
  filter: ClickFilter,
  maxId: number,
  limit: number,
): ClickRef[] {
  const { c, order } = block;
  // Binary search: the first position whose key is below `before`.
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const r = order[mid]!;
    const t = c.time[r]!;
    if (t > before.timestamp || (t === before.timestamp && c.id[r]! >= before.id)) lo = mid + 1;
    else hi = mid;
  }
  const out: ClickRef[] = [];
  const { from, bots } = filter;
  for (let p = lo; p < order.length && out.length < limit; p++) {
    const i = order[p]!;
    if (c.time[i]! < from) break;
    if (c.id[i]! > maxId || (!bots && (c.flags[i]! & FLAG_BOT) !== 0)) continue;
    out.push({ c, i });
  }
  return out;
}

/** The page with a block's rows merged in, newest first, cut to `limit`. */
export function mergeInto(page: ClickRef[], got: ClickRef[], limit: number): ClickRef[] {
  if (got.length === 0) return page;
  const merged = page.concat(got);
  merged.sort((a, b) => (newer(a.c, a.i, b.c, b.i) ? -1 : 1));
  if (merged.length > limit) merged.length = limit;
  return merged;
}
