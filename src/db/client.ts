/** Opens the SQLite file with the pragmas a busy single-box service needs. */
import { Database } from 'bun:sqlite';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type BunSQLiteDatabase, drizzle } from 'drizzle-orm/bun-sqlite';
import * as schema from './schema';

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

export function openDatabase(path: string): Db {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const sqlite = new Database(path, { create: true, strict: true });
  // WAL lets readers run during a click flush; NORMAL is durable across process crashes in WAL
  // mode; busy_timeout keeps an operator command from failing at once while the server writes.
  sqlite.exec('PRAGMA journal_mode = WAL');
  sqlite.exec('PRAGMA synchronous = NORMAL');
  sqlite.exec('PRAGMA busy_timeout = 5000');
  sqlite.exec('PRAGMA foreign_keys = ON');
  // 64 MB page cache: click writes touch index pages all over rollups and links.
  sqlite.exec('PRAGMA cache_size = -65536');
  return drizzle({ client: sqlite, schema }) as Db;
}

/** Cheap liveness probe for /healthz. */
export function pingDatabase(db: Db): boolean {
  try {
    return db.$client.query('SELECT 1 AS ok').get() !== null;
  } catch {
    return false;
  }
}
