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

/**
 * The SHA-256 of the first-run setup tokens the nodes logged (setup.ts): any node accepts any of
 * them (PostgreSQL). With one process (SQLite) its token in memory is the only one: nothing is stored.
 */
export interface SetupTokenStore {
  add(tokenHash: string, createdAt: number): Promise<void>;
  has(tokenHash: string): Promise<boolean>;
  delete(tokenHash: string): Promise<void>;
  /** Setup is done: no token works any more. */
  deleteAll(): Promise<void>;
}

/** What sign-in failures are counted by (`email:...`, `address:...`) and how many its window allows. */
export interface FailureKey {
  key: string;
  limit: number;
}

/** A key's current window: when it started, and the failures counted in it. */
export interface FailureWindow {
  start: number;
  failures: number;
}

/**
 * Sign-in failures counted where every node sees them (throttle.ts; PostgreSQL). A window starts
 * at its first failure and ends `windowMs` later.
 */
export interface SignInFailureStore {
  /**
   * Counts an attempt as one failure of every key, unless one of them is at its limit (then none):
   * one decision for all the keys at once, across nodes. Answers each key's window, in order of
   * `keys`, this attempt included when counted.
   */
  count(
    keys: readonly FailureKey[],
    now: number,
    windowMs: number,
  ): Promise<{ counted: boolean; windows: FailureWindow[] }>;
  /** Takes one failure back from `key`'s window that started at `start` (if it is still that window). */
  takeBack(key: string, start: number): Promise<void>;
  /** Forgets every failure of `key`. */
  forget(key: string): Promise<void>;
  /** Deletes the windows that ended by `now`. */
  prune(now: number, windowMs: number): Promise<void>;
}
