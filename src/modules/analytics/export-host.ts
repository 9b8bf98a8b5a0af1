/**
 * Runs exports in one Worker thread (export-worker.ts), on either engine, started at the first
 * export and shared by all: each export is a cursor there, asked for one chunk at a time, one
 * chunk ahead of what the client has taken. The event loop only passes chunks on. (Like the
 * click writer, on SQLite it needs the database to be a file: a second connection cannot see an
 * in-memory one.)
 */

import type { DatabaseAddress } from '../../db/address';
import type { Logger } from '../../lib/log';
import { workerEntry } from '../../lib/worker-entry';
import { WorkerClient } from '../../lib/worker-rpc';
import { type ExportChunks, ExportCutShort, type Exports } from './export-chunks';
import type { ClickLinesSpec } from './export-click-lines';
import type { ExportSpec } from './export-cursor';
import type { ExportHandlers } from './export-worker';

type ExportWorker = WorkerClient<ExportHandlers>;

export class ExportHost implements Exports {
  private worker: ExportWorker | null = null;
  private nextId = 1;
  /** Exports started and not yet finished, failed or cancelled. */
  private readonly open = new Set<number>();

  constructor(
    private readonly database: DatabaseAddress,
    private readonly log: Logger,
  ) {}

  /** How many exports are running (for the tests and diagnostics). */
  get running(): number {
    return this.open.size;
  }

  start(spec: ExportSpec | ClickLinesSpec): ExportChunks {
    // The Worker this export runs on, for all its chunks: once it has stopped (crashed, or the
    // server is stopping), its cursor is gone, and asking a new one would wait forever.
    const worker = this.started();
    const id = this.nextId++;
    this.open.add(id);
    worker.post('start', { id, spec });
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
        ahead = null;
        worker.post('end', id);
      },
    };
  }

  /** Stops the Worker; exports still running fail. */
  close(): void {
    this.stop(new Error('the server is stopping'));
  }

  private request(worker: ExportWorker, id: number): Promise<Uint8Array | null> {
    const answer = worker.call('next', id).then(
      (chunk) => {
        if (chunk === 'link deleted') {
          this.log.info(`export ${id} cut short: its link was deleted`);
          throw new ExportCutShort();
        }
        return chunk === null ? null : new Uint8Array(chunk.buffer, 0, chunk.length);
      },
      (err: Error) => {
        // Logged when the export failed in the Worker. Not when the Worker stopped (the server
        // stopping; a crash is logged once, below): stop() has let go of it by the time this runs.
        if (worker === this.worker) this.log.error(`export ${id} failed: ${err.message}`);
        throw err;
      },
    );
    // A chunk asked for ahead may never be awaited (the client left, the server stopped):
    // its failure is then nobody's to handle, and must not surface as an unhandled rejection.
    answer.catch(() => {});
    return answer;
  }

  private started(): ExportWorker {
    if (this.worker) return this.worker;
    const thread = new Worker(workerEntry('modules/analytics/export-worker.ts'));
    // Never what keeps the process alive: the server and the tests end it with close().
    thread.unref();
    const worker: ExportWorker = new WorkerClient<ExportHandlers>(thread, 'the export worker', (error) => {
      this.log.error(error.message);
      if (this.worker === worker) this.stop(error);
    });
    worker.post('open', this.database);
    this.worker = worker;
    return worker;
  }

  /** Ends the Worker (the next export starts a new one) and fails what waited on it. */
  private stop(error: Error): void {
    this.worker?.close(error);
    this.worker = null;
    this.open.clear();
  }
}
