/**
 * The world map's colours: each country with clicks goes into one of a few buckets (CSS classes
 * `q1`..`q5`, darker = more), split at quantiles of the distinct counts so that a single huge
 * country does not leave every other one in the palest shade. The top count is always the
 * darkest bucket. DOM-free (unit-tested on its own).
 */

export const MAP_BUCKETS = 5;

export interface BucketRange {
  bucket: number;
  min: number;
  max: number;
}

export interface MapColours {
  /** Bucket (1..MAP_BUCKETS) by country code; countries without clicks are absent. */
  byCode: Map<string, number>;
  /** The buckets in use, palest first, with the counts they hold (for the legend). */
  ranges: BucketRange[];
}

export function mapColours(countries: { value: string | null; clicks: number }[]): MapColours {
  const counted = countries.filter((c): c is { value: string; clicks: number } => c.value !== null && c.clicks > 0);
  const distinct = [...new Set(counted.map((c) => c.clicks))].sort((a, b) => a - b);
  const bucketOf = new Map(distinct.map((n, i) => [n, Math.ceil(((i + 1) * MAP_BUCKETS) / distinct.length)]));
  const byCode = new Map(counted.map((c) => [c.value, bucketOf.get(c.clicks)!]));
  const ranges: BucketRange[] = [];
  for (const n of distinct) {
    const bucket = bucketOf.get(n)!;
    const last = ranges.at(-1);
    if (last?.bucket === bucket) last.max = n;
    else ranges.push({ bucket, min: n, max: n });
  }
  return { byCode, ranges };
}
