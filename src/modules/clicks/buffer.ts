/**
 * The in-memory click buffer between the redirect and the flush. Pushing is O(1) and never
 * fails the redirect.
 *
 * Backpressure: past `highWater` clicks (the writer is behind: saturation), the redirect still
 * records its click but answers only once the flush has brought the buffer back under half the
 * mark, or at the latest MAX_WAIT_MS after the first of the waiting redirects. Clients that wait for their answer (browsers, load generators)
 * then send no faster than clicks are written, so memory stays bounded and no click is lost.
 * Past `capacity` (writes failing for long) new clicks are counted as dropped and the flush
 * logs the count (never silent).
 */
import { classifyClick } from './bot';
import type { ClickRecord } from './record';

/** ~200 k clicks is about 10 s at 20 k clicks/s, roughly 100 MB with long user agents. */
export const MAX_BUFFERED_CLICKS = 200_000;
/** Where backpressure starts: ~15 MB of clicks, about half a second at saturation. */
export const HIGH_WATER = 50_000;
/** A redirect waits at most this long for the writer (a failing disk must not stop redirects). */
export const MAX_WAIT_MS = 1000;

export class ClickBuffer {
  private queue: ClickRecord[] = [];
  private head = 0;
  /** Clicks refused because the buffer was full, since the last report. */
  dropped = 0;
  /** Called when the buffer reaches `highWater` (the flusher starts a flush at once). */
  onHighWater: (() => void) | null = null;
  /** The redirects waiting now share one promise and one timer (its clock starts with the first). */
  private wait: { promise: Promise<void>; wake: () => void } | null = null;

  constructor(
    readonly capacity = MAX_BUFFERED_CLICKS,
    readonly highWater = Math.min(HIGH_WATER, capacity),
  ) {}

  get length(): number {
    return this.queue.length - this.head;
  }

  /** True when a redirect should wait for `drained()` before answering. */
  get saturated(): boolean {
    return this.length >= this.highWater;
  }

  /** Resolves once the flush has taken the buffer under half the high-water mark, or within MAX_WAIT_MS. */
  drained(): Promise<void> {
    if (this.wait === null) {
      let wake!: () => void;
      const promise = new Promise<void>((resolve) => (wake = resolve));
      const timer = setTimeout(() => this.wakeAll(), MAX_WAIT_MS);
      this.wait = {
        promise,
        wake: () => {
          clearTimeout(timer);
          wake();
        },
      };
    }
    return this.wait.promise;
  }

  private wakeAll(): void {
    const wait = this.wait;
    this.wait = null;
    wait?.wake();
  }

  push(record: ClickRecord): void {
    if (this.length >= this.capacity) {
      this.dropped++;
      // An unsorted click that is dropped must leave its link's counters too.
      if (record.bot === null) record.target.counters.unsorted--;
      else if (!record.bot) record.target.counters.humanClicks--;
      return;
    }
    this.queue.push(record);
    if (this.length === this.highWater) this.onHighWater?.();
  }

  /** Removes and returns up to `count` of the oldest clicks. */
  take(count: number): ClickRecord[] {
    const end = Math.min(this.head + count, this.queue.length);
    const chunk = this.queue.slice(this.head, end);
    this.head = end;
    // Compact once the consumed prefix dominates, so memory follows the live length.
    if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    if (this.length * 2 < this.highWater) this.wakeAll();
    return chunk;
  }

  /** Puts a chunk whose write failed back in front, in order, to be retried. */
  requeue(chunk: ClickRecord[]): void {
    this.queue = chunk.concat(this.queue.slice(this.head));
    this.head = 0;
  }

  /**
   * Classifies every buffered click of one link now, so its counters are exact before a
   * decision that depends on them (a delete, a new click limit). O(buffer), API path only.
   */
  settleLink(linkId: string): void {
    for (let i = this.head; i < this.queue.length; i++) {
      const record = this.queue[i]!;
      if (record.bot === null && record.target.linkId === linkId) classifyClick(record);
    }
  }

  /** Forgets the buffered clicks of a deleted link (only bot hits can remain by then). */
  dropLink(linkId: string): void {
    const kept = this.queue.slice(this.head).filter((r) => r.target.linkId !== linkId);
    this.queue = kept;
    this.head = 0;
  }
}
