/**
 * The writing end of the pipeline, on one SQLite connection: enrich a batch of clicks and
 * append it in ONE transaction (raw clicks only, repo.ts), sum what it adds to rollups and
 * counters in memory (rollups/pending.ts), and fold the sums into them (rollups/fold.ts) when
 * asked (the flusher does after each drain), or during a long drain once the sums hold
 * FOLD_MAX_CLICKS clicks or are FOLD_MAX_MS old. Runs in the writer Worker in production and inline in tests;
 * the same code either way.
 *
 * Opening one folds the clicks a previous writer wrote but did not fold (it was killed), and
 * rebuilds the seen visitors of today and yesterday from the raw clicks.
 */
import type { Database } from 'bun:sqlite';
import type { WalCheckpointer } from '../../../db/checkpoint';
import type { Clock } from '../../../lib/clock';
import { DAY_MS, utcDay } from '../../../lib/time';
import { addFallbackVisits, type FallbackVisits, storedHumansSqlite } from '../../links/public';
import { type CountedHumans, createFolder, type Folder, PendingSums, RollupValues } from '../../rollups/public';
import type { WireClick } from '../capture/record';
import { type EnrichContext, type EnrichedClick, enrichClick } from '../enrich/enrich';
import type { GeoLookup } from '../enrich/geo';
import { VisitorHasher } from '../enrich/visitor';
import type { PruneStep } from '../retention';
import { RETENTION_IDLE_MS, retainedFrom } from '../retention';
import { type ClickWriter, FOLD_MAX_CLICKS, FOLD_MAX_MS, type ImportedCount, type WriteOutcome } from '../store';
import { type ClickAppender, createClickAppender, type ImportedBatch } from './append';
import { ImportQueue, KIND_VISITS, type QueuedRow, queuedDays, queuedVisits } from './imports';
import { clickSource, firstVisitsSince, foldedThrough } from './raw-read';
import { pruneStep } from './retention';
import { sqliteSalts } from './salts';
import { Sealer } from './seal';
import { SeenVisitors } from './seen-visitors';

export { RETENTION_IDLE_MS } from '../retention';

/** Imported clicks a writer takes from the queue per call (the server's writer calls again on its timer). */
export const IMPORT_TAKE_CLICKS = 50_000;
/** Queue rows read at a time, and imported visits appended per transaction (about). */
const IMPORT_ROWS = 64;
const IMPORT_BATCH_CLICKS = 5_000;

export interface StoreOptions {
  foldMaxClicks?: number;
  foldMaxMs?: number;
  /** SLINK_RETENTION_DAYS: raw clicks older than this many days are pruned (retention.ts); 0 keeps all. */
  retentionDays?: number;
  /** Clicks per sealed segment (seal.ts SEAL_ROWS); tests seal sooner. */
  sealRows?: number;
  /**
   * The first visits known at open are those since this instant (ms); default the start of
   * yesterday. A spill replay starts at its oldest click's day, so a click of an older day is a
   * unique only if its visitor had none stored that day.
   */
  firstVisitsFrom?: number;
  /** Told after each fold commits what it added to each link's human clicks (fold.ts). */
  counted?: CountedHumans;
  /**
   * The WAL policy of the connection (db/checkpoint.ts), told after every commit of this store,
   * as SQLite's own checkpoint would run after it: the writer Worker's. Without one (inline
   * writes: tests, the spill replay) the connection's wal_autocheckpoint does the job.
   */
  checkpoints?: WalCheckpointer;
}

export class SqliteClickWriter implements ClickWriter {
  private readonly append: ClickAppender;
  private readonly folder: Folder;
  private readonly sealer: Sealer;
  private readonly ctx: EnrichContext;
  private readonly hasher: VisitorHasher;
  private readonly seen = new SeenVisitors();
  private readonly pending = new PendingSums();
  private readonly values: RollupValues;
  private readonly imports: ImportQueue;
  /** The last queued import row taken (written, or summed and waiting for the fold). */
  private importedThrough = 0;
  /** Queued daily counts summed and not folded yet: the fold deletes them. */
  private importedDays: number[] = [];
  /** Imported human clicks taken per link and not folded yet. */
  private takenHumans = new Map<string, number>();
  /** Per fold that counted imported history: each link's imported humans and its stored humans after (importedCounts). */
  private countedImports: ImportedCount[] = [];
  private readonly foldMaxClicks: number;
  private readonly foldMaxMs: number;
  /** The id of the last click this writer appended: the watermark its next fold stores. */
  private lastId = 0;
  private prunedThrough = -1;
  private readonly retentionDays: number;
  /** The watermark of the last fold: no click after it is ever pruned. */
  private foldedThrough: number;
  /** When the next retention step may run (clock ms): later after a step that found nothing. */
  private nextRetentionAt = 0;
  private readonly checkpoints: WalCheckpointer | null;
  /** Raw clicks deleted by retention so far. */
  readonly retention = { steps: 0, clicks: 0 };
  /** Folds so far: how many, their clicks, their time and the longest, in ms (the benchmark reports them). */
  readonly folds = { count: 0, clicks: 0, ms: 0, longestMs: 0 };
  /** Clicks a previous writer had written without folding them, folded at open. */
  readonly refolded: number;

