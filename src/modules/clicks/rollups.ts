/**
 * Rollups: what the statistics read instead of raw clicks. A bucket is one (scope, grain,
 * start, bot) row: its clicks and uniques, plus the breakdown as packed (value id, clicks)
 * pairs (rollup-codec.ts). Scopes are a link id, or WORKSPACE for every link together; grains
 * are UTC hours and UTC days, so any window reads whole days in the middle and hours only at
 * its two ends. Workspace buckets also count clicks per link (dim `link`) for topLinks.
 *
 * Breakdown values: a null value is stored as '' (unknown). `key` is a second coordinate where
 * a value alone is ambiguous: the country of a city, the parameter name of a param, the
 * variant id of a variant code ('' when the code matched no variant when clicked).
 */
import type { Database, Statement } from 'bun:sqlite';
import { DAY_MS, hourStart, utcDay } from '../../lib/time';
import { decodeCounts, encodeCounts, mergeCounts, type Counts } from './rollup-codec';
import type { EnrichedClick } from './enrich';
import type { RollupValues } from './rollup-values';

export const ROLLUP_DIMS = [
  'country',
  'city',
  'device',
  'os',
  'browser',
  'referrer',
  'trafficType',
  'language',
  'utmSource',
  'utmMedium',
  'utmCampaign',
  'variant',
  'param',
  'link',
] as const;
export type RollupDim = (typeof ROLLUP_DIMS)[number];
export type Grain = 'hour' | 'day';

/** The scope of workspace-wide buckets (link ids are never empty). */
export const WORKSPACE = '';

/**
 * The facts of a click the rollups count: an EnrichedClick, or a raw clicks row when rebuilding
 * (whose stored traffic type is a plain, possibly null, string).
 */
export type RollupClick = Pick<
  EnrichedClick,
  'linkId' | 'time' | 'bot' | 'code' | 'variantId' | 'params' | 'country' | 'city' | 'device' | 'os' | 'browser' | 'referrer' | 'language'
> & { trafficType: string | null };

/** Params with their own breakdown, so they are not repeated under `param`. */
const UTM_DIMS: Readonly<Record<string, RollupDim>> = Object.assign(Object.create(null), {
  utm_source: 'utmSource',
  utm_medium: 'utmMedium',
  utm_campaign: 'utmCampaign',
});

export interface Bucket {
  scope: string;
  grain: Grain;
  start: number;
  bot: boolean;
  clicks: number;
  uniques: number;
  counts: Counts;
}

/** Sums a batch's clicks per bucket in memory, so each bucket is written once per batch. */
export class RollupAccumulator {
  readonly buckets = new Map<string, Bucket>();

  constructor(private readonly values: RollupValues) {}

  private bucket(scope: string, grain: Grain, start: number, bot: boolean): Bucket {
    const id = `${scope}|${grain}|${start}|${bot ? 1 : 0}`;
    let b = this.buckets.get(id);
    if (!b) this.buckets.set(id, (b = { scope, grain, start, bot, clicks: 0, uniques: 0, counts: new Map() }));
    return b;
  }

  /** The breakdown value ids of one click. */
  private idsOf(c: RollupClick): number[] {
    const v = this.values;
    const ids = [
      v.idOf('country', '', c.country ?? ''),
      v.idOf('city', c.country ?? '', c.city ?? ''),
      v.idOf('device', '', c.device ?? ''),
      v.idOf('os', '', c.os ?? ''),
      v.idOf('browser', '', c.browser ?? ''),
      v.idOf('referrer', '', c.referrer ?? ''),
      v.idOf('trafficType', '', c.trafficType ?? ''),
      v.idOf('language', '', c.language ?? ''),
    ];
    if (c.code !== null) ids.push(v.idOf('variant', c.variantId ?? '', c.code));
    for (const key in c.params) {
      if (!Object.hasOwn(c.params, key)) continue;
      const dim = UTM_DIMS[key];
      ids.push(dim ? v.idOf(dim, '', c.params[key]!) : v.idOf('param', key, c.params[key]!));
    }
    return ids;
  }

