/**
 * Every SLINK_FLUSH_MS, drains the buffer into SQLite without stalling the event loop: clicks
 * are enriched and written in chunks, each chunk one transaction, sized so that a chunk takes
 * about CHUNK_BUDGET_MS, with a macrotask yield between chunks so redirects keep flowing.
 * A failed write (locked or full disk) puts the chunk back and is retried on the next tick.
 */
import type { Clock } from '../../lib/clock';
import type { Logger } from '../../deps';
import type { ClickBuffer } from './buffer';
import { enrichClick, type EnrichContext } from './enrich';
import type { ClickWriter } from './repo';
import { utcDay, type VisitorHasher } from './visitor';

export const CHUNK_BUDGET_MS = 4;
const MIN_CHUNK = 32;
const MAX_CHUNK = 4096;

export interface FlushStats {
  written: number;
  skipped: number;
  chunks: number;
  /** Longest single chunk (enrich + transaction) in ms: the longest the event loop was held. */
  longestChunkMs: number;
}

export class ClickFlusher {
  private timer: ReturnType<typeof setInterval> | null = null;
  private draining: Promise<void> | null = null;
  private chunkSize = 256;
  private failing = false;
  private prunedThrough = -1;
  readonly stats: FlushStats = { written: 0, skipped: 0, chunks: 0, longestChunkMs: 0 };

  constructor(
    private readonly buffer: ClickBuffer,
    private readonly write: ClickWriter,
    private readonly ctx: EnrichContext & { hasher: VisitorHasher },
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  start(intervalMs: number): void {
    this.timer ??= setInterval(() => void this.drain(), intervalMs);
  }

  /** Writes one chunk; on failure the chunk goes back to the buffer and false is returned. */
  private writeChunk(): boolean {
    const chunk = this.buffer.take(this.chunkSize);
    if (chunk.length === 0) return true;
    const started = performance.now();
    try {
      const result = this.write(chunk.map((record) => enrichClick(record, this.ctx)));
      this.stats.written += result.written;
      this.stats.skipped += result.skipped;
    } catch (err) {
      this.buffer.requeue(chunk);
      if (!this.failing) this.log.error(`click flush failed; ${this.buffer.length} clicks kept in memory and retried`, err);
      this.failing = true;
      return false;
    }
    if (this.failing) this.log.info(`click flush recovered; ${this.buffer.length} clicks still buffered`);
    this.failing = false;
    const elapsed = performance.now() - started;
    this.stats.chunks++;
    this.stats.longestChunkMs = Math.max(this.stats.longestChunkMs, elapsed);
    // Aim the next chunk at the budget, moving at most 2x per step to stay stable.
    const scaled = this.chunkSize * Math.min(2, Math.max(0.5, CHUNK_BUDGET_MS / Math.max(elapsed, 0.05)));
    this.chunkSize = Math.round(Math.min(MAX_CHUNK, Math.max(MIN_CHUNK, scaled)));
    return true;
  }

  private reportDrops(): void {
    if (this.buffer.dropped === 0) return;
    this.log.error(`${this.buffer.dropped} clicks dropped: the click buffer was full (${this.buffer.capacity}) while writes failed`);
    this.buffer.dropped = 0;
  }

  /** Forgets finished days' salts and visitor rows, one bounded batch per flush. */
  private prune(): void {
    const keepFrom = utcDay(this.clock.now()) - 1;
    if (this.prunedThrough >= keepFrom) return;
    try {
      if (this.ctx.hasher.pruneBefore(keepFrom) === 0) this.prunedThrough = keepFrom;
    } catch (err) {
      this.log.error('pruning visitor days failed', err);
    }
  }

  /** Background drain: chunk, yield, repeat until empty or a write fails. */
  drain(): Promise<void> {
    return (this.draining ??= (async () => {
      try {
        this.reportDrops();
        while (this.buffer.length > 0 && this.writeChunk()) {
          await new Promise<void>((resolve) => setImmediate(resolve));
        }
        if (!this.failing) this.prune();
      } finally {
        this.draining = null;
      }
    })());
  }

  /**
   * Writes everything now, synchronously (tests, shutdown). Returns false when a write failed
   * and clicks remain buffered.
   */
  flushAll(): boolean {
    this.reportDrops();
    while (this.buffer.length > 0) if (!this.writeChunk()) return false;
    return true;
  }

  /** Stops the timer, lets a running drain finish, then writes what is left. */
  async stop(): Promise<boolean> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.draining;
    return this.flushAll();
  }
}

