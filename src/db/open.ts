/**
 * Opens SLINK_DB for the server and the operator commands, migrated, and says in one line what
 * is wrong with the file instead of SQLite's bare message (docs/operations.md, "The database
 * file"):
 * - an empty file (0 bytes) is refused, not taken for a new installation: SQLite would take it
 *   for an empty database and Slink would start over with no links and no accounts, hiding that
 *   a copy or a restore went wrong. A database Slink creates is never left empty: a creation
 *   that fails (a full disk) removes what it made;
 * - a file that is not a SQLite database or is corrupt, and a SQLite database that is not
 *   Slink's (tables, but no Slink migrations), are refused with the path and what to do;
 * - a disk too full to create the database or to write its pending migrations stops with a
 *   line that starts `disk full:`. With no migration pending, opening writes nothing.
 */
import { Database } from 'bun:sqlite';
import { existsSync, rmSync, statSync } from 'node:fs';
import { type Db, openDatabase } from './client';
import { migrateDatabase, pendingMigrations } from './migrate';
import { checkWrites, isDiskFull, nearlyFull, sqliteCode } from './storage';

/** What is wrong with the database file, in one line naming it; the server and the CLI print it as it is. */
export class DatabaseFileError extends Error {}

const BACKUP_HINT = 'restore the last backup in its place (docs/operations.md, "Backups")';

/**
 * The one-line explanation of `err`, met while `doing` something to the database at `path`, or
 * `err` itself when it is none of the cases above.
 */
export function explainDatabaseError(err: unknown, path: string, doing: string): unknown {
  if (err instanceof DatabaseFileError) return err;
  const code = sqliteCode(err) ?? '';
  if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT')) {
    const said = err instanceof Error ? err.message : String(err);
    return new DatabaseFileError(`${path} is not a Slink database or is corrupt (${said}): ${BACKUP_HINT}`);
  }
  if ((err as { code?: unknown } | null)?.code === 'ENOSPC' || isDiskFull(err, path)) return diskFull(path, doing);
  return err;
}

function diskFull(path: string, doing: string): DatabaseFileError {
  return new DatabaseFileError(`disk full: ${doing}; free space on the file system of ${path} and try again`);
}

/**
 * Refuses a SQLite database that holds tables but was never migrated by Slink: someone else's
 * file. Read on a read-only connection, before the read-write one sets WAL mode on the file.
 */
function checkSlinkSchema(path: string): void {
  const sqlite = new Database(path, { readonly: true });
  try {
    const tables = sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table'").all();
    if (tables.length > 0 && !tables.some((t) => t.name === '__drizzle_migrations')) {
      throw new DatabaseFileError(
        `${path} is a SQLite database but not a Slink database (it has tables, none of Slink's migrations): check SLINK_DB`,
      );
    }
  } finally {
    sqlite.close();
  }
}

/** Removes the files a creation that failed left behind, so that no empty database stays. */
function removeCreated(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
}

/** The database at `path`, created when there is no file, migrated; throws DatabaseFileError for the cases above. */
export function openSlinkDatabase(path: string): Db {
  if (path === ':memory:') {
    const db = openDatabase(path);
    migrateDatabase(db);
    return db;
  }
  const created = !existsSync(path);
  if (!created) {
    const stat = statSync(path);
    if (stat.isFile() && stat.size === 0) {
      throw new DatabaseFileError(
        `${path} is an empty file (0 bytes), not a Slink database: if it should hold your data, ${BACKUP_HINT}; to start a new installation, delete it`,
      );
    }
  }
  let doing = created
    ? `the new database ${path} cannot be created`
    : `${path} cannot be opened: SQLite needs room beside it for ${path}-shm`;
  let db: Db | null = null;
  let pending = 0;
  try {
    if (!created) checkSlinkSchema(path);
    db = openDatabase(path);
    pending = pendingMigrations(db);
    if (pending > 0) {
      if (!created) doing = `the ${pending} pending migrations of ${path} cannot be written`;
      // A full disk said plainly: drizzle's migrator reports a failed migration by the ROLLBACK
      // that follows it, and a disk that takes no write fails here first.
      checkWrites(db.$client);
    }
    migrateDatabase(db);
    return db;
  } catch (err) {
    try {
      db?.$client.close();
    } catch {
      // Closing a connection that failed half-way: what matters is the error below.
    }
    if (created) removeCreated(path);
    // A migration that ran out of space part-way shows only as that ROLLBACK's failure.
    if (pending > 0 && nearlyFull(path) && !(err instanceof DatabaseFileError)) throw diskFull(path, doing);
    throw explainDatabaseError(err, path, doing);
  }
}
