/**
 * Which (link, visitor) pairs the writer has seen today and yesterday, in memory: the first
 * human click of a pair in a UTC day is a unique. A pair is one 64-bit key (the visitor hash,
 * 64 bits already, xor a 64-bit hash of the link id) in a U64Set per day. Writing a row per
 * first visit cost a random B-tree insert per click; this costs a probe.
 *
 * A batch's new pairs wait in their own set until its transaction commits, so a batch that
 * rolls back (and is written again) finds its visitors still unseen. At writer open the sets
 * are filled again from the raw clicks flagged first-of-day (read-clicks.ts).
 */
import { U64Set } from './u64-set';

interface NewPair {
  day: number;
  hi: number;
  lo: number;
}

export class SeenVisitors {
  private readonly days = new Map<number, U64Set>();
  private readonly batch = new U64Set();
  private added: NewPair[] = [];

  /** The key halves of a (link, 16-hex visitor hash) pair. */
  private static key(linkId: string, visitor: string): [number, number] {
    const hi = Number.parseInt(visitor.slice(0, 8), 16) ^ Bun.hash.xxHash32(linkId, 0x5f3759df);
    const lo = Number.parseInt(visitor.slice(8, 16), 16) ^ Bun.hash.xxHash32(linkId, 0x2545f491);
    return [hi | 0, lo | 0];
  }

  private day(day: number): U64Set {
    let set = this.days.get(day);
    if (set === undefined) {
      set = new U64Set();
      this.days.set(day, set);
    }
    return set;
  }

  /** Whether this is the pair's first visit of `day` (counting the batch being written). */
  firstVisit(day: number, linkId: string, visitor: string): boolean {
    const [hi, lo] = SeenVisitors.key(linkId, visitor);
    if (this.days.get(day)?.has(hi, lo)) return false;
    // Salts differ per day, so a pair's key is already a different key on another day.
    if (!this.batch.add(hi, lo)) return false;
    this.added.push({ day, hi, lo });
    return true;
  }

  /** The batch committed: its first visits are seen. */
  commit(): void {
    for (const p of this.added) this.day(p.day).add(p.hi, p.lo);
    this.rollback();
  }

  /** The batch rolled back: its first visits were never stored. */
  rollback(): void {
    this.batch.clear();
    this.added = [];
  }

  /** A stored first visit (writer open). */
  remember(day: number, linkId: string, visitor: string): void {
    const [hi, lo] = SeenVisitors.key(linkId, visitor);
    this.day(day).add(hi, lo);
  }

  /** Forgets the days before `day` (their salts are gone: their visitors can never come back). */
  forgetBefore(day: number): void {
    for (const d of this.days.keys()) if (d < day) this.days.delete(d);
  }

  /** Pairs held, over every day (for tests and measurements). */
  get size(): number {
    let n = 0;
    for (const set of this.days.values()) n += set.size;
    return n;
  }
}
