/**
 * Runs exports in one Worker thread (export-worker.ts), started at the first export and shared
 * by all: each export is a cursor there, asked for one chunk at a time, one chunk ahead of what
 * the client has taken. The event loop only passes chunks on. (Like the click writer, it needs
 * the database to be a file: a second connection cannot see an in-memory one.)
 */
import type { Database } from 'bun:sqlite';
import type { Logger } from '../../deps';
import { workerEntry } from '../../lib/worker-entry';
import type { ExportSpec } from './export-cursor';

/** What the main thread tells the export Worker. */
export type ExportRequest =
  | { type: 'open'; dbPath: string }
  | { type: 'start'; id: number; spec: ExportSpec }
  | { type: 'next'; id: number }
  | { type: 'end'; id: number };

/** What the export Worker answers to `next`: a chunk (`length` bytes of `buffer`), null at the end, or why it failed. */
export type ExportReply =
  | { type: 'chunk'; id: number; buffer: ArrayBuffer | null; length: number }
  | { type: 'failed'; id: number; message: string };

/** One running export: chunks in order, then null. */
export interface ExportChunks {
  next(): Promise<Uint8Array | null>;
  /** The client went away: stop reading. */
  cancel(): void;
}

interface Waiter {
  resolve(chunk: Uint8Array | null): void;
  reject(error: Error): void;
}

export class ExportHost {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, Waiter>();
  /** Exports started and not yet finished, failed or cancelled. */
  private readonly open = new Set<number>();

  constructor(
    private readonly sqlite: Database,
    private readonly log: Logger,
  ) {}

  /** How many exports are running (for the tests and diagnostics). */
  get running(): number {
    return this.open.size;
  }

  start(spec: ExportSpec): ExportChunks {
    const worker = this.started();
    const id = this.nextId++;
    this.open.add(id);
    worker.postMessage({ type: 'start', id, spec } satisfies ExportRequest);
    let ahead: Promise<Uint8Array | null> | null = this.request(worker, id);
    let ended = false;
    return {
      next: async () => {
        let chunk: Uint8Array | null;
        try {
          chunk = ahead === null ? null : await ahead;
        } catch (err) {
          ended = true;
          this.open.delete(id);
          throw err;
        }
        ahead = null;
        // Ask for the following chunk now: the Worker builds it while this one is sent.
        if (chunk !== null && !ended) ahead = this.request(worker, id);
        else {
          ended = true;
          this.open.delete(id);
        }
        return chunk;
      },
      cancel: () => {
        if (ended) return;
        ended = true;
        this.open.delete(id);
        // The pending answer, if any, is dropped unread; the Worker forgets the cursor.
        this.waiting.delete(id);
        ahead = null;
        worker.postMessage({ type: 'end', id } satisfies ExportRequest);
      },
    };
  }

  /** Stops the Worker; exports still running fail. */
  close(): void {
    this.fail(new Error('the server is stopping'));
  }

  private request(worker: Worker, id: number): Promise<Uint8Array | null> {
    const answer = new Promise<Uint8Array | null>((resolve, reject) => {
      // The Worker this export ran on has stopped (crashed, or the server is stopping): its
      // cursor is gone, and asking the new one would wait forever.
      if (worker !== this.worker) reject(new Error('the export worker stopped'));
      else this.waiting.set(id, { resolve, reject });
    });
    // A chunk asked for ahead may never be awaited (the client left, the server stopped):
    // its failure is then nobody's to handle, and must not surface as an unhandled rejection.
    answer.catch(() => {});
    if (worker === this.worker) worker.postMessage({ type: 'next', id } satisfies ExportRequest);
    return answer;
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(workerEntry('modules/analytics/export-worker.ts'));
    // Never what keeps the process alive: the server and the tests end it with close().
    worker.unref();
    worker.onmessage = (event: MessageEvent<ExportReply>) => {
      const reply = event.data;
      const waiter = this.waiting.get(reply.id);
      if (!waiter) return;
      this.waiting.delete(reply.id);
      if (reply.type === 'chunk')
        waiter.resolve(reply.buffer === null ? null : new Uint8Array(reply.buffer, 0, reply.length));
      else {
        this.log.error(`export ${reply.id} failed: ${reply.message}`);
        waiter.reject(new Error(reply.message));
      }
    };
    worker.onerror = (event) => {
      this.log.error('the export worker crashed', event.message);
      this.fail(new Error(`the export worker crashed: ${event.message}`));
    };
    worker.postMessage({ type: 'open', dbPath: this.sqlite.filename } satisfies ExportRequest);
    this.worker = worker;
    return worker;
  }

  /** Ends the Worker (the next export starts a new one) and fails what waited on it. */
  private fail(error: Error): void {
    this.worker?.terminate();
    this.worker = null;
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
    this.open.clear();
  }
}
