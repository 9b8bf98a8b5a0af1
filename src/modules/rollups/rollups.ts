/**
 * Rollups: what the statistics read instead of raw clicks. A bucket is one (scope, grain,
 * start, bot) row: its clicks and uniques, plus the breakdown as packed (value id, clicks)
 * pairs (rollup-codec.ts). Scopes are a link's value id (its `link` value in rollup_values, the
 * same id its raw clicks carry), or WORKSPACE for every link together; grains are UTC hours and
 * UTC days, so any window reads whole days in the middle and hours only at its two ends.
 * Workspace buckets also count clicks per link (dim `link`) for topLinks.
 *
 * Breakdown values: a null value is stored as '' (unknown). `key` is a second coordinate where
 * a value alone is ambiguous: the country of a city, the parameter name of a param, the
 * variant id of a variant code ('' when the code matched no variant when clicked). A rule's
 * value is its index in the link's rules when clicked.
 */
import { DAY_MS, hourStart, utcDay } from '../../lib/time';
import { CLICK_DIMS, type ClickDimValues, dimKey, type RollupDim, UTM_DIMS } from './dimensions';
import type { Counts } from './rollup-codec';
import type { RollupValues } from './rollup-values';

export { ROLLUP_DIMS, type RollupDim } from './dimensions';
export type Grain = 'hour' | 'day';

/** How a grain is stored (the rollups table's `grain` column). */
export const GRAIN_CODE: Readonly<Record<Grain, number>> = { hour: 0, day: 1 };

/** The scope of workspace-wide buckets (value ids start at 1). */
export const WORKSPACE = 0;

/**
 * The facts of a click the rollups count: a click as the writer enriched it (clicks/enrich.ts
 * EnrichedClick), or a stored raw click when refolding or rebuilding (whose traffic type is a
 * plain, possibly null, string). Declared here, not taken from the clicks module: the clicks
 * module depends on the rollups, never the other way round.
 */
export interface RollupClick extends ClickDimValues {
  linkId: string;
  time: number;
  bot: boolean;
  /** The variant code in the address, or null without one. */
  code: string | null;
  /** The variant the code matched at click time, or null. */
  variantId: string | null;
  /** The index of the link rule that chose the Location, or null (no rule matched). */
  rule: number | null;
  params: Readonly<Record<string, string>>;
  /**
   * Counted but not profiled (a visitor's privacy signal: docs/operations.md, "Privacy"): its
   * dimensions are empty, and it is counted once more under `privacy`/`optedOut`, which the
   * statistics read as totals.optedOut. Absent: false.
   */
  optedOut?: boolean;
}

/** A stored raw click as the fold and the rebuild count it: its id and whether it was a first visit of the day. */
export interface CountedClick extends RollupClick {
  id: number;
  firstOfDay: boolean;
}

/**
 * The stored raw clicks and the fold watermark, as the clicks module supplies them
 * (clicks/raw-read.ts clickSource). The rollups never name the click tables (click_tail,
 * click_blocks, click_segments) nor click_state, which holds the watermark next to the last
 * click id: the clicks module owns them and passes these accessors in. They use the same
 * connection as the fold or the rebuild, so they run inside its transaction.
 */
/** A link's imported clicks of one UTC day (`start`, epoch ms), given by a source only as a count. */
export interface ImportedDay {
  linkId: string;
  start: number;
  clicks: number;
}

export interface ClickSource {
  /** Up to `limit` clicks with id > `afterId`, in id order. */
  readAfter(afterId: number, limit: number): CountedClick[];
  /**
   * Up to `limit` imported daily counts already counted, after `after` (null: from the first),
   * in (link, day) order: clicks with no raw row that a rebuild adds back.
   */
  importedDaysAfter(after: ImportedDay | null, limit: number): ImportedDay[];
  /** Whether any raw click is stored. */
  hasClicks(): boolean;
  /** The watermark: the last click id whose counts are in the rollups and counters (0 before any fold). */
  foldedThrough(): number;
  /** Moves the watermark to `id`; called inside the fold's transaction, so counts and watermark commit together. */
  markFolded(id: number): void;
  /**
   * The links' and variants' counters a fold adds its clicks to, in its transaction: their
   * modules' statements on this connection (their tables), prepared once per folder.
   */
  prepareCounters(): FoldCounters;
}

/** The counters a fold bumps: which links still exist, and the link and variant counters. */
export interface FoldCounters {
  links: {
    existing(ids: Iterable<string>): Set<string>;
    bump(id: string, humans: number, uniques: number, bots: number, last: number | null): void;
  };
  variants: { bump(id: string, clicks: number): void };
}

