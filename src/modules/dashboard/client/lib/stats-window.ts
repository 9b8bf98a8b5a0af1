/**
 * The window a statistics page shows, kept in its address (?range=7d&bots=1, or
 * ?from=2026-11-01&to=2026-11-20) so a view can be shared and reloaded. The values go to the
 * API as they are: it alone decides what is valid, and its 400 names the field to mark.
 * DOM-free (unit-tested on its own).
 */

export interface StatsWindow {
  range?: string;
  from?: string;
  to?: string;
  bots?: string;
}

export const WINDOW_FIELDS = ['range', 'from', 'to', 'bots'] as const;

/** The API's default range: what the page shows with no range in its address. */
export const DEFAULT_RANGE = '30d';

export const RANGE_OPTIONS = [
  { value: 'today', label: 'Today (UTC)' },
  { value: '24h', label: 'Last 24 hours' },
  { value: '7d', label: 'Last 7 days' },
  { value: '30d', label: 'Last 30 days' },
  { value: '90d', label: 'Last 90 days' },
  { value: 'all', label: 'All time' },
  { value: 'custom', label: 'Custom dates' },
];

export function windowOf(query: URLSearchParams): StatsWindow {
  const w: StatsWindow = {};
  for (const field of WINDOW_FIELDS) {
    const value = query.get(field);
    if (value) w[field] = value;
  }
  return w;
}

/** `?range=7d&bots=1`, or '' for the default view. */
export function windowSearch(w: StatsWindow): string {
  const search = new URLSearchParams();
  for (const field of WINDOW_FIELDS) if (w[field]) search.set(field, w[field]);
  return search.size ? `?${search}` : '';
}

/** The picker's choice: a preset name, or 'custom' once dates are given. */
export const rangeChoice = (w: StatsWindow) => (w.from || w.to ? 'custom' : (w.range ?? DEFAULT_RANGE));

/** A preset chosen: its dates go (they would override it). */
export const withRange = (w: StatsWindow, range: string): StatsWindow => ({ range, bots: w.bots });

/** Dates chosen: the range goes (dates override it anyway; the address should not say both). */
export const withDates = (w: StatsWindow, from: string, to: string): StatsWindow => ({
  from: from || undefined,
  to: to || undefined,
  bots: w.bots,
});

export const withBots = (w: StatsWindow, bots: boolean): StatsWindow => ({ ...w, bots: bots ? '1' : undefined });

/** epoch ms -> the UTC day as YYYY-MM-DD (the API's dates are UTC days). */
export const utcDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
