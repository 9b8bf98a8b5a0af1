/**
 * How numbers, times and dates read. One rule for every time and date the dashboard shows: UTC,
 * written "2026-11-26 14:05 UTC" (or "2026-11-26 UTC" for a day). Statistics are counted in
 * UTC hours and days, and a time on a link's page must match the hour it lands in on its
 * statistics and in its raw clicks, wherever the reader is; so nothing is shown in the
 * browser's own zone. The label is left off only where a heading right above the value says
 * UTC already (a table column "Time (UTC)", a chart titled "(UTC)").
 */

const number = new Intl.NumberFormat();
const percent = new Intl.NumberFormat(undefined, { style: 'percent', maximumFractionDigits: 1 });

export const formatNumber = (n: number) => number.format(n);
/** 0.256 -> "25.6%". */
export const formatPercent = (share: number) => percent.format(share);

/** How much of a time is shown: down to the second (raw clicks), the minute, or the day. */
export type TimeUnit = 'second' | 'minute' | 'day';

const LENGTH: Record<TimeUnit, number> = { second: 19, minute: 16, day: 10 };

/**
 * epoch ms -> "2026-11-26 14:05 UTC" (unit 'minute'), "2026-11-26 14:05:09 UTC" ('second') or
 * "2026-11-26 UTC" ('day'); `labelled` false leaves " UTC" off (for a column or axis that
 * says it).
 */
export function formatUtc(ms: number, unit: TimeUnit = 'minute', labelled = true): string {
  const text = new Date(ms).toISOString().slice(0, LENGTH[unit]).replace('T', ' ');
  return labelled ? `${text} UTC` : text;
}

/**
 * The tick labels of a chart's time axis (UTC, unlabelled: the chart's title says UTC). Daily:
 * "2026-11-26". Hourly: "14:00", with the day on a second line under the first tick and under
 * every tick that starts a new day.
 */
export function formatUtcTicks(ticks: number[], unit: 'hour' | 'day'): string[] {
  if (unit === 'day') return ticks.map((t) => formatUtc(t, 'day', false));
  let lastDay = '';
  return ticks.map((t) => {
    const [day = '', time = ''] = formatUtc(t, 'minute', false).split(' ');
    const label = day === lastDay ? time : `${time}\n${day}`;
    lastDay = day;
    return label;
  });
}

/** epoch ms -> the value of an <input type="datetime-local"> that is read as UTC (minutes). */
export function toUtcInput(ms: number | null): string {
  return ms === null ? '' : new Date(ms).toISOString().slice(0, 16);
}

/** The value of an <input type="datetime-local"> read as UTC -> epoch ms, or null when empty or invalid. */
export function fromUtcInput(value: string): number | null {
  if (value === '') return null;
  const ms = Date.parse(`${value}Z`);
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
