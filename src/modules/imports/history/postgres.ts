/**
 * The history writer on PostgreSQL, where any node may write clicks (docs/architecture.md,
 * "PostgreSQL"): visits are written as a click batch is, on this process's pool, through the
 * click writer's own path (raw clicks and their delta in one transaction, counted by the next
 * fold of any node), recording no `clicks` events; daily counts are counted at once, in a
 * transaction that holds the fold lock as a fold does, into the counters and buckets; a total
 * sets the starting clickCount (another Slink's counts beyond visits and days are added to the
 * counters). Each call's history position (the source link's mapping) and
 * its link's `imported` note are saved in the transaction that stores the call's history. The click store is used through `HistoryClicks` only, so a
 * change of the click path stays out of this file.
 */
import type { Pg } from '../../../db/postgres/client';
import { CLICK_BARRIER_LOCK, ROLLUP_FOLD_LOCK } from '../../../db/postgres/locks';
import { pipelined } from '../../../db/postgres/pipelined';
import { DAY_MS, utcDay } from '../../../lib/time';
import { type EnrichedClick, importedClick, keepImportedDaysPg } from '../../clicks/public';
import {
  addImportedCountsPg,
  bumpLinkCounters,
  existingLinks,
  type ImportedMark,
  importTargetsPg,
  markImportedManyPg,
  markImportedPg,
  setImportedTotalPg,
} from '../../links/public';
import { PendingSums, PgRollupWriter, PgValues } from '../../rollups/public';
import type { HistoryPosition, HistoryWriter } from '../history';
import { countRunClicksPg, runClicks, savePositionPg, savePositionsPg } from '../postgres/store';
import type { CountedOnly, SourceDay, SourceName } from '../source';
import {
  AddedHumans,
  GroupedWrites,
  groupedVisits,
  type HistoryOptions,
  importedVisit,
  keptDays,
  VISITS_PER_WRITE,
  type VisitsCall,
} from './convert';

/** What this writer needs of the engine's click writer (clicks/postgres/store.ts). */
export interface HistoryClicks {
  /**
   * Writes enriched clicks in one transaction, with no `clicks` events; `also` runs in that
   * transaction after them (the history position saved with the clicks it follows).
   */
  writeEnriched(
    clicks: EnrichedClick[],
    started?: number,
    options?: { events?: boolean; also?: (tx: Pg) => Promise<void> },
  ): Promise<unknown>;
  /** Counts every written batch in; returns how many clicks. */
  fold(): Promise<number>;
}

