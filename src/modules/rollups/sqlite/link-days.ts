/**
 * A link's day buckets are made from its hour buckets once the day is over ("rolled up"), not
 * written click by click: the fold then writes one bucket per link it counts instead of two, and
 * those random B-tree writes are most of its time.
 *
 * `rollup_marks` holds, per link scope, `days_before`: the link's day buckets are complete for
 * every day before it; from that day on, its days are the sums of its hour buckets, which are
 * always complete. The fold keeps that true: at a link's first fold of a new day it rolls the
 * days from the mark to today up and moves the mark to today; a click of a day before the mark
 * (a late one: a spill replayed, a refold after a crash past midnight) goes to the day bucket as
 * well as to the hour bucket. Rolling up overwrites: a day bucket becomes the sum of its day's
 * hour buckets, so one left behind by a rebuild (which writes both grains) is simply replaced.
 * A link without a mark has no trusted day bucket.
 */
import type { Database, Statement } from 'bun:sqlite';
import { DAY_MS, utcDay } from '../../../lib/time';
import { decodeCounts, encodeCounts, mergeCounts } from '../rollup-codec';
import { type Bucket, GRAIN_CODE } from '../rollups';

/** The day from which a link's days are read from its hour buckets (0: every day). */
export function linkDaysBefore(sqlite: Database, scope: number): number {
  return (
    sqlite.query<{ d: number }, [number]>('SELECT days_before AS d FROM rollup_marks WHERE scope = ?').get(scope)?.d ??
    0
  );
}

/** Sets every link scope that has buckets to `day` (the rebuild and the upgrade write complete day buckets). */
export function markAllLinkDays(sqlite: Database, day: number): void {
  sqlite.query('DELETE FROM rollup_marks').run();
  sqlite
    .query('INSERT INTO rollup_marks (scope, days_before) SELECT DISTINCT scope, ? FROM rollups WHERE scope <> 0')
    .run(day);
}

/** Day buckets summed from hour rows, by (day, bot). */
export function daysFromHours(
  scope: number,
  hours: Iterable<Pick<Bucket, 'start' | 'bot' | 'clicks' | 'uniques' | 'counts'>>,
): Bucket[] {
  const days = new Map<number, Bucket>();
  for (const h of hours) {
    const bot = h.bot;
    const start = utcDay(h.start) * DAY_MS;
    const key = start * 2 + (bot ? 1 : 0);
    let day = days.get(key);
    if (day === undefined) {
      day = { scope, grain: 'day', start, bot, clicks: 0, uniques: 0, counts: new Map() };
      days.set(key, day);
    }
    day.clicks += h.clicks;
    day.uniques += h.uniques;
    mergeCounts(day.counts, h.counts);
  }
  return [...days.values()];
}

/**
 * The fold's side: reading a link's mark and rolling its days up. Every call runs inside the
 * fold's transaction.
 *
 * A mark this writer moved to today is remembered, so the link's next folds that day skip the
 * query (measured: a tenth of the fold's time with 100,000 links). Only a mark known to be
 * today's is trusted: a rebuild or an upgrade moves marks only before the writer opens, and a
 * link delete drops its mark with the link, whose clicks are then never folded again.
 */
export class LinkDays {
  /** Scopes whose mark this writer set to `markedDay`. */
  private marked = new Set<number>();
  private markedDay = -1;
  private readonly hours: Statement<
    { start: number; bot: number; clicks: number; uniques: number; data: Uint8Array },
    [number, number, number, number]
  >;
  private readonly clearDays: Statement;
  private readonly insertDay: Statement;
  private readonly setMark: Statement;

  constructor(private readonly sqlite: Database) {
    this.hours = sqlite.prepare(
      'SELECT start, bot, clicks, uniques, data FROM rollups WHERE scope = ? AND grain = ? AND start >= ? AND start < ?',
    );
    this.clearDays = sqlite.prepare('DELETE FROM rollups WHERE scope = ? AND grain = ? AND start >= ? AND start < ?');
    this.insertDay = sqlite.prepare(
      'INSERT INTO rollups (scope, grain, start, bot, clicks, uniques, data) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.setMark = sqlite.prepare(
      `INSERT INTO rollup_marks (scope, days_before) VALUES (?, ?)
       ON CONFLICT (scope) DO UPDATE SET days_before = excluded.days_before`,
    );
  }

  /** The fold's transaction rolled back: the marks it moved were never written. */
  dropCache(): void {
    this.marked.clear();
  }

  /**
   * Brings a link's mark up to `today` (a UTC day start), rolling the days in between up from
   * its hour buckets; returns the mark. Clicks of days before it also go to its day buckets.
   */
  advance(scope: number, today: number): number {
    if (today !== this.markedDay) {
      this.marked = new Set();
      this.markedDay = today;
    } else if (this.marked.has(scope)) return today;
    const mark = linkDaysBefore(this.sqlite, scope);
    if (mark >= today) {
      if (mark === today) this.marked.add(scope);
      return mark;
    }
    const hours = this.hours.all(scope, GRAIN_CODE.hour, mark, today).map((r) => ({
      start: r.start,
      bot: r.bot === 1,
      clicks: r.clicks,
      uniques: r.uniques,
      counts: decodeCounts(r.data),
    }));
    this.clearDays.run(scope, GRAIN_CODE.day, mark, today);
    for (const d of daysFromHours(scope, hours))
      this.insertDay.run(scope, GRAIN_CODE.day, d.start, d.bot ? 1 : 0, d.clicks, d.uniques, encodeCounts(d.counts));
    this.setMark.run(scope, today);
    this.marked.add(scope);
    return today;
  }
}

/** The day marks of these scopes (a scope without one is absent: every day from its hours). */
export function linkDaysBeforeMany(sqlite: Database, scopes: readonly number[]): Map<number, number> {
  const rows = sqlite
    .query<{ scope: number; d: number }, [string]>(
      'SELECT scope, days_before AS d FROM rollup_marks WHERE scope IN (SELECT value FROM json_each(?))',
    )
    .all(JSON.stringify(scopes));
  return new Map(rows.map((r) => [r.scope, r.d]));
}
