/**
 * The in-memory click buffer between the redirect and the flush. Pushing is O(1) and never
 * fails the redirect.
 *
 * Backpressure: past `highWater` clicks (the writer is behind: saturation), the redirect still
 * records its click but its answer waits in a queue, and waiting answers are let go in arrival
 * order at the pace the writer takes clicks out of the buffer (measured on every take), plus
 * however many the buffer has room for under the mark. Clients that wait for their answer
 * (browsers, load generators) then send about as fast as clicks are written: the buffer stays
 * near the mark and, by Little's law, an answer waits about (waiting clients) / (write rate),
 * not the time the writer needs to empty the buffer. Above the mark the pace slows in
 * proportion, down to none at twice the mark (the writer is stalled, not just slow); any
 * answer is let go MAX_WAIT_MS after it started waiting, so a failing disk never stops
 * redirects. Past `capacity` (writes failing for long) new clicks are counted as dropped and
 * the flush logs the count (never silent).
 */
import { FallbackTally } from './fallback-tally';
import { classifyClick, uncount } from './live-counts';
import type { ClickRecord } from './record';

/** ~200 k clicks is about 10 s at 20 k clicks/s, roughly 100 MB with long user agents. */
const MAX_BUFFERED_CLICKS = 200_000;
/** Where backpressure starts: ~6 MB of clicks, one to two seconds of writing at saturation. */
export const HIGH_WATER = 20_000;
/** A redirect waits at most this long for the writer (a failing disk must not stop redirects). */
export const MAX_WAIT_MS = 1000;
/** How often waiting answers are let go: fine enough that pacing adds ~1 ms at most. */
const PACE_TICK_MS = 1;
/** Unused pace is not saved up beyond this, so a stalled writer does not earn a burst. */
const MAX_ALLOWANCE_MS = 20;

interface Waiter {
  release: () => void;
  since: number;
}

export class ClickBuffer {
  /** Visits answered with a fallback URL: no click, a count per link, written with each flush. */
  readonly fallbacks = new FallbackTally();
  private queue: ClickRecord[] = [];
  private head = 0;
  /** Clicks refused because the buffer was full, since the last report. */
  dropped = 0;
  /** Clicks refused because the buffer was full, since the start (for /metrics). */
  droppedTotal = 0;
  /** Called when the buffer reaches `highWater` (the flusher starts a flush at once). */
  onHighWater: (() => void) | null = null;
  /** Answers waiting at saturation, oldest first. */
  private waiters: Waiter[] = [];
  private waitHead = 0;
  private pacer: ReturnType<typeof setInterval> | null = null;
  /** Clicks taken out per ms, a moving average over recent takes: the pace waiting answers go at. */
  private drainPerMs = 0;
  private lastTakeAt = Number.NEGATIVE_INFINITY;
  private lastTickAt = 0;
  private allowance = 0;
  /** Answers let go since the last take (see pace()). */
  private releasedSinceTake = 0;

  constructor(
    readonly capacity = MAX_BUFFERED_CLICKS,
    readonly highWater = Math.min(HIGH_WATER, capacity),
  ) {}

  get length(): number {
    return this.queue.length - this.head;
  }

  /** When the oldest click still buffered was made (epoch ms), or null when none is. */
  get oldestTime(): number | null {
    return this.head < this.queue.length ? this.queue[this.head]!.time : null;
  }

  /** Answers waiting now. */
  get waiting(): number {
    return this.waiters.length - this.waitHead;
  }

  /**
   * True when a redirect should wait for `drained()` before answering: the buffer is at the
   * mark, or others are already waiting (a newcomer must not overtake them).
   */
  get saturated(): boolean {
    return this.length >= this.highWater || this.waiting > 0;
  }

  /** Resolves when this answer's turn comes (see the class comment), within MAX_WAIT_MS. */
  drained(): Promise<void> {
    return new Promise<void>((release) => {
      this.waiters.push({ release, since: performance.now() });
      if (this.pacer === null) {
        this.lastTickAt = performance.now();
        this.pacer = setInterval(() => this.pace(), PACE_TICK_MS);
      }
    });
  }

  /** One pacer tick: lets go the answers whose turn has come. */
  private pace(): void {
    const now = performance.now();
    // Full pace at the mark, slowing to none at twice the mark: the buffer settles near the mark
    // instead of swinging between the mark and the hard stop (each swing a burst of long waits).
    const pressure = Math.min(1, Math.max(0, (2 * this.highWater - this.length) / this.highWater));
    this.allowance = Math.min(
      this.allowance + this.drainPerMs * pressure * (now - this.lastTickAt),
      Math.max(1, this.drainPerMs * MAX_ALLOWANCE_MS),
    );
    this.lastTickAt = now;
    // Each answer let go is a client about to send its next click: count it against the room.
    const room = this.highWater - this.length - this.releasedSinceTake;
    // Twice the mark: the writer is not keeping its measured pace (stalled): wait for it.
    let turns = this.length >= 2 * this.highWater ? Math.max(room, 0) : Math.max(Math.floor(this.allowance), room);
    this.allowance = Math.max(0, this.allowance - turns);
    while (this.waitHead < this.waiters.length) {
      const waiter = this.waiters[this.waitHead]!;
      if (turns <= 0 && now - waiter.since < MAX_WAIT_MS) break;
      turns--;
      this.releasedSinceTake++;
      this.waitHead++;
      waiter.release();
    }
    if (this.waitHead === this.waiters.length) {
      this.waiters = [];
      this.waitHead = 0;
      this.allowance = 0;
      clearInterval(this.pacer!);
      this.pacer = null;
    } else if (this.waitHead > 1024 && this.waitHead * 2 > this.waiters.length) {
      this.waiters = this.waiters.slice(this.waitHead);
      this.waitHead = 0;
    }
  }

  push(record: ClickRecord): void {
    if (this.length >= this.capacity) {
      this.dropped++;
      this.droppedTotal++;
      // A dropped click must leave its link's counters too.
      uncount(record);
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
    this.measureDrain(chunk.length);
    this.releasedSinceTake = 0;
    return chunk;
  }

  /** At saturation takes follow each other as fast as the writer goes: their rate is its pace. */
  private measureDrain(taken: number): void {
    const now = performance.now();
    const elapsed = now - this.lastTakeAt;
    this.lastTakeAt = now;
    // A take after a quiet spell says nothing about the writer's speed.
    if (taken === 0 || elapsed <= 0 || elapsed > 2 * MAX_WAIT_MS) return;
    const rate = taken / elapsed;
    this.drainPerMs = this.drainPerMs === 0 ? rate : 0.7 * this.drainPerMs + 0.3 * rate;
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
  settleLink(slot: number): void {
    for (let i = this.head; i < this.queue.length; i++) {
      const record = this.queue[i]!;
      if (record.bot === null && record.slot === slot) classifyClick(record);
    }
  }

  /**
   * Forgets the buffered clicks of a deleted link, by its slot in the slug index (only bot hits
   * can remain by then). Clicks put back by requeue() after this are classified already: a
   * reused slot's counters never see them.
   */
  dropLink(slot: number): void {
    const kept = this.queue.slice(this.head).filter((r) => r.slot !== slot);
    this.queue = kept;
    this.head = 0;
  }
}
