/**
 * The breakdown dimensions, defined once. Everything that lists a click's dimensions derives
 * from CLICK_DIMS: the enriched click's fields and the rollups' click (ClickDimValues), the
 * dictionary ids a click is counted under (rollups.ts valueIdsOf), the raw clicks' columns
 * (DIM_COLUMNS: the tail's, the blocks' and every engine's), the rows read back
 * (ClickDimTuple), the clicks list, the export's columns and the spill file's lines. A new
 * dimension is one entry here; the compiler then points at every shape that lacks it.
 */

/** The facts every click has one value of (null when unknown), in storage order. */
export const CLICK_DIMS = [
  'country',
  'city',
  'device',
  'os',
  'browser',
  'referrer',
  'trafficType',
  'language',
] as const;
export type ClickDim = (typeof CLICK_DIMS)[number];

/** A click's values of the dimensions, by name. */
export type ClickDimValues = { [D in ClickDim]: string | null };

/** The same values in CLICK_DIMS order (positional rows: raw reads, the export). */
export type ClickDimTuple = TextsOf<typeof CLICK_DIMS>;
// Generic, so that mapping a tuple gives a tuple (8 positions), not an object of its keys.
type TextsOf<T extends readonly unknown[]> = { -readonly [I in keyof T]: string | null };

/** A dimension's column in the raw click tables (short where the field name is long). */
const COLUMN: { readonly [D in ClickDim]: string } = {
  country: 'country',
  city: 'city',
  device: 'device',
  os: 'os',
  browser: 'browser',
  referrer: 'referrer',
  trafficType: 'traffic',
  language: 'language',
};

/** The raw click tables' dictionary-id columns, in CLICK_DIMS order. */
export const DIM_COLUMNS: readonly string[] = CLICK_DIMS.map((d) => COLUMN[d]);

/** How many dimensions a raw click stores. */
export const DIM_COUNT = CLICK_DIMS.length;

/**
 * The dictionary key of a click's value of `dim`: a city is named within its country (two
 * cities of one name stay apart); every other value stands alone ('').
 */
export function dimKey(dim: ClickDim, click: ClickDimValues): string {
  return dim === 'city' ? (click.country ?? '') : '';
}

/** Params with their own breakdown (not repeated under `param`), by param name. */
export const UTM_DIMS = { utm_source: 'utmSource', utm_medium: 'utmMedium', utm_campaign: 'utmCampaign' } as const;

/**
 * Every dimension a rollup bucket counts: the click's own, the three UTM params, the variant
 * code (keyed by the variant id it matched), the matched link rule's index, any other param (keyed by its name),
 * `privacy` (one value, `optedOut`: the clicks counted but not profiled) and, in the workspace's buckets, the link
 * (for topLinks).
 */
export const ROLLUP_DIMS = [
  ...CLICK_DIMS,
  ...Object.values(UTM_DIMS),
  'variant',
  'rule',
  'param',
  'link',
  'privacy',
] as const;
export type RollupDim = (typeof ROLLUP_DIMS)[number];

/** Only the dimensions of something that has them (and more), by name, in CLICK_DIMS order. */
export function dimsOf(click: ClickDimValues): ClickDimValues {
  return dimValues(dimTuple(click));
}

/** The click's values of the dimensions in CLICK_DIMS order. */
export function dimTuple(click: ClickDimValues): ClickDimTuple {
  return CLICK_DIMS.map((d) => click[d]) as unknown as ClickDimTuple;
}

/** The values of a positional row back by name. */
export function dimValues(tuple: Readonly<ClickDimTuple>): ClickDimValues {
  const values = {} as ClickDimValues;
  for (let i = 0; i < DIM_COUNT; i++) values[CLICK_DIMS[i]!] = tuple[i]!;
  return values;
}
