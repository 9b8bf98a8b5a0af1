/** What the sessions module keeps: dashboard sessions, found by the hash of their token, never by the token. */
import type { SessionRow } from './table';

export type { SessionRow };

export interface SessionStore {
  insert(row: SessionRow): Promise<void>;
  findByTokenHash(tokenHash: string): Promise<SessionRow | null>;
  touch(id: string, lastSeenAt: number): Promise<void>;
  /** The account's sessions, newest first. */
  listOfAccount(accountId: string): Promise<SessionRow[]>;
  /** Deletes one session of one account; false when the account has no such session. */
  deleteOfAccount(accountId: string, id: string): Promise<boolean>;
  delete(id: string): Promise<void>;
  /** Deletes every session of an account; returns how many. */
  deleteAllOfAccount(accountId: string): Promise<number>;
  /** Drops every session past its absolute expiry or idle since `idleBefore`. */
  deleteEnded(now: number, idleBefore: number): Promise<void>;
}
