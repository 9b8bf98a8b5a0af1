/**
 * Where the flusher sends classified clicks. `InlineSink` writes on the caller's thread (tests,
 * and anything that wants determinism); `WorkerSink` hands batches to the writer Worker, which
 * enriches and writes them on its own connection and core, so the event loop that serves
 * redirects only pays for copying the batch (in slices, yielding between them).
 */
import { workerEntry } from '../../lib/worker-entry';
import { WorkerClient } from '../../lib/worker-rpc';
import type { WireClick } from './record';
import type { ClickStore, WriteOutcome } from './store';
import type { WriterHandlers } from './writer-worker';

export interface ClickSink {
  /** Adds a slice of clicks to the batch being built. */
  add(slice: WireClick[]): void;
  /** Writes the batch built so far in one transaction; rejects when nothing of it was written. */
  commit(): Promise<WriteOutcome>;
  /** Forgets what was added since the last commit (the flusher takes those clicks back). */
  discard(): void;
  /**
   * Folds what the committed batches add to rollups and counters into them (store.ts): once it
   * resolves, counts and statistics include every committed click. Rejects when the fold failed
   * (the sums are kept for the next one).
   */
  fold(): Promise<void>;
  /** Folds what is pending, then closes. */
  close(): Promise<void>;
}

export class InlineSink implements ClickSink {
  private batch: WireClick[] = [];
  constructor(private readonly store: ClickStore) {}

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

  async fold(): Promise<void> {
    this.store.fold();
  }

  async close(): Promise<void> {
    this.store.fold();
  }
}

export class WorkerSink implements ClickSink {
  private readonly writer: WorkerClient<WriterHandlers>;
  private closed: Promise<void> | null = null;
  /** Resolves with the geo source once the Worker has opened the database. */
  readonly ready: Promise<string>;

  constructor(options: { dbPath: string; geoDb: string | null; ownHosts: string[]; retentionDays?: number }) {
    const worker = new Worker(workerEntry('modules/clicks/writer-worker.ts'), { smol: true });
    this.writer = new WorkerClient<WriterHandlers>(worker, 'click writer');
    this.ready = this.writer.call('open', options);
  }

  add(slice: WireClick[]): void {
    this.writer.post('add', JSON.stringify(slice));
  }

  discard(): void {
    this.writer.post('discard');
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
