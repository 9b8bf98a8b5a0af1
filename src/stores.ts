/**
 * The storage layer as services see it: one narrow store per module, written in the module's
 * words, with an implementation per engine beside it in the module (`store-sqlite.ts`,
 * `store-postgres.ts`). This file only puts them together for the engine the configuration
 * chose (SLINK_DATABASE_URL set: PostgreSQL; unset: the SQLite file); nothing above it knows
 * which engine is below (docs/architecture.md, "Storage").
 */
import type { Db } from './db/client';
import type { Pg } from './db/postgres/client';

export type Engine = 'sqlite' | 'postgres';

export interface Stores {
  readonly engine: Engine;
  /** Whether the database answers a trivial query (/healthz). */
  ping(): Promise<boolean>;
  /** Closes the connection (SQLite) or the pool (PostgreSQL). */
  close(): Promise<void>;
}

export function sqliteStores(db: Db): Stores {
  return {
    engine: 'sqlite',
    async ping() {
      try {
        return db.$client.query('SELECT 1 AS ok').get() !== null;
      } catch {
        return false;
      }
    },
    async close() {
      db.$client.close();
    },
  };
}

export function postgresStores(sql: Pg): Stores {
  return {
    engine: 'postgres',
    async ping() {
      try {
        await sql`SELECT 1`;
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      await sql.close();
    },
  };
}
