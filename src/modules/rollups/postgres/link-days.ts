/**
 * A link's day buckets on PostgreSQL, rolled up from its hour buckets once the day is over, as on
 * SQLite (sqlite/link-days.ts says how and why; `rollup_marks` is the same table): the fold
 * writes one bucket row per link and hour instead of two. A link's day buckets are complete
 * before its mark (`days_before`); from the mark on its days are the sums of its hour buckets.
 *
 * The fold's side works on every link of a fold at once: one query reads the marks of the links
 * not known yet and the hour buckets each would roll up, and only links that have hours to roll
 * up get day buckets and a new mark (a link whose hours are all from today has nothing to roll
 * up: its mark stays, and no row is written for it). Every call runs inside the fold's
 * transaction, under the fold lock, so no other fold moves a mark meanwhile.
 *
 * Marks read or moved are remembered for the day, and only while no other writer of rollups
 * wrote since this one's last fold (buckets.ts drops them with its workspace cache then): another
 * node's fold may have moved a mark this writer remembers as older.
 */
import { intList, num, type Pg } from '../../../db/postgres/client';
import { decodeCounts, encodeCounts } from '../rollup-codec';
import { GRAIN_CODE } from '../rollups';
import { daysFromHours } from '../sqlite/link-days';

export class PgLinkDays {
  /** Marks known for `day`, by link scope. */
  private known = new Map<number, number>();
  private day = -1;

  /** The fold rolled back, or another writer wrote rollups: what is remembered may be stale. */
  dropCache(): void {
    this.known.clear();
  }

  /**
   * Each scope's mark once brought up to `today` (a UTC day start): a scope with hour buckets
   * from its mark to today has them rolled up into day buckets and its mark moved to today.
   * Clicks of days before the returned mark go to day buckets as well as hour buckets.
   */
  async advance(tx: Pg, scopes: readonly number[], today: number): Promise<Map<number, number>> {
    if (today !== this.day) {
      this.known = new Map();
      this.day = today;
    }
    const marks = new Map<number, number>();
    const unknown: number[] = [];
    for (const s of scopes) {
      const m = this.known.get(s);
      if (m === undefined) unknown.push(s);
      else marks.set(s, m);
    }
    if (unknown.length === 0) return marks;
    // The marks and the hours each would roll up, in one statement (no mark: 0, every day from
    // hours). A scope with neither comes back as no row (its mark is 0): at a day's first fold
    // most links of a fold have no mark yet, and a row each cost more to read than to leave out.
    // Each link's hours are a range of the primary key, read by the index (`OFFSET 0`: not
    // made a join, which PostgreSQL ran as a scan of every rollup: buckets.ts says more).
    const rows =
      await tx`SELECT u.scope, coalesce(m.days_before, 0) AS mark, r.start, r.bot, r.clicks, r.uniques, r.data
      FROM unnest(${intList(unknown)}::int4[]) AS u(scope)
      LEFT JOIN rollup_marks m ON m.scope = u.scope
      LEFT JOIN LATERAL (SELECT r.start, r.bot, r.clicks, r.uniques, r.data FROM rollups r
        WHERE r.scope = u.scope AND r.grain = ${GRAIN_CODE.hour}
          AND r.start >= coalesce(m.days_before, 0) AND r.start < ${today}::int8 OFFSET 0) r ON true
      WHERE m.scope IS NOT NULL OR r.start IS NOT NULL`;
    const hours = new Map<
      number,
      { start: number; bot: boolean; clicks: number; uniques: number; data: Uint8Array }[]
    >();
    for (const r of rows as {
      scope: number;
      mark: string;
      start: string | null;
      bot: boolean;
      clicks: string;
      uniques: string;
      data: Uint8Array;
    }[]) {
      const scope = Number(r.scope);
      if (!marks.has(scope)) marks.set(scope, num(r.mark));
      if (r.start === null) continue;
      let list = hours.get(scope);
      if (list === undefined) {
        list = [];
        hours.set(scope, list);
      }
      list.push({ start: num(r.start), bot: r.bot, clicks: num(r.clicks), uniques: num(r.uniques), data: r.data });
    }
    for (const s of unknown) if (!marks.has(s)) marks.set(s, 0);
    if (hours.size > 0) await this.rollUp(tx, hours, marks, today);
    for (const s of unknown) this.known.set(s, marks.get(s)!);
    return marks;
  }

  /** Day buckets from these scopes' hours (replacing any stored: a stale one is overwritten), marks to today. */
  private async rollUp(
    tx: Pg,
    hours: Map<number, { start: number; bot: boolean; clicks: number; uniques: number; data: Uint8Array }[]>,
    marks: Map<number, number>,
    today: number,
  ): Promise<void> {
    const scopes = [...hours.keys()];
    const from = scopes.map((s) => marks.get(s)!);
    await tx`DELETE FROM rollups r USING unnest(${tx.array(scopes, 'int4')}::int4[], ${tx.array(from, 'int8')}::int8[]) AS u(scope, mark)
      WHERE r.scope = u.scope AND r.grain = ${GRAIN_CODE.day} AND r.start >= u.mark AND r.start < ${today}::int8`;
    const out = {
      scope: [] as number[],
      start: [] as number[],
      bot: [] as boolean[],
      clicks: [] as number[],
      uniques: [] as number[],
      data: [] as Uint8Array[],
    };
    for (const [scope, list] of hours) {
      const days = daysFromHours(
        scope,
        list.map((h) => ({ ...h, counts: decodeCounts(h.data) })),
      );
      for (const d of days) {
        out.scope.push(scope);
        out.start.push(d.start);
        out.bot.push(d.bot);
        out.clicks.push(d.clicks);
        out.uniques.push(d.uniques);
        out.data.push(encodeCounts(d.counts));
      }
    }
    await tx`INSERT INTO rollups (scope, grain, start, bot, clicks, uniques, data)
      SELECT u.scope, ${GRAIN_CODE.day}::int2, u.start, u.bot, u.clicks, u.uniques, u.data
      FROM unnest(${tx.array(out.scope, 'int4')}::int4[], ${tx.array(out.start, 'int8')}::int8[], ${tx.array(out.bot, 'bool')}::bool[],
        ${tx.array(out.clicks, 'int8')}::int8[], ${tx.array(out.uniques, 'int8')}::int8[], ${tx.array(out.data, 'bytea')}::bytea[])
        AS u(scope, start, bot, clicks, uniques, data)`;
    await tx`INSERT INTO rollup_marks (scope, days_before)
      SELECT u.scope, ${today}::int8 FROM unnest(${tx.array(scopes, 'int4')}::int4[]) AS u(scope)
      ON CONFLICT (scope) DO UPDATE SET days_before = excluded.days_before`;
    for (const s of scopes) marks.set(s, today);
  }
}

/** A link's mark: its day buckets are complete before it (0: every day from its hours). */
export async function linkDaysBeforePg(sql: Pg, scope: number): Promise<number> {
  const [r] = await sql`SELECT days_before FROM rollup_marks WHERE scope = ${scope}`;
  return r === undefined ? 0 : num(r.days_before);
}

/** The marks of these scopes (a scope without one is absent: every day from its hours). */
export async function linkDaysBeforeManyPg(sql: Pg, scopes: readonly number[]): Promise<Map<number, number>> {
  const rows = await sql`SELECT scope, days_before FROM rollup_marks
    WHERE scope = ANY(${sql.array([...scopes], 'int4')}::int4[])`;
  return new Map(rows.map((r: { scope: number; days_before: string }) => [Number(r.scope), num(r.days_before)]));
}
