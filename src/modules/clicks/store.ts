/**
 * The writing end of the pipeline, on one SQLite connection: enrich a batch of clicks and
 * append it in ONE transaction (raw clicks only, repo.ts), sum what it adds to rollups and
 * counters in memory (pending.ts), and fold the sums into them (fold.ts) when asked (the
 * flusher does after each drain), or during a long drain once the sums hold FOLD_MAX_CLICKS
 * clicks or are FOLD_MAX_MS old. Runs in the writer Worker in production and inline in tests;
 * the same code either way.
 *
 * Opening one folds the clicks a previous writer wrote but did not fold (it was killed), and
 * rebuilds the seen visitors of today and yesterday from the raw clicks.
 */
import type { Database } from 'bun:sqlite';
import type { Clock } from '../../lib/clock';
import { DAY_MS, utcDay } from '../../lib/time';
import { type EnrichContext, enrichClick } from './enrich';
import { createFolder, type Folder } from './fold';
import type { GeoLookup } from './geo';
import { PendingSums } from './pending';
import { firstVisitsSince } from './raw-read';
import type { WireClick } from './record';
import { type ClickAppender, createClickAppender } from './repo';
import { RollupValues } from './rollup-values';
import { Sealer } from './seal';
import { SeenVisitors } from './seen-visitors';
import { VisitorHasher } from './visitor';

/** Sums held before a fold during a long drain (measured: docs/performance.md). */
export const FOLD_MAX_CLICKS = 50_000;
/** Age of the oldest pending sum before a fold during a long drain: counts lag by at most this under saturation. */
export const FOLD_MAX_MS = 1000;

export interface WriteOutcome {
  written: number;
  skipped: number;
  /** Time spent enriching and writing the batch (and folding, when it did), in ms. */
  ms: number;
}

export interface StoreOptions {
  foldMaxClicks?: number;
  foldMaxMs?: number;
}

export class ClickStore {
  private readonly append: ClickAppender;
  private readonly folder: Folder;
  private readonly sealer: Sealer;
  private readonly ctx: EnrichContext;
  private readonly hasher: VisitorHasher;
  private readonly seen = new SeenVisitors();
  private readonly pending = new PendingSums();
  private readonly foldMaxClicks: number;
  private readonly foldMaxMs: number;
  /** The id of the last click this writer appended: the watermark its next fold stores. */
  private lastId = 0;
  private prunedThrough = -1;
  /** Folds so far: how many, their clicks, their time and the longest, in ms (the benchmark reports them). */
  readonly folds = { count: 0, clicks: 0, ms: 0, longestMs: 0 };
  /** Clicks a previous writer had written without folding them, folded at open. */
  readonly refolded: number;

  constructor(
    sqlite: Database,
    geo: GeoLookup,
    ownHosts: readonly string[],
    private readonly clock: Clock,
    options: StoreOptions = {},
  ) {
    const values = new RollupValues(sqlite);
    // The writer knows every value up front, so idOf() never needs a statement for one it has seen.
    values.refresh();
    this.append = createClickAppender(sqlite, values, this.seen);
    this.folder = createFolder(sqlite);
    this.sealer = new Sealer(sqlite);
    this.hasher = new VisitorHasher(sqlite);
    this.ctx = { geo, hasher: this.hasher, ownHosts };
    this.foldMaxClicks = options.foldMaxClicks ?? FOLD_MAX_CLICKS;
    this.foldMaxMs = options.foldMaxMs ?? FOLD_MAX_MS;
    this.refolded = this.folder.refold(values);
    // Yesterday's too: a click from before midnight can arrive after it.
    firstVisitsSince(sqlite, (utcDay(clock.now()) - 1) * DAY_MS, (linkId, time, visitor) =>
      this.seen.remember(utcDay(time), linkId, visitor),
    );
  }

  /** Throws when the transaction fails (nothing of the batch is then written). */
  writeBatch(batch: WireClick[]): WriteOutcome {
    const started = performance.now();
    const result = this.append(batch.map((click) => enrichClick(click, this.ctx)));
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
    }
    return { written: result.written, skipped: result.skipped, ms: performance.now() - started };
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
    this.folder.fold(this.pending, this.lastId);
    this.pending.clear();
    // Folded clicks may leave the tail; the ones after the watermark stay, for a refold.
    this.sealer.sealIfDue(this.lastId);
    this.folds.count++;
    this.folds.clicks += n;
    const ms = performance.now() - started;
    this.folds.ms += ms;
    this.folds.longestMs = Math.max(this.folds.longestMs, ms);
    return n;
  }

  /** Forgets salts and seen visitors of days before yesterday. */
  private prune(): void {
    const keepFrom = utcDay(this.clock.now()) - 1;
    if (this.prunedThrough >= keepFrom) return;
    this.hasher.pruneBefore(keepFrom);
    this.seen.forgetBefore(keepFrom);
    this.prunedThrough = keepFrom;
  }
}
