/**
 * The in-memory click buffer between the redirect and the flush. Pushing is O(1) and never
 * fails the redirect; past the cap new clicks are counted as dropped and the flush logs the
 * count (never silent).
 */
import { classifyClick } from './bot';
import type { ClickRecord } from './record';

/** ~200 k clicks is about 10 s at 20 k clicks/s, roughly 100 MB with long user agents. */
export const MAX_BUFFERED_CLICKS = 200_000;

export class ClickBuffer {
  private queue: ClickRecord[] = [];
  private head = 0;
  /** Clicks refused because the buffer was full, since the last report. */
  dropped = 0;

  constructor(readonly capacity = MAX_BUFFERED_CLICKS) {}

  get length(): number {
    return this.queue.length - this.head;
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
