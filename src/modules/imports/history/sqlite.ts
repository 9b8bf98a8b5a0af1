/**
 * The history writer on SQLite. The raw clicks and what is summed of them have ONE writer, the
 * server's click writer (its Worker, with its state in memory), and an import may run in the
 * server (the API, the dashboard) or in `slink import` beside it on the same file. So history
 * never goes around it: it is queued (clicks/sqlite/imports.ts) in one short transaction per
 * group of calls, with the link's imported columns, and the writer takes the queue through its own
 * path, on a timer, or at once when this process's writer is asked (`take`). Each call's history
 * position (the source link's mapping) is saved in that same transaction. Durable when a call
 * resolves; counted once the writer has taken it (flush() waits for that where it can).
 */
import type { Database } from 'bun:sqlite';
import { CHECKPOINT_PAGES } from '../../../db/checkpoint';
import { type EnrichedClick, importedClick, queueImportedDays, queueImportedVisits } from '../../clicks/public';
import {
  addImportedCountsSqlite,
  importTargetSqlite,
  markImportedSqlite,
  setImportedTotalSqlite,
} from '../../links/public';
import type { HistoryPosition, HistoryWriter } from '../history';
import type { CountedOnly, SourceDay, SourceName } from '../source';
import { savePositionSqlite } from '../sqlite/store';
import {
  GroupedWrites,
  groupedVisits,
  type HistoryOptions,
  importedVisit,
  keptDays,
  VISITS_PER_WRITE,
  type VisitsCall,
} from './convert';

/**
 * Clicks queued after which this process's writer is asked to take them, while the import goes
 * on: one chunk of its take (IMPORT_TAKE_CLICKS). Taken only at the end, a whole run's history
 * waited in the queue and was taken in one go, the process growing with the run (1 GB at 20,000
 * links of 10 visits). Smaller takes cost more: each fold rewrites every past hour's workspace
 * bucket it touches, thousands for a year of history (at 100,000 links: 0.80 of the rate before
 * with 20,000, 1.37 with 50,000; docs/performance.md).
 */
export const TAKE_AFTER_CLICKS = 50_000;

/**
 * A connection that checkpoints at its own commits (`standalone`: `slink import`, an app without
 * the writer Worker) does so every ~4 MB of WAL (SQLite's 1,000 pages), each a copy into the
 * file and its syncs, paid by whichever commit crosses it. An import writes far more than a
 * redirect's batch (links, the queue, the clicks taken from it, the fold), so while it writes the
 * connection checkpoints at the server's writer's size instead (db/checkpoint.ts), set back at
 * the flush; at 100,000 links a quarter of the run's time was BEGIN and COMMIT before
 * (docs/performance.md). A connection that never checkpoints itself (`server`: the writer's
 * thread does) is left alone.
 */
function widenedCheckpoints(sqlite: Database): { widen(): void; restore(): void; widened(): boolean } {
  /** The connection's own setting while widened; null: not widened. */
  let before: number | null = null;
  return {
    widen() {
      if (before !== null) return;
      const pages = sqlite.query<{ wal_autocheckpoint: number }, []>('PRAGMA wal_autocheckpoint').get()!;
      if (pages.wal_autocheckpoint <= 0 || pages.wal_autocheckpoint >= CHECKPOINT_PAGES) return;
      sqlite.exec(`PRAGMA wal_autocheckpoint = ${CHECKPOINT_PAGES}`);
      before = pages.wal_autocheckpoint;
    },
    restore() {
      if (before === null) return;
      // Unless set since (a server's connection, whose checkpoints its writer runs).
      const pages = sqlite.query<{ wal_autocheckpoint: number }, []>('PRAGMA wal_autocheckpoint').get()!;
      if (pages.wal_autocheckpoint === CHECKPOINT_PAGES) sqlite.exec(`PRAGMA wal_autocheckpoint = ${before}`);
      before = null;
    },
    widened: () => before !== null,
  };
}

