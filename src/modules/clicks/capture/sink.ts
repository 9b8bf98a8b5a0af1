/**
 * Where the flusher sends classified clicks. `InlineSink` writes on the caller's thread (tests,
 * and anything that wants determinism); `WorkerSink` hands batches to the writer Worker, which
 * enriches and writes them on its own connection and core, so the event loop that serves
 * redirects only pays for copying the batch (in slices, yielding between them).
 */
import { workerEntry } from '../../../lib/worker-entry';
import { WorkerClient } from '../../../lib/worker-rpc';
import type { ClickWriter, ImportedCount, WriteOutcome } from '../store';
import type { FallbackVisits } from './fallback-tally';
import type { WireClick } from './record';
import { encodeSlice } from './wire';
import type { WriterHandlers, WriterOpenOptions } from './writer-worker';

export interface ClickSink {
  /** Adds a slice of clicks to the batch being built. */
  add(slice: WireClick[]): void;
  /** Writes the batch built so far in one transaction; rejects when nothing of it was written. */
  commit(): Promise<WriteOutcome>;
  /** Forgets what was added since the last commit (the flusher takes those clicks back). */
  discard(): void;
  /** Writes visits answered with a fallback URL (fallback-tally.ts); rejects when nothing was written. */
  addFallbackVisits(visits: readonly FallbackVisits[]): Promise<void>;
  /**
   * Folds what the committed batches add to rollups and counters into them (store.ts): once it
   * resolves, counts and statistics include every committed click. Rejects when the fold failed
   * (the sums are kept for the next one).
   */
  fold(): Promise<void>;
  /**
   * Takes the imported history queued so far (SQLite: sqlite/imports.ts) and folds it; resolves
   * with the clicks taken once they are counted. 0 at once where there is no queue.
   */
  takeImports?(): Promise<number>;
  /**
   * The imported human clicks the writer counted since the last call (store.ts ImportedCount),
   * whoever asked it to take them (its own timer takes what `slink import` queues beside it);
   * none where there is no queue.
   */
  importedCounts?(): Promise<ImportedCount[]>;
  /** Folds what is pending, then closes. */
  close(): Promise<void>;
  /** Why this sink cannot take clicks yet (HeldSink), for /healthz; absent or null when it can. */
  readonly unavailable?: unknown;
}

/** Why a writer is held: read at every commit, so the latest failure is the one reported. */
export interface HoldReason {
  readonly failure: unknown;
}

/**
 * The click writer of a start that could not do its own writes yet (a full disk: server.ts):
 * until `release` gives it the real sink, a commit fails with the hold's failure, so the flusher
 * keeps the clicks in the buffer and retries them, and /healthz says why (`unavailable`).
 */
export class HeldSink implements ClickSink {
  private sink: ClickSink | null = null;
  private closed = false;

  constructor(private readonly hold: HoldReason) {}

  get unavailable(): unknown {
    return this.sink === null ? this.hold.failure : null;
  }

  /** From now on clicks go to the sink `open` makes; false (nothing made) when closed or released already. */
  release(open: () => ClickSink): boolean {
    if (this.closed || this.sink !== null) return false;
    this.sink = open();
    return true;
  }

  add(slice: WireClick[]): void {
    this.sink?.add(slice);
  }

  commit(): Promise<WriteOutcome> {
    return this.sink === null ? Promise.reject(this.hold.failure) : this.sink.commit();
  }

  discard(): void {
    this.sink?.discard();
  }

  addFallbackVisits(visits: readonly FallbackVisits[]): Promise<void> {
    return this.sink === null ? Promise.reject(this.hold.failure) : this.sink.addFallbackVisits(visits);
  }

  fold(): Promise<void> {
    return this.sink === null ? Promise.resolve() : this.sink.fold();
  }

  /** Held: the queue waits for the writer (it takes it once it opens). */
  takeImports(): Promise<number> {
    return this.sink?.takeImports?.() ?? Promise.resolve(0);
  }

  importedCounts(): Promise<ImportedCount[]> {
    return this.sink?.importedCounts?.() ?? Promise.resolve([]);
  }

  close(): Promise<void> {
    this.closed = true;
    return this.sink === null ? Promise.resolve() : this.sink.close();
  }
}

export class InlineSink implements ClickSink {
  private batch: WireClick[] = [];
  constructor(private readonly store: ClickWriter) {}

  add(slice: WireClick[]): void {
    for (const click of slice) this.batch.push(click);
  }

  async commit(): Promise<WriteOutcome> {
    const batch = this.batch;
    this.batch = [];
    return this.store.writeBatch(batch);
  }

  discard(): void {
    this.batch = [];
  }

  async addFallbackVisits(visits: readonly FallbackVisits[]): Promise<void> {
    await this.store.addFallbackVisits(visits);
  }

  async fold(): Promise<void> {
    await this.store.fold();
  }

  async takeImports(): Promise<number> {
    let total = 0;
    for (;;) {
      const n = this.store.takeImports?.() ?? 0;
      if (n === 0) return total;
      total += n;
      await this.store.fold();
    }
  }

  async importedCounts(): Promise<ImportedCount[]> {
    return this.store.importedCounts?.() ?? [];
  }

  async close(): Promise<void> {
    await this.store.fold();
    await this.store.close?.();
  }
}

export class WorkerSink implements ClickSink {
  private readonly writer: WorkerClient<WriterHandlers>;
  private closed: Promise<void> | null = null;
  /** Resolves with the geo source once the Worker has opened the database. */
  readonly ready: Promise<string>;

  constructor(options: WriterOpenOptions) {
    const worker = new Worker(workerEntry('modules/clicks/capture/writer-worker.ts'), { smol: true });
    this.writer = new WorkerClient<WriterHandlers>(worker, 'click writer');
    this.ready = this.writer.call('open', options);
  }

  add(slice: WireClick[]): void {
    // Columns in a buffer moved to the Worker and the distinct strings once (wire.ts), not JSON.
    const { slice: wire, transfer } = encodeSlice(slice);
    this.writer.post('add', wire, transfer);
  }

  discard(): void {
    this.writer.post('discard');
  }

  addFallbackVisits(visits: readonly FallbackVisits[]): Promise<void> {
    const added = this.writer.call('addFallbackVisits', visits as FallbackVisits[]);
    return Promise.all([this.ready, added]).then(() => {});
  }

  commit(): Promise<WriteOutcome> {
    // Posted at once, so slices added after this call (the flusher hands over the next batch
    // while this one is written) can never join this batch, even before the writer is ready.
    const outcome = this.writer.call('commit');
    // A writer that could not open fails this with its reason rather than "not open"
    // (Promise.all also handles the answer's own rejection, which may come later).
    return Promise.all([this.ready, outcome]).then(([, written]) => written);
  }

  fold(): Promise<void> {
    const folded = this.writer.call('fold');
    return Promise.all([this.ready, folded]).then(() => {});
  }

  takeImports(): Promise<number> {
    const taken = this.writer.call('takeImports');
    return Promise.all([this.ready, taken]).then(([, n]) => n);
  }

  importedCounts(): Promise<ImportedCount[]> {
    const counts = this.writer.call('importedCounts');
    return Promise.all([this.ready, counts]).then(([, list]) => list);
  }

  /** Lets the writer fold, checkpoint and close its connection (at most 5 s), then ends the Worker. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      let timer: Timer | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, 5000);
      });
      await Promise.race([this.writer.call('close').catch(() => {}), timeout]);
      clearTimeout(timer);
      this.writer.close(new Error('the click writer is closed'));
    })();
    return this.closed;
  }
}
