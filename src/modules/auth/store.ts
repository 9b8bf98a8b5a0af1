/** What the auth module keeps, in its own words: accounts and API keys. One implementation per engine beside it. */
import type { AuditEntry } from '../audit/public';
import type { AccountRow, ApiKeyRow, Role } from './table';

export type { AccountRow, ApiKeyRow };

/** What an account update sets (absent: unchanged). */
export interface AccountChange {
  role?: Role;
  projects?: string[] | null;
  /** When it was disabled, or null to enable it. */
  disabledAt?: number | null;
}

/** What an update did: the account as it is then, or why nothing changed. */
export type AccountUpdate = { row: AccountRow } | 'missing' | 'last_admin';

export interface AccountStore {
  /** Throws a unique violation (db/storage.ts) when the email is taken meanwhile. The audit entry is written in the same transaction. */
  insert(row: AccountRow, audit?: AuditEntry): Promise<void>;
  /** Inserts the account only while no account exists (first-run setup): false when one does. */
  insertFirst(row: AccountRow): Promise<boolean>;
  any(): Promise<boolean>;
  /** Emails compare without regard to (ASCII) case. */
  findByEmail(email: string): Promise<AccountRow | null>;
  findById(id: string): Promise<AccountRow | null>;
  /** Every account, oldest first. */
  list(): Promise<AccountRow[]>;
  setLastSignIn(id: string, at: number): Promise<void>;
  /** Sets a new password hash and ends the account's sessions, in one transaction (with its audit entry). */
  setPassword(id: string, passwordHash: string, audit?: AuditEntry): Promise<void>;
  /** Enables (null), or disables at `at`: its sessions end and its live keys are revoked at `at`, in one transaction. */
  setDisabled(id: string, at: number | null): Promise<void>;
  /**
   * Changes role, projects and status in one transaction, serialised against every other update
   * (SQLite's single writer; a PostgreSQL advisory lock), that:
   * - refuses ('last_admin') to leave no active admin;
   * - disabling, ends the account's sessions and revokes its live keys (as setDisabled);
   * - narrows its keys to the new powers: a new viewer's write keys become read, and the keys'
   *   own project limits are intersected with the account's new ones;
   * - writes the audit entry.
   */
  update(id: string, change: AccountChange, audit: AuditEntry): Promise<AccountUpdate>;
}

export interface KeyWithAccount {
  key: ApiKeyRow;
  account: AccountRow;
}

export interface KeyStore {
  prefixTaken(prefix: string): Promise<boolean>;
  /** The audit entry is written in the same transaction. */
  insert(row: ApiKeyRow, audit?: AuditEntry): Promise<void>;
  find(id: string): Promise<ApiKeyRow | null>;
  revoke(id: string, at: number, audit?: AuditEntry): Promise<void>;
  /** Keys with their account's email, newest first; of one account or of all. */
  list(accountId?: string): Promise<(ApiKeyRow & { email: string })[]>;
  /** The key of this prefix with its account: what a presented key is checked against. */
  findByPrefix(prefix: string): Promise<KeyWithAccount | null>;
  /** Records a use, unless the key was revoked meanwhile. */
  touch(id: string, at: number): Promise<void>;
}
