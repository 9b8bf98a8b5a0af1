/**
 * Where the flusher sends classified clicks. `InlineSink` writes on the caller's thread (tests,
 * and anything that wants determinism); `WorkerSink` hands batches to the writer Worker, which
 * enriches and writes them on its own connection and core, so the event loop that serves
 * redirects only pays for copying the batch (in slices, yielding between them).
 */
import { workerEntry } from '../../lib/worker-entry';
import type { WireClick } from './record';
import type { ClickStore, WriteOutcome } from './store';

export interface ClickSink {
  /** Adds a slice of clicks to the batch being built. */
  add(slice: WireClick[]): void;
  /** Writes the batch built so far in one transaction; rejects when nothing of it was written. */
  commit(): Promise<WriteOutcome>;
  /** Forgets what was added since the last commit (the flusher takes those clicks back). */
  discard(): void;
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

  async close(): Promise<void> {}
}

/** What the main thread tells the writer Worker. */
export type WriterRequest =
  | { type: 'open'; dbPath: string; geoDb: string | null; ownHosts: string[] }
  /** A slice as JSON text: cheaper for the event loop to copy than structured objects. */
  | { type: 'add'; json: string }
  | { type: 'commit'; id: number }
  | { type: 'discard' }
  | { type: 'close' };

/** What the writer Worker answers. */
export type WriterReply =
  | { type: 'ready'; geo: string }
  | { type: 'committed'; id: number; outcome: WriteOutcome }
  | { type: 'failed'; id: number; message: string }
  | { type: 'fatal'; message: string }
  | { type: 'closed' };

export class WorkerSink implements ClickSink {
  private readonly worker: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve(o: WriteOutcome): void; reject(e: Error): void }>();
  private closed: Promise<void> | null = null;
  private onClosed: (() => void) | null = null;
  /** Resolves with the geo source once the Worker has opened the database. */
  readonly ready: Promise<string>;

  constructor(options: { dbPath: string; geoDb: string | null; ownHosts: string[] }) {
    this.worker = new Worker(workerEntry('modules/clicks/writer-worker.ts'), { smol: true });
    let ready!: (geo: string) => void;
    let failed!: (e: Error) => void;
    this.ready = new Promise<string>((resolve, reject) => {
      ready = resolve;
      failed = reject;
    });
    this.worker.onmessage = (event: MessageEvent<WriterReply>) => {
      const reply = event.data;
      if (reply.type === 'ready') ready(reply.geo);
      else if (reply.type === 'fatal') this.failAll(new Error(reply.message), failed);
      else if (reply.type === 'closed') this.onClosed?.();
      else {
        const waiter = this.pending.get(reply.id);
        this.pending.delete(reply.id);
        if (reply.type === 'committed') waiter?.resolve(reply.outcome);
        else waiter?.reject(new Error(reply.message));
      }
    };
    this.worker.onerror = (event) => this.failAll(new Error(`click writer crashed: ${event.message}`), failed);
    this.post({ type: 'open', ...options });
  }

  private post(message: WriterRequest): void {
    this.worker.postMessage(message);
  }

  private failAll(error: Error, failReady: (e: Error) => void): void {
    failReady(error);
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }

  add(slice: WireClick[]): void {
    this.post({ type: 'add', json: JSON.stringify(slice) });
  }

  discard(): void {
    this.post({ type: 'discard' });
  }

  commit(): Promise<WriteOutcome> {
    // Posted at once, so slices added after this call (the flusher hands over the next batch
    // while this one is written) can never join this batch, even before the writer is ready.
    const id = this.nextId++;
    const outcome = new Promise<WriteOutcome>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.post({ type: 'commit', id });
    // A writer that could not open fails this with its reason rather than leaving it waiting
    // (Promise.all also handles the answer's own rejection, which may come later).
    return Promise.all([this.ready, outcome]).then(([, written]) => written);
  }

  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 5000);
      this.onClosed = () => {
        clearTimeout(timer);
        resolve();
      };
      this.post({ type: 'close' });
    }).then(() => this.worker.terminate());
    return this.closed;
  }
}
