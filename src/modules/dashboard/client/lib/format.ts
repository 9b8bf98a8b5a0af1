/** Dates and numbers in the reader's own locale and time zone. */

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const number = new Intl.NumberFormat();
// Statistics are counted in UTC hours and days: their times are shown in UTC, so a day's bar and
// the day it is labelled with are the same day wherever the reader is.
const utcDateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });
const utcDate = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeZone: 'UTC' });
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });

export const formatDateTime = (ms: number) => dateTime.format(ms);
export const formatDate = (ms: number) => dateOnly.format(ms);
export const formatNumber = (n: number) => number.format(n);
export const formatUtcDateTime = (ms: number) => utcDateTime.format(ms);
export const formatUtcDate = (ms: number) => utcDate.format(ms);
/** 0.256 -> "25.6%". */
export const formatPercent = (share: number) => percent.format(share);

/** epoch ms -> the value of an <input type="datetime-local"> (local time, minutes). */
export function toLocalInput(ms: number | null): string {
  if (ms === null) return '';
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The value of an <input type="datetime-local"> -> epoch ms, or null when empty or invalid. */
export function fromLocalInput(value: string): number | null {
  if (value === '') return null;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? null : ms;
}

/** "a, b ,, c" -> ["a", "b", "c"]. */
export const splitList = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** "https://sl.test/abc" -> "sl.test/abc": how a short link reads in lists and titles. */
export const withoutScheme = (url: string) => url.replace(/^https?:\/\//, '');
