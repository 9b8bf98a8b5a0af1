/**
 * SLINK_RETENTION_DAYS (docs/behaviour.md, "Retention"): which raw clicks are kept, whatever
 * the engine. Each engine's writer deletes the older ones a small step at a time
 * (sqlite/retention.ts, postgres/retention.ts); readers never return them, deleted yet or not.
 */
import { DAY_MS, utcDay } from '../../lib/time';

/** After a retention step found nothing to delete, the next one waits this long (a step scans the tail). */
export const RETENTION_IDLE_MS = 60_000;

/**
 * The oldest instant raw clicks are kept from (epoch ms), or null when retention is off
 * (`days` 0). Today's and yesterday's clicks are always kept: the writer rebuilds its seen
 * visitors of those days from them when it opens.
 */
export function retainedFrom(now: number, days: number): number | null {
  if (days <= 0) return null;
  return Math.min(now - days * DAY_MS, (utcDay(now) - 1) * DAY_MS);
}

/** Tail rows deleted per step at most: a step stays a short transaction. */
export const TAIL_PRUNE_ROWS = 5000;

/** What one step deleted: a segment (with how many clicks), tail rows, or nothing. */
export type PruneStep = { kind: 'segment'; clicks: number } | { kind: 'tail'; clicks: number } | { kind: 'none' };