/** The `privacy` value an opted-out click is counted under. */
export const OPTED_OUT = 'optedOut';

/** UTM_DIMS looked up by a param name that may be anything (no prototype keys). */
const UTM_DIM_OF: Readonly<Record<string, RollupDim>> = Object.assign(Object.create(null), UTM_DIMS);

export interface Bucket {
  /** A link's value id, or WORKSPACE. */
  scope: number;
  grain: Grain;
  start: number;
  bot: boolean;
  clicks: number;
  uniques: number;
  counts: Counts;
}

/** What gives a breakdown value its id: the dictionary of an engine (rollup-values.ts, postgres/values.ts). */
export interface ValueIds {
  idOf(dim: RollupDim, key: string, value: string): number;
}

/** The breakdown value ids of one click (on SQLite, inserting new values inside the caller's transaction). */
export function valueIdsOf(v: ValueIds, c: RollupClick): number[] {
  // The click's own dimensions first, in CLICK_DIMS order: the raw row stores these.
  const ids: number[] = [];
  for (const dim of CLICK_DIMS) ids.push(v.idOf(dim, dimKey(dim, c), c[dim] ?? ''));
  if (c.code !== null) ids.push(v.idOf('variant', c.variantId ?? '', c.code));
  // Only matched rules are counted: a link without rules adds nothing to its buckets.
  if (c.rule !== null) ids.push(v.idOf('rule', '', String(c.rule)));
  if (c.optedOut) ids.push(v.idOf('privacy', '', OPTED_OUT));
  for (const key in c.params) {
    if (!Object.hasOwn(c.params, key)) continue;
    const dim = UTM_DIM_OF[key];
    ids.push(dim ? v.idOf(dim, '', c.params[key]!) : v.idOf('param', key, c.params[key]!));
  }
  return ids;
}

/** Sums clicks per bucket in memory (the rebuild, a chunk at a time), so each bucket is written once per chunk. */
export class RollupAccumulator {
  readonly buckets = new Map<string, Bucket>();

  constructor(private readonly values: RollupValues) {}

  private bucket(scope: number, grain: Grain, start: number, bot: boolean): Bucket {
    const id = `${scope}|${grain}|${start}|${bot ? 1 : 0}`;
    let b = this.buckets.get(id);
    if (!b) {
      b = { scope, grain, start, bot, clicks: 0, uniques: 0, counts: new Map() };
      this.buckets.set(id, b);
    }
    return b;
  }

  /** Counts one click in its link's and the workspace's hour and day; `unique` = first visit of the day. */
  addClick(c: RollupClick, unique: boolean): void {
    const ids = valueIdsOf(this.values, c);
    const hour = hourStart(c.time);
    const day = utcDay(c.time) * DAY_MS;
    const linkValue = this.values.idOf('link', '', c.linkId);
    for (const b of [this.bucket(linkValue, 'hour', hour, c.bot), this.bucket(linkValue, 'day', day, c.bot)])
      count(b, ids, unique, -1);
    for (const b of [this.bucket(WORKSPACE, 'hour', hour, c.bot), this.bucket(WORKSPACE, 'day', day, c.bot)])
      count(b, ids, unique, linkValue);
  }

  /**
   * Counts a link's imported daily count as the fold does (PendingSums.addCount): human clicks
   * in the first hour of their day, no unique, no breakdown but the workspace's per link.
   */
  addCount(linkId: string, start: number, clicks: number): void {
    const linkValue = this.values.idOf('link', '', linkId);
    const day = utcDay(start) * DAY_MS;
    const hour = hourStart(day);
    for (const b of [this.bucket(linkValue, 'hour', hour, false), this.bucket(linkValue, 'day', day, false)])
      b.clicks += clicks;
    for (const b of [this.bucket(WORKSPACE, 'hour', hour, false), this.bucket(WORKSPACE, 'day', day, false)]) {
      b.clicks += clicks;
      b.counts.set(linkValue, (b.counts.get(linkValue) ?? 0) + clicks);
    }
  }
}

function count(b: Bucket, ids: number[], unique: boolean, extra: number): void {
  b.clicks++;
  if (unique) b.uniques++;
  for (const id of ids) b.counts.set(id, (b.counts.get(id) ?? 0) + 1);
  if (extra >= 0) b.counts.set(extra, (b.counts.get(extra) ?? 0) + 1);
}
