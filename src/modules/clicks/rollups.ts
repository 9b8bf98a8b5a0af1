/**
 * Hourly rollups: what the statistics read instead of raw clicks. One row per
 * (link, hour, bot, dim, key, value) with clicks and uniques. Dimensions are named as the
 * statistics payload names its breakdowns. `key` carries a second coordinate where one value
 * alone is ambiguous: the country of a city, the parameter name of a param, the variant id of
 * a variant code ('' when the code matched no variant when clicked). A null value is stored
 * as '' (unknown) for the always-present dimensions; UTM values, variants and params only
 * exist when the click had them.
 */
import { hourStart } from '../../lib/time';
import type { EnrichedClick } from './enrich';

export const ROLLUP_DIMS = [
  'total',
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
] as const;
export type RollupDim = (typeof ROLLUP_DIMS)[number];

export interface RollupDelta {
  linkId: string;
  hour: number;
  bot: boolean;
  dim: RollupDim;
  key: string;
  value: string;
  clicks: number;
  uniques: number;
}

/** Params with their own breakdown, so they are not repeated under `params`. */
const UTM_DIMS: Readonly<Record<string, RollupDim>> = Object.assign(Object.create(null), {
  utm_source: 'utmSource',
  utm_medium: 'utmMedium',
  utm_campaign: 'utmCampaign',
});

/** One (link, hour, bot) group: a counter per dimension, key and value. */
interface Group {
  linkId: string;
  hour: number;
  bot: boolean;
  /** dim -> key -> value -> [clicks, uniques] */
  dims: Map<RollupDim, Map<string, Map<string, [number, number]>>>;
}

/**
 * Sums a chunk's clicks per rollup row in memory, so each row is upserted once per chunk.
 * Nested maps (group, dim, key, value) instead of one joined string key: no string building
 * per click and dimension, which was most of the accumulation cost.
 */
export class RollupAccumulator {
  private readonly groups = new Map<string, Group>();

  private group(click: EnrichedClick, hour: number): Group {
    const id = `${click.linkId}|${hour}|${click.bot ? 1 : 0}`;
    let group = this.groups.get(id);
    if (!group) this.groups.set(id, (group = { linkId: click.linkId, hour, bot: click.bot, dims: new Map() }));
    return group;
  }

  private add(group: Group, unique: number, dim: RollupDim, key: string, value: string | null): void {
    let byKey = group.dims.get(dim);
    if (!byKey) group.dims.set(dim, (byKey = new Map()));
    let byValue = byKey.get(key);
    if (!byValue) byKey.set(key, (byValue = new Map()));
    const v = value ?? '';
    const counts = byValue.get(v);
    if (counts) {
      counts[0]++;
      counts[1] += unique;
    } else byValue.set(v, [1, unique]);
  }

  /** Counts one click in every dimension it belongs to; `firstOfDay` makes it a unique. */
  addClick(click: EnrichedClick, firstOfDay: boolean): void {
    const hour = hourStart(click.time);
    const g = this.group(click, hour);
    const u = firstOfDay ? 1 : 0;
    this.add(g, u, 'total', '', '');
    this.add(g, u, 'country', '', click.country);
    this.add(g, u, 'city', click.country ?? '', click.city);
    this.add(g, u, 'device', '', click.device);
    this.add(g, u, 'os', '', click.os);
    this.add(g, u, 'browser', '', click.browser);
    this.add(g, u, 'referrer', '', click.referrer);
    this.add(g, u, 'trafficType', '', click.trafficType);
    this.add(g, u, 'language', '', click.language);
    if (click.code !== null) this.add(g, u, 'variant', click.variantId ?? '', click.code);
    for (const key in click.params) {
      const value = click.params[key]!;
      const dim = UTM_DIMS[key];
      if (dim) this.add(g, u, dim, '', value);
      else this.add(g, u, 'param', key, value);
    }
  }

  /** Every summed row, ready to upsert. */
  *deltas(): Generator<RollupDelta> {
    for (const g of this.groups.values()) {
      for (const [dim, byKey] of g.dims) {
        for (const [key, byValue] of byKey) {
          for (const [value, [clicks, uniques]] of byValue) yield { linkId: g.linkId, hour: g.hour, bot: g.bot, dim, key, value, clicks, uniques };
        }
      }
    }
  }
}