export function sqliteHistoryWriter(sqlite: Database, options: HistoryOptions & { takeAfter?: number }): HistoryWriter {
  const { policy, clock } = options;
  const takeAfter = options.takeAfter ?? TAKE_AFTER_CLICKS;
  const checkpoints = widenedCheckpoints(sqlite);
  /** Clicks queued since the last take was asked for, and the take under way. */
  let untaken = 0;
  let taking: Promise<void> | null = null;

  /**
   * Has the writer take what is queued (one take at a time). The writer's take tells the
   * process's slug index of the links it counted (whoever queued their history): nothing to
   * tell here.
   */
  async function takeQueued(): Promise<void> {
    if (options.take === undefined) return;
    untaken = 0;
    await options.take();
    // With no writer Worker (the connection checkpoints itself: an app writing inline, the
    // benchmark; `slink import` takes nothing), the take ran on this thread and left its garbage here, which the collector left
    // for long (a full collection now: +483 MB peak at 100,000 links against +727 MB, at the
    // same rate). Not in a server, whose event loop answers redirects: its writer has its own.
    if (checkpoints.widened()) Bun.gc(true);
  }

  /** Once enough is queued, a take in the background: flush() waits for it. */
  function takeIfDue(): void {
    if (options.take === undefined || untaken < takeAfter || taking !== null) return;
    const run = takeQueued()
      // Tried again by the next one, or by flush(), which reports.
      .catch(() => {})
      .finally(() => {
        taking = null;
      });
    taking = run;
  }

  /** Calls made side by side are queued in one transaction (fewer commits): GroupedWrites. */
  const grouped = new GroupedWrites<VisitsCall, number>(
    async (calls) => queueVisits(calls),
    (c) => c.visits.length,
    VISITS_PER_WRITE,
  );

  function queueVisits(calls: VisitsCall[]): number[] {
    checkpoints.widen();
    const counts = sqlite
      .transaction(() =>
        calls.map((call) => {
          // With what it stores, or even when it stores nothing: a re-run starts after these visits.
          if (call.position) savePositionSqlite(sqlite, call.position);
          const target = importTargetSqlite(sqlite, call.linkId);
          if (target === null) return 0;
          const params = JSON.parse(target.paramsJson) as Record<string, string>;
          const clicks: EnrichedClick[] = [];
          for (const v of call.visits) {
            const visit = importedVisit(v);
            if (visit !== null) clicks.push(importedClick(visit, { linkId: call.linkId, ...target }, params, policy));
          }
          if (clicks.length === 0) return 0;
          for (let i = 0; i < clicks.length; i += VISITS_PER_WRITE)
            queueImportedVisits(sqlite, call.linkId, clicks.slice(i, i + VISITS_PER_WRITE));
          const at = clock.now();
          markImportedSqlite(sqlite, {
            linkId: call.linkId,
            source: call.source,
            history: 'visits',
            clicks: clicks.length,
            at,
          });
          return clicks.length;
        }),
      )
      .immediate();
    for (const n of counts) untaken += n;
    takeIfDue();
    return counts;
  }

  const visits = groupedVisits(grouped);

  async function days(
    linkId: string,
    source: SourceName,
    list: readonly SourceDay[],
    position?: HistoryPosition,
  ): Promise<number> {
    const { kept, clicks } = keptDays(list);
    const written = sqlite
      .transaction(() => {
        if (position) savePositionSqlite(sqlite, position);
        if (!markImportedSqlite(sqlite, { linkId, source, history: 'daily', clicks, at: clock.now() })) return 0;
        queueImportedDays(sqlite, linkId, kept);
        return clicks;
      })
      .immediate();
    untaken += written;
    takeIfDue();
    return written;
  }

  async function total(linkId: string, source: SourceName, clicks: number, position?: HistoryPosition): Promise<void> {
    if (!Number.isSafeInteger(clicks) || clicks < 0) return;
    const added = sqlite
      .transaction(() => {
        if (position) savePositionSqlite(sqlite, position);
        return setImportedTotalSqlite(sqlite, { linkId, source, clicks, at: clock.now() });
      })
      .immediate();
    // Stored at once: no writer takes it.
    if (added) options.counted?.(new Map([[linkId, added]]));
  }

  async function countedOnly(
    linkId: string,
    source: SourceName,
    counts: CountedOnly,
    position?: HistoryPosition,
  ): Promise<number> {
    const added = sqlite
      .transaction(() => {
        if (position) savePositionSqlite(sqlite, position);
        return addImportedCountsSqlite(sqlite, { linkId, source, ...counts, at: clock.now() });
      })
      .immediate();
    if (!added) return 0;
    // Stored at once, as a total: no writer takes it.
    if (counts.clicks > 0) options.counted?.(new Map([[linkId, counts.clicks]]));
    return counts.clicks + counts.bots;
  }

  async function none(linkId: string, source: SourceName): Promise<void> {
    markImportedSqlite(sqlite, { linkId, source, history: 'none', clicks: 0, at: clock.now() });
  }

  async function flush(): Promise<void> {
    await grouped.idle();
    while (taking !== null) await taking;
    try {
      await takeQueued();
    } finally {
      checkpoints.restore();
    }
  }

  return { visits, days, total, countedOnly, none, flush };
}
