/** A statistics bucket as either engine reads it (sqlite/read-rollups.ts, postgres/read-rollups.ts). */

/** One bucket's totals. */
export interface BucketRow {
  start: number;
  bot: number;
  clicks: number;
  uniques: number;
}

export interface BucketData extends BucketRow {
  data: Uint8Array;
}
