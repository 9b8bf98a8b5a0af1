/**
 * A full collection when the JavaScript heap has grown well past what the last one left.
 *
 * The click writer allocates steadily (each batch's clicks parsed, enriched and appended; a
 * fold's buckets encoded) and is never idle at saturation, when JavaScriptCore would collect on
 * its own; its young-generation collections leave the promoted garbage alone, and the heap grew
 * to 600-700 MB over a live set of about 200 when a fold still built a map per link (measured
 * with `bun run bench`). Asking after each fold bounds it at `growth` times the live set, at the
 * price of one full collection whenever that much garbage has piled up (docs/performance.md).
 * Memory the heap counts but no collection frees (`fixedBytes`: the writer's mapped geo files,
 * ~134 MB) is left out of the growth: 1.5x of it would allow ~65 MB more garbage, measured as
 * ~60 MB of peak RSS under load. The heap size JavaScriptCore reports is the one of its last
 * collection (the writer asks for a young one after every batch) plus what was allocated since,
 * so it lags a little; that is enough to bound growth.
 */
import { heapSize } from 'bun:jsc';

export interface HeapGuardOptions {
  floorBytes?: number;
  growth?: number;
  /** Bytes the heap's size includes that no collection frees (mapped files); not grown by `growth`. */
  fixedBytes?: number;
  /** The heap's size in bytes (tests pass their own). */
  size?: () => number;
  /** A full, synchronous collection (tests pass their own). */
  collect?: () => void;
}

export class HeapGuard {
  private limit: number;
  private readonly floorBytes: number;
  private readonly growth: number;
  private readonly fixedBytes: number;
  private readonly size: () => number;
  private readonly collect: () => void;
  /** Full collections made, and the ms they took. */
  readonly collections = { count: 0, ms: 0 };

  constructor(options: HeapGuardOptions = {}) {
    this.floorBytes = options.floorBytes ?? 64 * 1024 * 1024;
    this.growth = options.growth ?? 1.5;
    this.fixedBytes = options.fixedBytes ?? 0;
    this.size = options.size ?? heapSize;
    this.collect = options.collect ?? (() => Bun.gc(true));
    this.limit = this.floorBytes;
  }

  /** Collects when the heap is over the limit; true when it did. */
  check(): boolean {
    if (this.size() <= this.limit) return false;
    const started = performance.now();
    this.collect();
    this.collections.count++;
    this.collections.ms += performance.now() - started;
    const left = this.size();
    this.limit = Math.max(this.floorBytes, left + Math.max(0, left - this.fixedBytes) * (this.growth - 1));
    return true;
  }
}
