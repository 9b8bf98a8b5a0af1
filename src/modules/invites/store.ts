/**
 * What the invites module keeps, in its own words. One implementation per engine beside it
 * (sqlite/, postgres/). Every change is written with its audit entry in one transaction.
 */

import type { AuditEntry } from '../audit/public';
import type { AccountRow } from '../auth/public';
import type { InviteRow } from './table';

export type { InviteRow };

export interface InviteStore {
  /**
   * Inserts the invite unless a pending one (not used, not revoked, expiring after `now`) has the
   * same email (ASCII case folded): false then, nothing written. Check and insert are one step
   * for every writer (SQLite's write lock, a PostgreSQL advisory lock).
   */
  insertUnlessPending(row: InviteRow, now: number, audit: AuditEntry): Promise<boolean>;
  find(id: string): Promise<InviteRow | null>;
  findByTokenHash(tokenHash: string): Promise<InviteRow | null>;
  /** A pending invite of this email, if any. */
  findPendingByEmail(email: string, now: number): Promise<InviteRow | null>;
  /** The pending invites, newest first. */
  listPending(now: number): Promise<InviteRow[]>;
  /** Revokes the invite if it is still pending at `now`; false when it was not. */
  revoke(id: string, now: number, audit: AuditEntry): Promise<boolean>;
  /**
   * Marks the invite used and inserts its account, with the audit entries, in one transaction,
   * if the invite is still pending at `now`: false when it is not (another tab used it first),
   * nothing written. Throws a unique violation when the email has an account meanwhile.
   */
  accept(id: string, account: AccountRow, now: number, audit: readonly AuditEntry[]): Promise<boolean>;
}
