/**
 * Statistics of one link or of the workspace, answered from rollup buckets only: whole UTC
 * days from day buckets, the partial days at either end from hour buckets. The breakdowns of
 * every bucket read are summed into one typed array indexed by value id, then grouped by
 * dimension; no raw click is read.
 */
import type { PrivacyConfig } from '../../config';
import { DAY_MS, HOUR_MS, utcDay } from '../../lib/time';
import {
  type BucketData,
  type BucketRow,
  CLICK_DIMS,
  forEachCount,
  ROLLUP_DIMS,
  type RollupDim,
} from '../rollups/public';
import type { Breakdowns, Stats } from './model';
import type { AnalyticsStore, BucketRange, ValueNames } from './store';
import { compareText, top } from './top';
import { groupVariants, type KnownVariant, type VariantLabel, type VariantValue } from './variants';
import { HOURLY_UP_TO_MS, type Window } from './window';

type Entry = { value: string | null; clicks: number };
type CityEntry = Breakdowns['city'][number];
type ParamEntry = Breakdowns['params'][number];

/** Statistics whose variant breakdown has entries of type V (a link's or the workspace's, variants.ts). */
export type StatsWith<V> = Omit<Stats, 'breakdowns'> & {
  breakdowns: Omit<Breakdowns, 'variant'> & { variant: V[] };
};

interface StatsSource<V> {
  store: AnalyticsStore;
  /** A link's value id (null: never clicked, nothing stored), or WORKSPACE. */
  scope: number | null;
  /**
   * Days before this are read from day buckets, from it on from hour buckets: a link's day mark
   * (AnalyticsStore.daysBefore); the workspace's day buckets are always whole (Infinity).
   */
  daysBefore: number;
  /** The variants of these ids that exist now (a click on any other code is unrecognised). */
  variantLabels: (ids: string[]) => Promise<Map<string, VariantLabel>>;
  /** The variant breakdown from the known variants and every click counted in the window (variants.ts). */
  variantRows: (known: KnownVariant[], counted: number) => V[];
  /** The dimensions the privacy switches say are not collected (notCollectedOf). */
  notCollected: Stats['notCollected'];
}

/** The dimensions SLINK_GEO and SLINK_REFERRER keep out of every click stored from now on. */
export function notCollectedOf(privacy: Pick<PrivacyConfig, 'geo' | 'referrer'>): Stats['notCollected'] {
  const dims: Stats['notCollected'] = [];
  if (privacy.geo === 'none') dims.push('country');
  if (privacy.geo !== 'city') dims.push('city');
  if (privacy.referrer === 'none') dims.push('referrer');
  return dims;
}

/** A click's own dimensions: their '' means "not known", shown as null. */
const NULLABLE: ReadonlySet<RollupDim> = new Set(CLICK_DIMS);
/** Dimensions listed as plain (value, clicks) entries: every one but those with a second coordinate. */
const KEYED: ReadonlySet<RollupDim> = new Set(['city', 'variant', 'rule', 'param', 'link', 'privacy']);
const PLAIN_DIMS = ROLLUP_DIMS.filter((d) => !KEYED.has(d));

type Piece = BucketRange;

/** Whole days in the middle, hours at the ends: the fewest buckets that cover the window exactly. */
function pieces(w: Window): Piece[] {
  const start = w.from;
  const end = w.to + 1;
  const firstDay = Math.ceil(start / DAY_MS) * DAY_MS;
  const lastDay = Math.floor(end / DAY_MS) * DAY_MS;
  if (firstDay >= lastDay) return [{ grain: 'hour', from: start, toExclusive: end }];
  return [
    { grain: 'hour', from: start, toExclusive: firstDay },
    { grain: 'day', from: firstDay, toExclusive: lastDay },
    { grain: 'hour', from: lastDay, toExclusive: end },
  ].filter((p) => p.from < p.toExclusive) as Piece[];
}

/** The pieces with every day piece from `daysBefore` on read as hours instead. */
export function piecesBefore(w: Window, daysBefore: number): Piece[] {
  return pieces(w).flatMap((p): Piece[] => {
    if (p.grain === 'hour' || p.toExclusive <= daysBefore) return [p];
    if (p.from >= daysBefore) return [{ ...p, grain: 'hour' }];
    return [
      { grain: 'day', from: p.from, toExclusive: daysBefore },
      { grain: 'hour', from: daysBefore, toExclusive: p.toExclusive },
    ];
  });
}

/** Sums breakdowns into a typed array; `touched` lists the ids that got any count. */
class Summer {
  readonly sums: Float64Array;
  readonly touched: number[] = [];

  constructor(size: number) {
    this.sums = new Float64Array(size);
  }

  add(data: Uint8Array): void {
    const sums = this.sums;
    const touched = this.touched;
    forEachCount(data, (id, clicks) => {
      if (sums[id] === 0) touched.push(id);
      sums[id]! += clicks;
    });
  }
}

