/**
 * Hourly rollups: what the statistics read instead of raw clicks. One row per
 * (link, hour, bot, dim, key, value) with clicks and uniques. Dimensions are named as the
 * statistics payload names its breakdowns. `key` carries a second coordinate where one value
 * alone is ambiguous: the country of a city, the parameter name of a param, the variant id of
 * a variant code ('' when the code matched no variant when clicked). A null value is stored
 * as '' (unknown) for the always-present dimensions; UTM values, variants and params only
 * exist when the click had them.
 */
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

export const HOUR_MS = 3_600_000;

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
const UTM_DIMS: [string, RollupDim][] = [
  ['utm_source', 'utmSource'],
  ['utm_medium', 'utmMedium'],
  ['utm_campaign', 'utmCampaign'],
];

export class RollupAccumulator {
  readonly deltas = new Map<string, RollupDelta>();

  private add(click: EnrichedClick, hour: number, unique: number, dim: RollupDim, key: string, value: string | null): void {
    const v = value ?? '';
    const id = `${click.linkId}\u0000${hour}\u0000${click.bot ? 1 : 0}\u0000${dim}\u0000${key}\u0000${v}`;
    const delta = this.deltas.get(id);
    if (delta) {
      delta.clicks++;
      delta.uniques += unique;
    } else {
      this.deltas.set(id, { linkId: click.linkId, hour, bot: click.bot, dim, key, value: v, clicks: 1, uniques: unique });
    }
  }

  /** Counts one click in every dimension it belongs to; `firstOfDay` makes it a unique. */
  addClick(click: EnrichedClick, firstOfDay: boolean): void {
    const hour = Math.floor(click.time / HOUR_MS) * HOUR_MS;
    const u = firstOfDay ? 1 : 0;
    this.add(click, hour, u, 'total', '', '');
    this.add(click, hour, u, 'country', '', click.country);
    this.add(click, hour, u, 'city', click.country ?? '', click.city);
    this.add(click, hour, u, 'device', '', click.device);
    this.add(click, hour, u, 'os', '', click.os);
    this.add(click, hour, u, 'browser', '', click.browser);
    this.add(click, hour, u, 'referrer', '', click.referrer);
    this.add(click, hour, u, 'trafficType', '', click.trafficType);
    this.add(click, hour, u, 'language', '', click.language);
    if (click.code !== null) this.add(click, hour, u, 'variant', click.variantId ?? '', click.code);
    for (const [key, value] of Object.entries(click.params)) {
      const utm = UTM_DIMS.find(([name]) => name === key);
      if (utm) this.add(click, hour, u, utm[1], '', value);
      else this.add(click, hour, u, 'param', key, value);
    }
  }
}