  constructor(
    private readonly sqlite: Database,
    geo: GeoLookup,
    ownHosts: readonly string[],
    private readonly clock: Clock,
    options: StoreOptions = {},
  ) {
    const values = new RollupValues(sqlite);
    // The writer knows every value up front, so idOf() never needs a statement for one it has seen.
    values.refresh();
    this.values = values;
    this.imports = new ImportQueue(sqlite);
    this.append = createClickAppender(sqlite, values, this.seen);
    this.folder = createFolder(sqlite, clickSource(sqlite), clock, options.counted);
    this.sealer = new Sealer(sqlite, options.sealRows);
    this.hasher = new VisitorHasher(sqliteSalts(sqlite));
    this.ctx = { geo, hasher: this.hasher, ownHosts };
    this.foldMaxClicks = options.foldMaxClicks ?? FOLD_MAX_CLICKS;
    this.foldMaxMs = options.foldMaxMs ?? FOLD_MAX_MS;
    this.retentionDays = options.retentionDays ?? 0;
    this.checkpoints = options.checkpoints ?? null;
    this.refolded = this.folder.refold(values);
    this.foldedThrough = foldedThrough(sqlite);
    // Yesterday's too: a click from before midnight can arrive after it.
    const from = Math.min(options.firstVisitsFrom ?? Number.POSITIVE_INFINITY, (utcDay(clock.now()) - 1) * DAY_MS);
    firstVisitsSince(sqlite, from, (linkId, time, visitor) => this.seen.remember(utcDay(time), linkId, visitor));
  }

  /** The facts stored of a captured click (the spill replay enriches the lines of an older release's file). */
  enrich(click: WireClick): EnrichedClick {
    return enrichClick(click, this.ctx);
  }

  /** Throws when the transaction fails (nothing of the batch is then written). */
  writeBatch(batch: WireClick[]): WriteOutcome {
    const started = performance.now();
    return this.writeEnriched(
      batch.map((click) => enrichClick(click, this.ctx)),
      started,
    );
  }

  /**
   * Stores a salt a spill file carries for its day (visitor.ts adopt), so the visitors that day
   * clicks after the replay hash like the replayed ones.
   */
  adoptSalt(day: number, salt: string): void {
    this.hasher.adopt(day, salt);
  }

  /** Clicks enriched already (a spill file's, an import's); the same transaction and sums as writeBatch. */
  writeEnriched(clicks: EnrichedClick[], started = performance.now(), imported?: ImportedBatch): WriteOutcome {
    const result = this.append(clicks, this.clock.now(), imported);
    for (const a of result.appended) this.pending.add(a.click, a.firstOfDay, a.ids, a.linkValue);
    if (result.lastId > 0) this.lastId = result.lastId;
    this.prune();
    if (
      this.pending.clicks >= this.foldMaxClicks ||
      (this.pending.clicks > 0 && performance.now() - this.pending.since >= this.foldMaxMs)
    ) {
      try {
        this.fold();
      } catch {
        // The batch is written: failing it now would write it twice. The sums stay; the
        // flusher's fold at the end of the drain tries again and reports.
      }
    } else {
      this.retain();
    }
    if (result.written > 0) this.wrote();
    return { written: result.written, skipped: result.skipped, events: result.events, ms: performance.now() - started };
  }

  /**
   * Takes imported history from the queue (imports.ts), in queue order, until about `max` clicks:
   * visits appended as raw clicks (each transaction deleting the rows it wrote), daily counts
   * added to the sums (deleted by the fold that counts them). Returns the clicks taken; the
   * caller folds. Throws when a write fails (what was taken before stays taken).
   */
  takeImports(max = IMPORT_TAKE_CLICKS): number {
    let taken = 0;
    while (taken < max) {
      const rows = this.imports.after(this.importedThrough, IMPORT_ROWS);
      if (rows.length === 0) break;
      let visits: QueuedRow[] = [];
      let clicks = 0;
      const writeVisits = () => {
        if (visits.length === 0) return;
        const ids = visits.map((r) => r.id);
        const batch = visits.flatMap(queuedVisits);
        for (const c of batch) if (!c.bot) this.tookHumans(c.linkId, 1);
        this.writeEnriched(batch, performance.now(), { inside: () => this.imports.delete(ids) });
        this.importedThrough = ids[ids.length - 1]!;
        visits = [];
        clicks = 0;
      };
      for (const row of rows) {
        if (row.kind === KIND_VISITS) {
          visits.push(row);
          clicks += row.count;
          if (clicks >= IMPORT_BATCH_CLICKS) writeVisits();
        } else {
          writeVisits();
          this.sumDays(row);
          this.importedThrough = row.id;
        }
        taken += row.count;
      }
      writeVisits();
    }
    return taken;
  }