/** `w` must be hour-aligned (window.hourAligned). */
export async function computeStats<V>(
  src: StatsSource<V>,
  w: Window,
): Promise<{ stats: StatsWith<V>; links: { value: string | null; clicks: number }[] }> {
  const totals = { clicks: 0, uniques: 0, bots: 0, optedOut: 0 };
  let rows: BucketData[] = [];
  const scope = src.scope;
  if (scope !== null) {
    // totals.bots counts bot hits whatever `bots` says; only bots=1 adds them to clicks and breakdowns.
    const read = await src.store.buckets(scope, piecesBefore(w, src.daysBefore), w.bots);
    rows = read.rows;
    totals.bots = read.botHits;
  }
  // Learn value ids after reading the buckets, so every id they hold has a name.
  const names = await src.store.valueNames();
  const summer = new Summer(names.size);
  for (const r of rows) {
    if (r.bot !== 1) totals.uniques += r.uniques;
    totals.clicks += r.clicks;
    summer.add(r.data);
  }
  await src.store.knowValues(summer.touched);
  const interval = w.to + 1 - w.from <= HOURLY_UP_TO_MS ? 'hour' : 'day';
  const series = interval === 'hour' ? await hourlySeries(src, w) : dailySeries(w, rows);
  const grouped = await group(src, names, summer, totals.clicks);
  totals.optedOut = grouped.optedOut;
  return {
    stats: {
      range: { from: w.from, to: w.to, bots: w.bots },
      interval,
      totals,
      notCollected: src.notCollected,
      series,
      breakdowns: grouped.breakdowns,
      unknownVariants: grouped.unknownVariants,
    },
    links: grouped.links,
  };
}

function seriesPoint(
  points: Map<number, { t: number; clicks: number; uniques: number }>,
  t: number,
  r: BucketRow,
  bots: boolean,
): void {
  const point = points.get(t);
  if (!point) return;
  if (r.bot === 1 && !bots) return;
  point.clicks += r.clicks;
  point.uniques += r.uniques;
}

function emptySeries(from: number, to: number, step: number) {
  const points = new Map<number, { t: number; clicks: number; uniques: number }>();
  for (let t = from; t <= to; t += step) points.set(t, { t, clicks: 0, uniques: 0 });
  return points;
}

async function hourlySeries(src: Pick<StatsSource<unknown>, 'store' | 'scope'>, w: Window) {
  const points = emptySeries(w.from, w.to, HOUR_MS);
  if (src.scope === null) return [...points.values()];
  for (const r of await src.store.hourTotals(src.scope, w.from, w.to + 1)) seriesPoint(points, r.start, r, w.bots);
  return [...points.values()];
}

/** Daily points from the rows already read: day buckets as they are, edge hours into their day. */
function dailySeries(w: Window, rows: BucketRow[]) {
  const points = emptySeries(utcDay(w.from) * DAY_MS, utcDay(w.to) * DAY_MS, DAY_MS);
  for (const r of rows) seriesPoint(points, utcDay(r.start) * DAY_MS, r, w.bots);
  return [...points.values()];
}

/** `counted`: every click counted in the window (totals.clicks). */
async function group<V>(src: StatsSource<V>, names: ValueNames, summer: Summer, counted: number) {
  const plain = new Map<RollupDim, Entry[]>(PLAIN_DIMS.map((d) => [d, []]));
  const city: CityEntry[] = [];
  const params: ParamEntry[] = [];
  const variants: VariantValue[] = [];
  const links: Entry[] = [];
  const rules: { value: number; clicks: number }[] = [];
  let optedOut = 0;
  for (const id of summer.touched) {
    const clicks = summer.sums[id]!;
    const name = names.nameOf(id);
    if (!name || clicks <= 0) continue;
    const value = NULLABLE.has(name.dim) && name.value === '' ? null : name.value;
    switch (name.dim) {
      case 'city':
        city.push({ value, country: name.key === '' ? null : name.key, clicks });
        break;
      case 'param':
        params.push({ key: name.key, value: name.value, clicks });
        break;
      case 'variant':
        variants.push({ key: name.key, code: name.value, clicks });
        break;
      case 'link':
        links.push({ value: name.value, clicks });
        break;
      case 'rule':
        rules.push({ value: Number(name.value), clicks });
        break;
      case 'privacy':
        // One value: the clicks counted but not profiled (rollups.ts OPTED_OUT).
        optedOut += clicks;
        break;
      default:
        plain.get(name.dim)!.push({ value, clicks });
    }
  }
  const { known, unknown } = await groupVariants(variants, src.variantLabels);
  const byValue = (a: Entry, b: Entry) => compareText(a.value, b.value);
  const list = (dim: RollupDim) => top(plain.get(dim)!, byValue);
  return {
    breakdowns: {
      country: list('country'),
      city: top(city, (a, b) => compareText(a.value, b.value) || compareText(a.country, b.country)),
      device: list('device'),
      os: list('os'),
      browser: list('browser'),
      referrer: list('referrer'),
      trafficType: list('trafficType'),
      utmSource: list('utmSource'),
      utmMedium: list('utmMedium'),
      utmCampaign: list('utmCampaign'),
      variant: src.variantRows(known, counted),
      language: list('language'),
      rule: top(rules, (a, b) => a.value - b.value),
      params: top(params, (a, b) => compareText(a.key, b.key) || compareText(a.value, b.value)),
    },
    unknownVariants: top(
      [...unknown].map(([code, clicks]) => ({ code, clicks })),
      (a, b) => compareText(a.code, b.code),
    ),
    links: top(links, byValue),
    optedOut,
  };
}