  /** Counts one click in its link's and the workspace's hour and day; `unique` = first visit of the day. */
  addClick(c: RollupClick, unique: boolean): void {
    const ids = this.idsOf(c);
    const hour = hourStart(c.time);
    const day = utcDay(c.time) * DAY_MS;
    const linkValue = this.values.idOf('link', '', c.linkId);
    for (const b of [this.bucket(c.linkId, 'hour', hour, c.bot), this.bucket(c.linkId, 'day', day, c.bot)]) count(b, ids, unique, -1);
    for (const b of [this.bucket(WORKSPACE, 'hour', hour, c.bot), this.bucket(WORKSPACE, 'day', day, c.bot)]) count(b, ids, unique, linkValue);
  }
}

function count(b: Bucket, ids: number[], unique: boolean, extra: number): void {
  b.clicks++;
  if (unique) b.uniques++;
  for (const id of ids) b.counts.set(id, (b.counts.get(id) ?? 0) + 1);
  if (extra >= 0) b.counts.set(extra, (b.counts.get(extra) ?? 0) + 1);
}

interface StoredBucket {
  clicks: number;
  uniques: number;
  data: Uint8Array;
}

/** Reads, merges and writes buckets; every call runs inside the caller's transaction. */
export class RollupStore {
  private readonly select: Statement<StoredBucket, [string, Grain, number, number]>;
  private readonly upsert: Statement;
  private readonly remove: Statement;

  constructor(sqlite: Database) {
    this.select = sqlite.prepare('SELECT clicks, uniques, data FROM rollup_buckets WHERE scope = ? AND grain = ? AND start = ? AND bot = ?');
    this.upsert = sqlite.prepare(
      `INSERT INTO rollup_buckets (scope, grain, start, bot, clicks, uniques, data) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (scope, grain, start, bot) DO UPDATE SET clicks = excluded.clicks, uniques = excluded.uniques, data = excluded.data`,
    );
    this.remove = sqlite.prepare('DELETE FROM rollup_buckets WHERE scope = ? AND grain = ? AND start = ? AND bot = ?');
  }

  /** Adds (sign 1) or takes away (sign -1) buckets' counts. */
  apply(buckets: Iterable<Bucket>, sign: 1 | -1 = 1): void {
    for (const b of buckets) {
      const bot = b.bot ? 1 : 0;
      const stored = this.select.get(b.scope, b.grain, b.start, bot);
      const clicks = (stored?.clicks ?? 0) + sign * b.clicks;
      if (clicks <= 0) {
        if (stored) this.remove.run(b.scope, b.grain, b.start, bot);
        continue;
      }
      const counts = mergeCounts(decodeCounts(stored?.data ?? null), b.counts, sign);
      this.upsert.run(b.scope, b.grain, b.start, bot, clicks, (stored?.uniques ?? 0) + sign * b.uniques, encodeCounts(counts));
    }
  }
}

/**
 * Before a link is deleted: take its buckets out of the workspace's, then drop them, so
 * workspace statistics never count a link that no longer exists. Runs in the caller's transaction.
 */
export function forgetLinkRollups(sqlite: Database, linkId: string): void {
  const rows = sqlite
    .query<{ grain: Grain; start: number; bot: number; clicks: number; uniques: number; data: Uint8Array }, [string]>(
      'SELECT grain, start, bot, clicks, uniques, data FROM rollup_buckets WHERE scope = ?',
    )
    .all(linkId);
  if (rows.length === 0) return;
  const linkValue = sqlite.query<{ id: number }, [string]>("SELECT id FROM rollup_values WHERE dim = 'link' AND key = '' AND value = ?").get(linkId);
  const store = new RollupStore(sqlite);
  store.apply(
    rows.map((r) => {
      const counts = decodeCounts(r.data);
      if (linkValue) counts.set(linkValue.id, r.clicks);
      return { scope: WORKSPACE, grain: r.grain, start: r.start, bot: r.bot === 1, clicks: r.clicks, uniques: r.uniques, counts };
    }),
    -1,
  );
  sqlite.query('DELETE FROM rollup_buckets WHERE scope = ?').run(linkId);
}