export function postgresHistoryWriter(sql: Pg, clicks: HistoryClicks, options: HistoryOptions): HistoryWriter {
  const { policy, clock } = options;
  const rollups = new PgRollupWriter();
  const values = new PgValues(sql);
  /** Human clicks written since the last flush: told to `counted` once a fold counted them. */
  const humans = new AddedHumans();

  /** Calls made side by side are written as one batch (fewer commits): GroupedWrites. */
  const grouped = new GroupedWrites<VisitsCall, number>(writeVisits, (c) => c.visits.length, VISITS_PER_WRITE);

  async function writeVisits(calls: VisitsCall[]): Promise<number[]> {
    const targets = await importTargetsPg(
      sql,
      calls.map((c) => c.linkId),
    );
    // Transactions of up to VISITS_PER_WRITE clicks, each holding whole calls: a call's clicks
    // and its position commit together.
    const chunks: {
      clicks: EnrichedClick[];
      positions: HistoryPosition[];
      marks: ImportedMark[];
      /** The clicks of each run the chunk stores (countRunClicksPg). */
      runs: Map<string, number>;
    }[] = [];
    /** The positions of calls with no click to store (a link gone, no usable visit). */
    const bare: HistoryPosition[] = [];
    // Human clicks per link, told once written.
    const humanCounts: [string, number][] = [];
    const counts = calls.map((call) => {
      const target = targets.get(call.linkId);
      const made: EnrichedClick[] = [];
      let people = 0;
      if (target !== undefined) {
        const params = JSON.parse(target.paramsJson) as Record<string, string>;
        for (const v of call.visits) {
          const visit = importedVisit(v);
          if (visit === null) continue;
          const click = importedClick(visit, { linkId: call.linkId, ...target }, params, policy);
          made.push(click);
          if (!click.bot) people++;
        }
      }
      if (made.length === 0) {
        if (call.position) bare.push(call.position);
        return 0;
      }
      let chunk = chunks[chunks.length - 1];
      if (chunk === undefined || chunk.clicks.length + made.length > VISITS_PER_WRITE) {
        chunk = { clicks: [], positions: [], marks: [], runs: new Map() };
        chunks.push(chunk);
      }
      for (const c of made) chunk.clicks.push(c);
      if (call.position) chunk.positions.push(call.position);
      const run = call.position?.runId;
      if (run !== undefined) chunk.runs.set(run, (chunk.runs.get(run) ?? 0) + made.length);
      chunk.marks.push({
        linkId: call.linkId,
        source: call.source,
        history: 'visits',
        clicks: made.length,
        at: clock.now(),
      });
      humanCounts.push([call.linkId, people]);
      return made.length;
    });
    for (const chunk of chunks) {
      await clicks.writeEnriched(chunk.clicks, performance.now(), {
        events: false,
        also: async (tx) => {
          // Pipelined, one round trip: the chunk's positions in one statement, not a round trip
          // each, and the links' `imported` note with their clicks (a crash between cannot part
          // them), in link order, so two such transactions take their counters rows' locks in one order;
          // the run's count last (its row's lock held the least, taken after every other).
          await pipelined([
            savePositionsPg(tx, chunk.positions),
            markImportedManyPg(
              tx,
              chunk.marks.sort((a, b) => (a.linkId < b.linkId ? -1 : a.linkId > b.linkId ? 1 : 0)),
            ),
            countRunClicksPg(tx, chunk.runs),
          ]);
        },
      });
    }
    if (bare.length > 0) await sql.begin((tx) => savePositionsPg(tx, bare));
    for (const [id, n] of humanCounts) humans.add(id, n);
    return counts;
  }

  const visits = groupedVisits(grouped);

  async function days(
    linkId: string,
    source: SourceName,
    list: readonly SourceDay[],
    position?: HistoryPosition,
  ): Promise<number> {
    const { kept, clicks: total } = keptDays(list);
    // A link with no click yet has no value: named first, committed on its own (as a batch's are).
    await values.ensure(() => values.idOf('link', '', linkId));
    const linkValue = values.idOf('link', '', linkId);
    let written: number;
    try {
      written = await sql.begin(async (tx) => {
        // As a fold: one at a time (the buckets are rewritten without row locks), and no link
        // deletion between the existence check and the commit.
        await tx`SELECT pg_advisory_xact_lock(${ROLLUP_FOLD_LOCK})`;
        await tx`SELECT pg_advisory_xact_lock_shared(${CLICK_BARRIER_LOCK})`;
        if (position) await savePositionPg(tx, position);
        const alive = await existingLinks(tx, [linkId]);
        if (!alive.has(linkId)) return 0;
        if (total > 0) {
          const pending = new PendingSums();
          for (const d of kept) pending.addCount(linkId, linkValue, d.start, d.clicks);
          const slot = pending.linksInOrder()[0]!;
          await bumpLinkCounters(tx, [{ id: linkId, ...pending.counters(slot) }]);
          await rollups.add(tx, pending, alive, utcDay(clock.now()) * DAY_MS);
          // Kept apart as on SQLite: no raw click holds them (a rebuild adds them back).
          await keepImportedDaysPg(tx, linkId, kept);
        }
        await markImportedPg(tx, { linkId, source, history: 'daily', clicks: total, at: clock.now() });
        await countRunClicksPg(tx, runClicks(position, total));
        return total;
      });
    } catch (err) {
      // What the cache holds may be what this rolled-back transaction wrote.
      rollups.dropCache();
      throw err;
    }
    if (written > 0) options.counted?.(new Map([[linkId, written]]));
    return written;
  }

  async function total(linkId: string, source: SourceName, n: number, position?: HistoryPosition): Promise<void> {
    if (!Number.isSafeInteger(n) || n < 0) return;
    const added = await sql.begin(async (tx) => {
      if (position) await savePositionPg(tx, position);
      // Counted whether set or not, as the runner counts a total.
      await countRunClicksPg(tx, runClicks(position, n));
      return setImportedTotalPg(tx, { linkId, source, clicks: n, at: clock.now() });
    });
    if (added) options.counted?.(new Map([[linkId, added]]));
  }

  async function countedOnly(
    linkId: string,
    source: SourceName,
    counts: CountedOnly,
    position?: HistoryPosition,
  ): Promise<number> {
    const added = await sql.begin(async (tx) => {
      if (position) await savePositionPg(tx, position);
      const added = await addImportedCountsPg(tx, { linkId, source, ...counts, at: clock.now() });
      if (added) await countRunClicksPg(tx, runClicks(position, counts.clicks + counts.bots));
      return added;
    });
    if (!added) return 0;
    if (counts.clicks > 0) options.counted?.(new Map([[linkId, counts.clicks]]));
    return counts.clicks + counts.bots;
  }

  async function none(linkId: string, source: SourceName): Promise<void> {
    await markImportedPg(sql, { linkId, source, history: 'none', clicks: 0, at: clock.now() });
  }

  async function flush(): Promise<void> {
    await grouped.idle();
    const added = humans.take();
    await clicks.fold();
    if (added.size > 0) options.counted?.(added);
  }

  return { visits, days, total, countedOnly, none, flush };
}
