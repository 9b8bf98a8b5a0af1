/**
 * A full collection when the JavaScript heap has grown well past what the last one left.
 *
 * The click writer allocates steadily (a fold builds and drops per-link maps for tens of
 * thousands of links) and is never idle at saturation, when JavaScriptCore would collect on its
 * own; its young-generation collections leave the promoted garbage alone, and the heap grew to
 * 600-700 MB over a live set of about 200 (measured with `bun run bench`). Asking after each fold
 * bounds it at `growth` times the live set, at the price of one full collection whenever that
 * much garbage has piled up (docs/performance.md).
 */
import { heapSize } from 'bun:jsc';

export class HeapGuard {
  private limit: number;
  /** Full collections made, and the ms they took. */
  readonly collections = { count: 0, ms: 0 };

  constructor(
    private readonly floorBytes = 64 * 1024 * 1024,
    private readonly growth = 1.5,
  ) {
    this.limit = floorBytes;
  }

  /** Collects when the heap is over the limit; true when it did. */
  check(): boolean {
    if (heapSize() <= this.limit) return false;
    const started = performance.now();
    Bun.gc(true);
    this.collections.count++;
    this.collections.ms += performance.now() - started;
    this.limit = Math.max(this.floorBytes, heapSize() * this.growth);
    return true;
  }
}
