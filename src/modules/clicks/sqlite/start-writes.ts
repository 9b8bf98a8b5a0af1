/**
 * The server's own writes at start (clicks/catch-up.ts) and the click writer that waits on them.
 * They are tried once before the server listens. When they fail for want of space (or on a
 * read-only disk), the server starts anyway with its click writer held: redirects answer, their
 * clicks wait in the buffer, /healthz says degraded. They are tried again every SLINK_FLUSH_MS
 * once the file system has more room than at the last failure, and at least every
 * RETRY_ANYWAY_MS (a read-only disk frees nothing); once they are done the writer opens and
 * writes what waited, as a running server does once space returns (docs/operations.md, "Starting
 * with a full disk").
 */
import { freeBytes, storageFailure } from '../../../db/storage';
import type { Logger } from '../../../lib/log';

/** Tries again this often even when the free space did not grow (ms). */
export const RETRY_ANYWAY_MS = 60_000;

export class StartWrites {
  private timer: Timer | null = null;
  private freeAtFailure: number | null = null;
  private triedAt = 0;
  /** What stopped them the last time, null once they are done. */
  failure: unknown = null;

  constructor(
    private readonly run: () => void,
    private readonly dbPath: string,
    private readonly log: Logger,
  ) {}

  /** Runs them now: true when done, false when they failed for want of storage; any other failure is thrown. */
  attempt(): boolean {
    this.triedAt = performance.now();
    try {
      this.run();
    } catch (err) {
      const reason = storageFailure(err);
      if (reason === null) throw err;
      if (this.failure === null) {
        this.log.error(
          `the start cannot write the database (${reason}): redirects are answered and their clicks kept in memory until it can`,
          err,
        );
      }
      this.failure = err;
      this.freeAtFailure = freeBytes(this.dbPath);
      return false;
    }
    if (this.failure !== null) this.log.info('the database takes writes again: the click writer opens');
    this.failure = null;
    return true;
  }

  /** Tries again every `intervalMs` while they fail; calls `done` once they succeed. */
  retry(intervalMs: number, done: () => void): void {
    this.timer ??= setInterval(() => {
      if (!this.due()) return;
      let ok = false;
      try {
        ok = this.attempt();
      } catch (err) {
        // Not a storage failure (none was seen at start): logged, tried again a minute later.
        this.log.error('the start writes failed; tried again in a minute', err);
        this.freeAtFailure = Number.POSITIVE_INFINITY;
      }
      if (!ok) return;
      this.stop();
      done();
    }, intervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Whether to try now: the file system has more room than at the last failure, or a while has passed. */
  private due(): boolean {
    if (performance.now() - this.triedAt >= RETRY_ANYWAY_MS) return true;
    const free = freeBytes(this.dbPath);
    return free === null || this.freeAtFailure === null || free > this.freeAtFailure;
  }
}
