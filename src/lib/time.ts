/** UTC time buckets shared by the click pipeline and the statistics: hours and days in epoch ms. */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** The last ms of the year 9999: no instant the API reads or stores is later. */
export const MAX_INSTANT = 253_402_300_799_999;

/** The UTC day number of an instant (days since 1970-01-01). */
export function utcDay(time: number): number {
  return Math.floor(time / DAY_MS);
}

/** The start of the UTC hour an instant falls in. */
export function hourStart(time: number): number {
  return Math.floor(time / HOUR_MS) * HOUR_MS;
}
