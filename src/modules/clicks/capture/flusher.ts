/**
 * Every SLINK_FLUSH_MS, moves the buffer to the sink: clicks are classified here (so the
 * link's counters are settled on the thread that reads them), turned into plain wire records
 * and written in batches of at most MAX_BATCH, each batch one transaction; once the buffer is
 * drained the sink folds what they add into rollups and counters. A failed write (locked or
 * full disk) puts the batch back in front of the buffer; the next tick retries it.
 */

import { nextTurn } from '../../../lib/event-loop';
import type { Logger } from '../../../lib/log';
import type { ImportedCount, WriteOutcome } from '../store';
import type { ClickBuffer } from './buffer';
import type { FallbackVisits } from './fallback-tally';
import { classifyClick } from './live-counts';
import type { ClickRecord, WireClick } from './record';
import type { ClickSink } from './sink';
import { blockId, blockParamsJson, blockSerial, blockTargetId, blockValueId } from './target-block';

/** ~2,000 clicks is ~50-100 ms of writer time: long enough to amortise page writes, short enough for an API write waiting on the lock, and classified in a few ms on the event loop. */
export const MAX_BATCH = 2000;
/** Clicks converted and handed over per event-loop turn (~1 ms each). */
const SLICE = 500;

interface FlushStats {
  written: number;
  skipped: number;
  batches: number;
  /** Longest single batch (enrich + transaction) in ms, on whichever thread writes. */
  longestBatchMs: number;
  /** Longest synchronous step of the flush on the event loop (take + classify, or one slice), in ms. */
  longestStepMs: number;
}

/** Classifies a click (settling its link's counters) and copies it into a plain wire record. */
export function toWire(record: ClickRecord): WireClick {
  const { arena, at, variantAt } = record;
  const target = variantAt < 0 ? at : variantAt;
  const rule = record.rule ?? null;
  const wire: WireClick = {
    time: record.time,
    serial: rule === null ? blockSerial(arena, target) : rule.serial,
    linkId: blockId(arena, at),
    variantId: variantAt < 0 ? null : blockId(arena, variantAt),
    code: record.code,
    location: record.location,
    paramsJson: rule === null ? blockParamsJson(arena, target) : rule.paramsJson,
    address: record.address,
    userAgent: record.userAgent,
    referrer: record.referrer,
    acceptLanguage: record.acceptLanguage,
    bot: classifyClick(record),
    rule: rule === null ? null : rule.index,
  };
  // Only when set: a profiled click's wire text (sent to the writer) stays as it was.
  if (record.optedOut) wire.optedOut = true;
  // Known on PostgreSQL only (the slug index read them with the link): the writer looks neither up.
  const linkValue = blockValueId(arena, at);
  if (linkValue > 0) {
    wire.linkValue = linkValue;
    const targetId = variantAt < 0 && rule === null && record.code === null ? blockTargetId(arena, at) : 0;
    if (targetId > 0) wire.targetId = targetId;
  }
  return wire;
}

export class ClickFlusher {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<boolean> | null = null;
  private failing = false;
  private failure: unknown = null;
  private foldFailing = false;
  readonly stats: FlushStats = { written: 0, skipped: 0, batches: 0, longestBatchMs: 0, longestStepMs: 0 };
  /** Told of every committed batch: the writer's outcome and the ms from commit to its answer (/metrics). */
  onBatch: ((outcome: WriteOutcome, waitedMs: number) => void) | null = null;
  /** Told when a committed batch recorded `clicks` events (the webhook sender delivers them now, not at its next poll). */
  onEvents: (() => void) | null = null;
  /**
   * Told, at each flush, of the imported human clicks the writer counted since the last (its own
   * timer takes what `slink import` queues beside this process): the slug index adds them, so
   * click limits count them.
   */
  onImported: ((counts: ImportedCount[]) => void) | null = null;
  private learnFailing = false;

  constructor(
    private readonly buffer: ClickBuffer,
    private readonly sink: ClickSink,
    private readonly log: Logger,
  ) {}

  /**
   * The error of the last click write while writes are failing, or why the sink cannot take
   * clicks yet (a start waiting for space), else null (/healthz).
   */
  get writeFailure(): unknown {
    return this.failing ? this.failure : (this.sink.unavailable ?? null);
  }

  start(intervalMs: number): void {
    // Saturation: flush now rather than at the next tick, so waiting redirects are released soon.
    this.buffer.onHighWater = () => {
      if (this.timer && !this.running) void this.flush();
    };
    // A tick that finds a flush still running skips: the running one keeps draining.
    this.timer ??= setInterval(() => {
      if (!this.running) void this.flush();
    }, intervalMs);
  }

  /** Tells onImported of the imported human clicks the writer counted. */
  async learnImported(): Promise<void> {
    if (this.onImported === null || this.sink.importedCounts === undefined) return;
    try {
      const counts = await this.sink.importedCounts();
      if (counts.length > 0) this.onImported(counts);
      this.learnFailing = false;
    } catch (err) {
      // Once per failing streak: the writer's own failure is reported where it happens.
      if (!this.learnFailing) this.log.error('reading the links of the imported history counted failed', err);
      this.learnFailing = true;
    }
  }

  private reportDrops(): void {
    if (this.buffer.dropped === 0) return;
    this.log.error(
      `${this.buffer.dropped} clicks dropped: the click buffer was full (${this.buffer.capacity}) while writes failed`,
    );
    this.buffer.dropped = 0;
  }

