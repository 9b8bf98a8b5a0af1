/**
 * The click writer of an engine, opened on a connection of its own kind: the store of
 * sqlite/store.ts on a SQLite connection, or of postgres/store.ts on a PostgreSQL pool. The
 * inline sink (tests) opens one on the stores' own connection; the writer Worker opens its own
 * connection from the database's address (stores.ts) and then one of these.
 */
import type { Database } from 'bun:sqlite';
import type { WalCheckpointer } from '../../db/checkpoint';
import type { Pg } from '../../db/postgres/client';
import type { Clock } from '../../lib/clock';
import { type GeoLookup, noGeo } from './enrich/geo';
import { PostgresClickWriter } from './postgres/store';
import { SqliteClickWriter } from './sqlite/store';
import type { ClickWriter } from './store';

/** A connection the click writer can write on. */
export type WriterConnection = { engine: 'sqlite'; sqlite: Database } | { engine: 'postgres'; sql: Pg };

export interface WriterOptions {
  geo: GeoLookup;
  ownHosts: readonly string[];
  clock: Clock;
  retentionDays: number;
  /** SQLite only: the WAL policy of the writer's connection (the Worker's). */
  checkpoints?: WalCheckpointer;
}

/** Also a SqliteClickWriter when on SQLite (the Worker reads its fold count). */
export function openClickWriter(connection: WriterConnection, options: WriterOptions): ClickWriter {
  if (connection.engine === 'postgres') {
    return new PostgresClickWriter(connection.sql, options.geo, options.ownHosts, options.clock, {
      retentionDays: options.retentionDays,
    });
  }
  return new SqliteClickWriter(connection.sqlite, options.geo, options.ownHosts, options.clock, {
    retentionDays: options.retentionDays,
    checkpoints: options.checkpoints,
  });
}

/**
 * PostgreSQL: the click writer an import writes its history through (imports/history), on the
 * importing process's own pool: any node may write clicks there. No geo: an imported click's
 * place is the source's. Its folds run beside its batches, not before the next one: an import's
 * fold rewrites the past hours its clicks fall in, a wait the history need not take.
 */
export function openPgImportWriter(sql: Pg, options: Omit<WriterOptions, 'geo'>): PostgresClickWriter {
  return new PostgresClickWriter(sql, noGeo, options.ownHosts, options.clock, {
    retentionDays: options.retentionDays,
    foldBeside: true,
  });
}
