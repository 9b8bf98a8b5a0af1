/**
 * Storage failures: the SQLite (and PostgreSQL) errors that mean the database cannot be written right now (a
 * full disk, a read-only file or file system, an I/O error, a file that cannot be opened, a
 * corrupt file), as opposed to a bug. The API answers them 503 `storage_unavailable`
 * (src/app.ts) and /healthz reports them as `degraded` with one of the short reasons below
 * (docs/operations.md).
 */
import type { Database } from 'bun:sqlite';
import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';

/** Seconds a client is told to wait (Retry-After) before trying a refused write again. */
export const STORAGE_RETRY_AFTER_S = 30;

/**
 * By SQLite result code (bun:sqlite sets `code`, extended codes included: SQLITE_IOERR_WRITE),
 * and by SQLite's own message for errors that crossed from the writer thread as text only.
 */
const REASONS: readonly { code: RegExp; message: string; reason: string }[] = [
  { code: /^SQLITE_FULL/, message: 'database or disk is full', reason: 'database or disk full' },
  { code: /^SQLITE_READONLY/, message: 'attempt to write a readonly database', reason: 'database read-only' },
  { code: /^SQLITE_IOERR/, message: 'disk I/O error', reason: 'disk I/O error' },
  { code: /^SQLITE_CANTOPEN/, message: 'unable to open database file', reason: 'database file cannot be opened' },
  { code: /^SQLITE_CORRUPT/, message: 'database disk image is malformed', reason: 'database file is corrupt' },
  { code: /^SQLITE_NOTADB/, message: 'file is not a database', reason: 'database file is corrupt' },
];

/** SQLite's result code of `error` (or of an error it wraps), else null. */
export function sqliteCode(error: unknown): string | null {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('SQLITE_')) return code;
  }
  return null;
}

/**
 * PostgreSQL's (Bun.SQL's PostgresError): a connection that cannot be made or was lost (Bun's
 * ERR_POSTGRES_CONNECTION_* codes; SQLSTATE class 08, and 57P01-57P03 of a server shutting down
 * or starting), a read-only server (25006), a full disk (53100) or other exhausted resources
 * (class 53), by SQLSTATE (`errno`).
 */
function postgresFailure(e: Error): string | null {
  const { code, errno } = e as { code?: unknown; errno?: unknown };
  if (typeof code === 'string' && /^ERR_POSTGRES_(CONNECTION|IDLE_TIMEOUT|LIFETIME_TIMEOUT)/.test(code)) {
    return 'database unreachable';
  }
  if (typeof errno !== 'string' || e.name !== 'PostgresError') return null;
  if (errno.startsWith('08') || /^57P0[123]$/.test(errno)) return 'database unreachable';
  if (errno === '25006') return 'database read-only';
  if (errno === '53100') return 'database or disk full';
  if (errno.startsWith('53')) return 'database out of resources';
  return null;
}

/** The short reason when `error` (or an error it wraps, as drizzle does) is a storage failure, else null. */
export function storageFailure(error: unknown): string | null {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const pg = postgresFailure(e);
    if (pg !== null) return pg;
    const code = (e as { code?: unknown }).code;
    for (const r of REASONS) {
      if (typeof code === 'string' ? r.code.test(code) : e.message.includes(r.message)) return r.reason;
    }
  }
  return null;
}

/** Bytes an unprivileged process may still write on the file system holding `path`; null when unknown. */
export function freeBytes(path: string): number | null {
  try {
    const fs = statfsSync(dirname(path));
    return fs.bavail * fs.bsize;
  } catch {
    return null;
  }
}

/** Below this many free bytes, a failing write is taken for a full disk (SQLite may report it as an I/O error). */
const NEARLY_FULL_BYTES = 1024 * 1024;

/** Whether the file system holding `path` has (almost) no room left. */
export function nearlyFull(path: string): boolean {
  const free = freeBytes(path);
  return free !== null && free < NEARLY_FULL_BYTES;
}

/**
 * Whether `error` means the disk holding `path` is full: SQLite says so (SQLITE_FULL), or an I/O
 * error on a file system with almost nothing free (growing the -shm file fails as
 * SQLITE_IOERR_SHMSIZE, not as SQLITE_FULL).
 */
export function isDiskFull(error: unknown, path: string): boolean {
  const reason = storageFailure(error);
  if (reason === 'database or disk full') return true;
  return reason === 'disk I/O error' && nearlyFull(path);
}

/**
 * Commits a write that changes nothing (the header's user_version, rewritten with its own
 * value): the start's way to find out whether the disk takes writes before it lets the click
 * writer open. Unlike probeWrite it reaches the disk, so a full one shows. Throws the storage
 * failure; another connection holding the write lock counts as writable (someone is writing).
 */
export function checkWrites(sqlite: Database): void {
  try {
    sqlite.transaction(() => {
      const { user_version } = sqlite.query('PRAGMA user_version').get() as { user_version: number };
      sqlite.exec(`PRAGMA user_version = ${user_version}`);
    })();
  } catch (err) {
    if ((sqliteCode(err) ?? '').startsWith('SQLITE_BUSY')) return;
    throw err;
  }
}

/**
 * Whether the connection may write: takes the write lock, rewrites the header's user_version
 * with its own value and rolls back, so nothing changes. Null when it may (also when another
 * connection holds the lock: someone is writing), else the reason. A full disk shows only when
 * pages reach it, so it is seen through the click writes and the API's writes, not here.
 */
export function probeWrite(sqlite: Database): string | null {
  // SQLite names the column `timeout`. Restoring it matters: left at 0, every later write on
  // this connection that meets the writer's lock would fail at once instead of waiting.
  const { timeout } = sqlite.query('PRAGMA busy_timeout').get() as { timeout: number };
  sqlite.exec('PRAGMA busy_timeout = 0');
  try {
    sqlite.exec('BEGIN IMMEDIATE');
    try {
      const { user_version } = sqlite.query('PRAGMA user_version').get() as { user_version: number };
      sqlite.exec(`PRAGMA user_version = ${user_version}`);
    } finally {
      // A failed write may have rolled the transaction back already.
      if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
    }
    return null;
  } catch (err) {
    return storageFailure(err);
  } finally {
    sqlite.exec(`PRAGMA busy_timeout = ${timeout}`);
  }
}

/**
 * Whether `err` is a unique-constraint violation, on either engine (SQLite's message, PostgreSQL's
 * SQLSTATE 23505): another request took the slug, name or email between the check and the write.
 */
export function isUniqueViolation(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return (err as { errno?: unknown }).errno === '23505' || /UNIQUE constraint failed/.test(err.message);
}

/** Whether `err` is a foreign-key violation (SQLite's message, PostgreSQL's 23503): the row referred to is gone. */
export function isForeignKeyViolation(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  return (err as { errno?: unknown }).errno === '23503' || /FOREIGN KEY constraint failed/.test(err.message);
}
