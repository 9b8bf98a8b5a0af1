/**
 * The window of a statistics, clicks or export request (docs/behaviour.md, "The window"): a
 * named range counted back from `to` (now by default), or an explicit from/to. Dates are UTC
 * days; a `to` date includes its whole day. `to` is inclusive throughout: an instant at exactly
 * `to` is in the window.
 */
import { invalid } from '../../lib/errors';
import { DAY_MS, HOUR_MS, hourStart, parseInstant, utcDay } from '../../lib/time';
import type { WindowQuery } from './model';
import type { RANGES } from './names';

type RangeName = (typeof RANGES)[number];

export interface Window {
  /** First instant in the window (epoch ms). */
  from: number;
  /** Last instant in the window (epoch ms, inclusive). */
  to: number;
  bots: boolean;
}

/** Series are hourly up to this length, daily beyond (docs/behaviour.md, "Link and workspace statistics"). */
export const HOURLY_UP_TO_MS = 7 * DAY_MS;
/** Daily series longer than this are refused: ten years is already 3,650 points. */
const MAX_WINDOW_MS = 3660 * DAY_MS;

/**
 * Resolves the query to an exact window. `earliest` is where `range=all` starts: the first
 * instant the scope has data for (or null when it has none).
 */
export function resolveWindow(query: WindowQuery, now: number, earliest: () => number | null): Window {
  const bots = query.bots === '1';
  let to = now;
  if (query.to !== undefined) {
    const parsed = parseInstant('to', query.to);
    to = parsed.isDate ? parsed.time + DAY_MS - 1 : parsed.time;
  }
  let from: number;
  if (query.from !== undefined) from = parseInstant('from', query.from).time;
  // A named range counted back from an early `to` stops at the epoch: nothing was clicked before 1970.
  else from = Math.max(0, rangeStart(query.range ?? '30d', to, earliest));
  if (from > to) throw invalid('from', 'from must not be after to');
  if (to - from > MAX_WINDOW_MS) throw invalid('from', 'the window must not be longer than 3660 days');
  return { from, to, bots };
}

/** Where a named range starts when it ends at `to`: whole hours up to 7 days, whole UTC days beyond. */
function rangeStart(range: RangeName, to: number, earliest: () => number | null): number {
  const day = utcDay(to) * DAY_MS;
  switch (range) {
    case 'today':
      return day;
    case '24h':
      return hourStart(to) - 23 * HOUR_MS;
    case '7d':
      return hourStart(to) - 167 * HOUR_MS;
    case '30d':
      return day - 29 * DAY_MS;
    case '90d':
      return day - 89 * DAY_MS;
    case 'all': {
      const first = earliest();
      return first === null ? day : Math.min(utcDay(first) * DAY_MS, day);
    }
  }
}

/** The window widened to whole hours, which is what rollups can answer. */
export function hourAligned(w: Window): Window {
  return { from: hourStart(w.from), to: hourStart(w.to) + HOUR_MS - 1, bots: w.bots };
}