  private tookHumans(linkId: string, humans: number): void {
    if (humans > 0) this.takenHumans.set(linkId, (this.takenHumans.get(linkId) ?? 0) + humans);
  }

  /**
   * The imported human clicks folds counted since the last call, in fold order, each with its
   * link's stored human clicks after that fold: the process's slug index adds them to its counts
   * (LinkIndex.countImported), so click limits count them, whichever process imported them.
   */
  importedCounts(): ImportedCount[] {
    const out = this.countedImports;
    this.countedImports = [];
    return out;
  }

  /** A row of daily counts into the sums: each day's clicks at its first hour, no unique, no breakdown. */
  private sumDays(row: QueuedRow): void {
    let linkValue = 0;
    try {
      // A link with no click yet has no value: named in a transaction of its own (values.ts).
      linkValue = this.sqlite.transaction(() => this.values.idOf('link', '', row.linkId)).immediate();
      this.values.commit();
    } catch (err) {
      this.values.rollback();
      throw err;
    }
    for (const d of queuedDays(row)) this.pending.addCount(row.linkId, linkValue, d.start, d.clicks);
    this.tookHumans(row.linkId, row.count);
    this.importedDays.push(row.id);
  }

  /** Clicks written and not folded yet. */
  get unfolded(): number {
    return this.pending.clicks;
  }

  /** Folds the pending sums in one transaction; returns how many clicks. Throws (sums kept) when it fails. */
  fold(): number {
    const n = this.pending.clicks;
    if (n === 0) return 0;
    const started = performance.now();
    const days = this.importedDays;
    this.folder.fold(this.pending, this.lastId, days.length === 0 ? undefined : () => this.imports.counted(days));
    this.importedDays = [];
    if (this.takenHumans.size > 0) {
      const stored = storedHumansSqlite(this.sqlite, this.takenHumans.keys());
      for (const [id, humans] of this.takenHumans) {
        const after = stored.get(id);
        if (after !== undefined) this.countedImports.push([id, humans, after]);
      }
      this.takenHumans.clear();
    }
    this.pending.clear();
    this.foldedThrough = this.lastId;
    // Folded clicks may leave the tail; the ones after the watermark stay, for a refold.
    this.sealer.sealIfDue(this.lastId);
    this.retain();
    this.wrote();
    this.folds.count++;
    this.folds.clicks += n;
    const ms = performance.now() - started;
    this.folds.ms += ms;
    this.folds.longestMs = Math.max(this.folds.longestMs, ms);
    return n;
  }

  /**
   * One retention step when SLINK_RETENTION_DAYS is set and one is due (retention.ts); returns
   * what it deleted. Never throws: the batch or fold before it is committed, and a failed step
   * is tried again after the next one.
   */
  retain(): PruneStep {
    const now = this.clock.now();
    const from = retainedFrom(now, this.retentionDays);
    if (from === null || now < this.nextRetentionAt) return { kind: 'none' };
    try {
      const step = pruneStep(this.sqlite, from, this.foldedThrough);
      if (step.kind === 'none') this.nextRetentionAt = now + RETENTION_IDLE_MS;
      else {
        this.retention.steps++;
        this.retention.clicks += step.clicks;
        this.wrote();
      }
      return step;
    } catch (err) {
      console.error(`pruning old clicks failed (tried again after the next batch): ${String(err)}`);
      return { kind: 'none' };
    }
  }

  addFallbackVisits(visits: readonly FallbackVisits[]): void {
    addFallbackVisits(this.sqlite, visits);
    this.wrote();
  }

  /** Something was committed: a checkpoint when one is due (db/checkpoint.ts). */
  private wrote(): void {
    this.checkpoints?.check();
  }

  /**
   * Forgets salts and seen visitors of days before yesterday. Never throws: the batch before it
   * is committed (failing it would write it twice); a failed delete is tried again next time.
   */
  private prune(): void {
    const keepFrom = utcDay(this.clock.now()) - 1;
    if (this.prunedThrough >= keepFrom) return;
    try {
      this.hasher.pruneBefore(keepFrom);
    } catch {
      return;
    }
    this.seen.forgetBefore(keepFrom);
    this.prunedThrough = keepFrom;
  }
}