  /**
   * Takes the oldest batch, classifies it and hands it to the sink in slices, yielding between
   * them so redirects keep flowing while a big batch is converted. The whole batch is
   * classified before the first yield: once out of the buffer, settleLink (delete, new click
   * limit) cannot see these clicks, so their humans must already be in the link's counters.
   */
  private async handOver(): Promise<ClickRecord[]> {
    let step = performance.now();
    const records = this.buffer.take(MAX_BATCH);
    for (const record of records) classifyClick(record);
    try {
      for (let i = 0; i < records.length; i += SLICE) {
        if (i > 0) {
          await nextTurn();
          step = performance.now();
        }
        this.sink.add(records.slice(i, i + SLICE).map(toWire));
        this.stats.longestStepMs = Math.max(this.stats.longestStepMs, performance.now() - step);
      }
    } catch (err) {
      // Back in front of the buffer; writeAll puts the batch before it (if any) in front of these.
      this.buffer.requeue(records);
      throw err;
    }
    return records;
  }

  /**
   * Writes batch after batch until the buffer is empty. The next batch is handed over while the
   * writer commits the current one (measured: the writer Worker otherwise sat idle for about a
   * quarter of the time at saturation); it is committed only once the current one is, so clicks
   * are written in order, and when a commit fails both go back to the front of the buffer.
   */
  private async writeAll(): Promise<boolean> {
    this.reportDrops();
    // First, so a click written by this flush is stored after its link's imported clicks counted.
    await this.learnImported();
    let current: ClickRecord[] | null = null;
    let next: ClickRecord[] | null = null;
    let visits: FallbackVisits[] = [];
    try {
      current = this.buffer.length > 0 ? await this.handOver() : null;
      while (current !== null) {
        const committedAt = performance.now();
        const committing = this.sink.commit();
        // Awaited below; without this a rejection during the hand-over would count as unhandled.
        committing.catch(() => {});
        // A hand-over that fails has put its clicks back already; the commit still counts.
        let handOverError: unknown = null;
        next = null;
        if (this.buffer.length > 0) {
          next = await this.handOver().catch((err: unknown) => {
            handOverError = err;
            return null;
          });
        }
        const outcome = await committing;
        this.onBatch?.(outcome, performance.now() - committedAt);
        if ((outcome.events ?? 0) > 0) this.onEvents?.();
        current = null;
        this.stats.written += outcome.written;
        this.stats.skipped += outcome.skipped;
        this.stats.batches++;
        this.stats.longestBatchMs = Math.max(this.stats.longestBatchMs, outcome.ms);
        if (handOverError !== null) throw handOverError;
        if (this.failing)
          this.log.info(`click flush recovered; ${this.buffer.length + (next?.length ?? 0)} clicks still buffered`);
        this.failing = false;
        current = next;
        next = null;
      }
      // The visits sent to fallback URLs until now, in a transaction of their own.
      visits = this.buffer.fallbacks.take();
      if (visits.length > 0) await this.sink.addFallbackVisits(visits);
      visits = [];
    } catch (err) {
      // The slices handed over behind a failed commit must not be committed with the retry.
      this.sink.discard();
      this.buffer.requeue((current ?? []).concat(next ?? []));
      this.buffer.fallbacks.restore(visits);
      if (!this.failing)
        this.log.error(`click flush failed; ${this.buffer.length} clicks kept in memory and retried`, err);
      this.failing = true;
      this.failure = err;
      return false;
    }
    // The drain is done: fold it, so that once flush() resolves counts include its clicks.
    try {
      await this.sink.fold();
    } catch (err) {
      if (!this.foldFailing) this.log.error('click fold failed; the written clicks are counted at the next flush', err);
      this.foldFailing = true;
      return false;
    }
    if (this.foldFailing) this.log.info('click fold recovered');
    this.foldFailing = false;
    return true;
  }

  /**
   * Has the writer take the imported history queued so far (sqlite/imports.ts) and fold it;
   * resolves with the clicks taken, once counted.
   */
  takeImports(): Promise<number> {
    return this.sink.takeImports?.() ?? Promise.resolve(0);
  }

  /**
   * Writes everything buffered now. Flushes never overlap: a call made while one runs waits for
   * it, then writes what arrived since. Resolves false when a write or the fold failed (clicks kept).
   */
  flush(): Promise<boolean> {
    const previous = this.running ?? Promise.resolve(true);
    const run = previous.then(() => this.writeAll());
    const tracked = run.finally(() => {
      if (this.running === tracked) this.running = null;
    });
    this.running = tracked;
    return tracked;
  }

  /**
   * Stops the timer and writes what is left, trying again every `retryMs` while writes fail,
   * until `deadlineMs` from now; then closes the sink. Resolves false when a write or the fold
   * still failed at the deadline (what was not written stays in the buffer: see takeAll()).
   */
  async stop(deadlineMs = 0, retryMs = 500): Promise<boolean> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.buffer.onHighWater = null;
    const deadline = performance.now() + deadlineMs;
    let flushed = await this.flush();
    while (!flushed && performance.now() < deadline) {
      await Bun.sleep(Math.min(retryMs, Math.max(0, deadline - performance.now())));
      flushed = await this.flush();
    }
    const uncounted = this.buffer.fallbacks.size;
    // Only a count: unlike clicks they have no place in the spill file.
    if (uncounted > 0)
      this.log.error(`final click flush failed: ${uncounted} visits sent to fallback URLs not counted`);
    await this.sink.close();
    return flushed;
  }

  /** Empties the buffer into wire records (classified), for a stop that could not write them. */
  takeAll(): WireClick[] {
    return this.buffer.take(this.buffer.length).map(toWire);
  }
}
