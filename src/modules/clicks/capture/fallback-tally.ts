/**
 * Human visits answered with a link's fallback URL (an expired link, or one past its click
 * limit), counted in memory by the redirect, per link, and added to the link's counters by the
 * flusher through the click writer with every flush: never a database write on the request.
 * They are not clicks: nothing else of the visit is kept.
 */
import type { FallbackVisits } from '../../links/public';

export type { FallbackVisits };

export class FallbackTally {
  private counts = new Map<string, number>();

  /** One more visit of link `id` sent to its fallback. */
  add(id: string): void {
    this.counts.set(id, (this.counts.get(id) ?? 0) + 1);
  }

  /** Visits not yet handed to the writer. */
  get size(): number {
    let n = 0;
    for (const v of this.counts.values()) n += v;
    return n;
  }

  /** Everything counted so far, forgotten here (the flusher gives it back if the write fails). */
  take(): FallbackVisits[] {
    if (this.counts.size === 0) return [];
    const taken = [...this.counts];
    this.counts = new Map();
    return taken;
  }

  /** Visits taken for a write that failed: added to what was counted since. */
  restore(visits: readonly FallbackVisits[]): void {
    for (const [id, n] of visits) this.counts.set(id, (this.counts.get(id) ?? 0) + n);
  }
}
