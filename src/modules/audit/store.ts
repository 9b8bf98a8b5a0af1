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

/** An entry as either engine hands its row back (PostgreSQL's int8 columns arrive as text). */
export interface StoredEntry {
  id: number | string;
  at: number | string;
  account_id: string | null;
  key_id: string | null;
  via: AuditRow['via'];
  action: string;
  target_type: string;
  target_id: string;
  fields: string;
}

/** The one conversion of a stored entry, for both engines. */
export function auditRowOf(r: StoredEntry): AuditRow {
  return {
    id: Number(r.id),
    at: Number(r.at),
    accountId: r.account_id,
    keyId: r.key_id,
    via: r.via,
    action: r.action,
    targetType: r.target_type,
    targetId: r.target_id,
    fields: JSON.parse(r.fields),
  };
}
