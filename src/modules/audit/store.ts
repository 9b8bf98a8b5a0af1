/**
 * What the audit module keeps, in its own words; one implementation per engine beside it. The
 * writes are not here: each change's own store writes its entry in its transaction (write.ts).
 */
import type { AuditRow } from './table';

/** The filters of a page of the log; every one given must match. */
export interface AuditFilter {
  accountId?: string;
  action?: string;
  targetType?: string;
  targetId?: string;
  /** First instant (epoch ms, inclusive). */
  from?: number;
  /** Last instant (epoch ms, inclusive). */
  to?: number;
}

export interface AuditStore {
  /**
   * Up to `limit` entries, newest first (by id: the order they were written in), with an id
   * below `beforeId` when given. Each filter has its index (table.ts) walked in id order.
   */
  page(filter: AuditFilter, limit: number, beforeId: number | null): Promise<AuditRow[]>;
  /**
   * Deletes up to `rows` entries older than `cutoff` (the oldest first) in one short statement;
   * how many. Several nodes may run it at once: each deletes rows the others skip.
   */
  pruneStep(cutoff: number, rows: number): Promise<number>;
}
