/** UTC time buckets shared by the click pipeline and the statistics: hours and days in epoch ms. */

import { invalid } from './errors';

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

const EPOCH_MS = /^\d{1,15}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Parses an epoch-ms or YYYY-MM-DD value; a date means the start of that UTC day. */
export function parseInstant(field: 'from' | 'to', text: string): { time: number; isDate: boolean } {
  if (EPOCH_MS.test(text)) {
    const time = Number(text);
    if (time <= MAX_INSTANT) return { time, isDate: false };
  }
  const m = DATE.exec(text);
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const time = Date.UTC(y, mo - 1, d);
    const back = new Date(time);
    // Date.UTC rolls 2026-02-30 over to March; a day that does not exist is an error, and so is
    // one before 1970 (epoch ms are never negative; years below 100 would even be read as 19xx).
    if (y >= 1970 && back.getUTCFullYear() === y && back.getUTCMonth() === mo - 1 && back.getUTCDate() === d)
      return { time, isDate: true };
  }
  throw invalid(field, `${field} must be epoch milliseconds or a date as YYYY-MM-DD (UTC)`);
}
