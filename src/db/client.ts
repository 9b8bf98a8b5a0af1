/**
 * Opens the SQLite file. Every connection's pragmas are set here, by the role it plays, so the
 * settings of the server, the click writer and the export thread can be read side by side.
 */
import { constants, Database } from 'bun:sqlite';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type BunSQLiteDatabase, drizzle } from 'drizzle-orm/bun-sqlite';
import * as schema from './schema';

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

/**
 * - standalone: one connection doing everything: operator commands, the tests and benchmarks
 *   that write clicks inline, and the server until its writer starts (migrations, the rollup
 *   rebuild);
 * - server: the server's connection once the click writer runs: the API and statistics;
 * - writer: the click writer Worker's connection;
 * - export: the export Worker's read-only connection.
 */
export type ConnectionRole = 'standalone' | 'server' | 'writer' | 'export';

type Pragmas = Readonly<Record<string, string | number>>;

/**
 * What a checkpoint that empties the WAL leaves of the file, at most (bytes): SQLite otherwise
 * keeps the -wal file at its largest size for reuse (~128 MB when a checkpoint is due). Once
 * idle it is truncated to nothing (checkpoint.ts).
 */
export const WAL_SIZE_LIMIT = 64 * 1024 * 1024;

// WAL lets readers run during a click write; NORMAL is durable across process crashes in WAL
// mode; busy_timeout keeps an operator command from failing at once while the server writes;
// journal_size_limit bounds the WAL file a checkpoint leaves behind (WAL_SIZE_LIMIT).
const READ_WRITE: Pragmas = {
  journal_mode: 'WAL',
  synchronous: 'NORMAL',
  busy_timeout: 5000,
  foreign_keys: 'ON',
  journal_size_limit: WAL_SIZE_LIMIT,
};

/** Applied in this order; a negative cache_size is KiB, a positive wal_autocheckpoint pages (4 KiB). */
const PRAGMAS: Readonly<Record<ConnectionRole, Pragmas>> = {
  // 64 MB of page cache: inline click writes and the rollup rebuild touch index pages all over
  // rollups, visitor days and links.
  standalone: { ...READ_WRITE, cache_size: -65536 },
  server: {
    ...READ_WRITE,
    // Never a checkpoint inside an API write, on the event loop: the click writer's thread runs
    // every checkpoint, this connection's commits included (checkpoint.ts).
    wal_autocheckpoint: 0,
    // It only reads once the slug index is loaded (the API, statistics): 8 MB is plenty, where
    // 64 MB kept every page of the links load (~20 MB RSS).
    cache_size: -8192,
  },
  writer: {
    ...READ_WRITE,
    // Its checkpoints are decided by the policy of checkpoint.ts (at ~128 MB of WAL, whoever
    // wrote it), which this connection runs after its own commits and on a timer, not by
    // SQLite's count of this connection's pages alone.
    wal_autocheckpoint: 0,
    // 16 MB, not 64 MB (less RSS under load). Measured together with `bun run bench`: 16 MB
    // with 32 MB checkpoints lost ~8% of the redirect rate, 16 MB with 128 MB checkpoints kept
    // the rate of 64 MB with 32 MB checkpoints, at ~60 MB less peak RSS.
    cache_size: -16384,
  },
  export: {
    busy_timeout: 5000,
    // SQLite's default, stated because the other connections' caches are larger: an export
    // reads each page once, a large cache would only hold a million rows nobody reads again.
    cache_size: -2000,
  },
};

/** Sets `role`'s pragmas on an open connection (the server moves from standalone to server). */
export function applyPragmas(sqlite: Database, role: ConnectionRole): void {
  for (const [name, value] of Object.entries(PRAGMAS[role])) sqlite.exec(`PRAGMA ${name} = ${value}`);
}

/** A connection for `role`; the export's is read-only, the others create the file and its folder. */
export function openConnection(path: string, role: ConnectionRole): Database {
  const readonly = role === 'export';
  if (!readonly && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, readonly ? { readonly: true, strict: true } : { create: true, strict: true });
  // The -wal and -shm files stay when the last connection closes (the -wal emptied), instead of
  // being deleted: SQLite cannot open a WAL database without its -shm file (32 KB and up), and a
  // start on a full disk could not create it again (docs/operations.md, "Starting with a full disk").
  if (!readonly && path !== ':memory:') sqlite.fileControl(constants.SQLITE_FCNTL_PERSIST_WAL, 1);
  applyPragmas(sqlite, role);
  return sqlite;
}

export function openDatabase(path: string, role: Exclude<ConnectionRole, 'export'> = 'standalone'): Db {
  return drizzle({ client: openConnection(path, role), schema }) as Db;
}

/** Cheap liveness probe for /healthz. */
export function pingDatabase(db: Db): boolean {
  try {
    return db.$client.query('SELECT 1 AS ok').get() !== null;
  } catch {
    return false;
  }
}
