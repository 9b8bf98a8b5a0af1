/** What the auth module keeps, in its own words: accounts and API keys. One implementation per engine beside it. */
import type { AccountRow, ApiKeyRow } from './table';

export type { AccountRow, ApiKeyRow };

export interface AccountStore {
  /** Throws a unique violation (db/storage.ts) when the email is taken meanwhile. */
  insert(row: AccountRow): Promise<void>;
  /** Inserts the account only while no account exists (first-run setup): false when one does. */
  insertFirst(row: AccountRow): Promise<boolean>;
  any(): Promise<boolean>;
  /** Emails compare without regard to (ASCII) case. */
  findByEmail(email: string): Promise<AccountRow | null>;
  findById(id: string): Promise<AccountRow | null>;
  /** Every account, oldest first. */
  list(): Promise<AccountRow[]>;
  setLastSignIn(id: string, at: number): Promise<void>;
  /** Sets a new password hash and ends the account's sessions, in one transaction. */
  setPassword(id: string, passwordHash: string): Promise<void>;
  /** Enables (null), or disables at `at`: its sessions end and its live keys are revoked at `at`, in one transaction. */
  setDisabled(id: string, at: number | null): Promise<void>;
}

export interface KeyWithAccount {
  key: ApiKeyRow;
  account: AccountRow;
}

export interface KeyStore {
  prefixTaken(prefix: string): Promise<boolean>;
  insert(row: ApiKeyRow): Promise<void>;
  find(id: string): Promise<ApiKeyRow | null>;
  revoke(id: string, at: number): Promise<void>;
  /** Keys with their account's email, newest first; of one account or of all. */
  list(accountId?: string): Promise<(ApiKeyRow & { email: string })[]>;
  /** The key of this prefix with its account: what a presented key is checked against. */
  findByPrefix(prefix: string): Promise<KeyWithAccount | null>;
  /** Records a use, unless the key was revoked meanwhile. */
  touch(id: string, at: number): Promise<void>;
}
