/**
 * Keeps the audit log to its last AUDIT_KEPT_DAYS days, off the request path, at the rhythm of
 * raw clicks' retention (clicks/retention.ts): a small step (at most AUDIT_PRUNE_ROWS rows, one
 * short statement) on each tick while there is more to delete, then a pause of
 * RETENTION_IDLE_MS once a step finds less than a full step. Several nodes may step at once:
 * each deletes rows the others skip (the store's pruneStep), so no lock is needed.
 */

import type { Clock } from '../../lib/clock';
import { describeError } from '../../lib/errors';
import type { Logger } from '../../lib/log';
import { DAY_MS } from '../../lib/time';
import { AUDIT_KEPT_DAYS } from './model';
import type { AuditStore } from './store';

/** Rows deleted per step at most: a step stays a short statement. */
export const AUDIT_PRUNE_ROWS = 5000;
/** After a step that found less than a full step, the next waits this long (as raw clicks' retention). */
export const AUDIT_PRUNE_IDLE_MS = 60_000;
/** How often a tick looks whether a step is due. */
const TICK_MS = 1000;

export class AuditPruner {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<number> | null = null;
  private nextAt = 0;
  /** Entries deleted so far. */
  pruned = 0;

  constructor(
    private readonly store: Pick<AuditStore, 'pruneStep'>,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => {
      if (!this.running && this.clock.now() >= this.nextAt) void this.step();
    }, TICK_MS);
    this.timer.unref?.();
  }

  /** One step now: deletes up to AUDIT_PRUNE_ROWS entries older than AUDIT_KEPT_DAYS; how many. */
  step(): Promise<number> {
    this.running ??= (async () => {
      const now = this.clock.now();
      try {
        const n = await this.store.pruneStep(now - AUDIT_KEPT_DAYS * DAY_MS, AUDIT_PRUNE_ROWS);
        this.pruned += n;
        if (n < AUDIT_PRUNE_ROWS) this.nextAt = now + AUDIT_PRUNE_IDLE_MS;
        return n;
      } catch (err) {
        this.log.error(`pruning the audit log failed (${describeError(err)}); tried again later`);
        this.nextAt = now + AUDIT_PRUNE_IDLE_MS;
        return 0;
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Stops the ticks and waits for a step under way (before the database closes). */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
