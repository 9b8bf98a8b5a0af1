/**
 * Opens the storage engine the configuration chose, for the server and for the CLI: the SQLite
 * file at SLINK_DB (opened, checked and migrated: db/open.ts), or the PostgreSQL database at
 * SLINK_DATABASE_URL (waited for up to 30 s, migrated under an advisory lock). The server also
 * gets the click side's start (clicks/start.ts, clicks/postgres/start.ts): the one call it makes
 * into the click store's start-up steps. Everything above sees only `Stores`.
 */

import { unportedDb } from './compose/deps';
import { postgresStores, type Stores, sqliteStores } from './compose/stores';
import type { Config } from './config';
import { applyPragmas, type Db } from './db/client';
import { explainDatabaseError, openSlinkDatabase } from './db/open';
import { connectPostgres, type Pg, redactUrl, withApplicationName } from './db/postgres/client';
import { migratePostgres } from './db/postgres/migrate';
import type { Clock } from './lib/clock';
import type { Logger } from './lib/log';
import { type ClickStart, startClickStorage, startClickStoragePg } from './modules/clicks/public';

export interface OpenedStorage {
  /** The SQLite database; on PostgreSQL a stand-in that throws when used (deps.ts unportedDb). */
  db: Db;
  stores: Stores;
  /** Where the data is, for the startup log (a URL without its password). */
  where: string;
  /** Closes the connection or the pool. */
  close(): Promise<void>;
}

export interface ServerStorage extends OpenedStorage {
  clicks: ClickStart;
}

/** The CLI's storage: opened and migrated, nothing of the click side started. */
export async function openStorage(config: Config, log: Logger): Promise<OpenedStorage> {
  if (config.databaseUrl) return (await openPostgresStorage(config, log)).opened;
  return openSqliteStorage(config.dbPath);
}

/** The SQLite file at `path`, opened, checked and migrated (`copy-to` reads it whatever the engine). */
export function openSqliteStorage(path: string): OpenedStorage {
  const db = openSlinkDatabase(path);
  const stores = sqliteStores(db);
  return { db, stores, where: `db: ${path}`, close: () => stores.close() };
}

/** The server's storage, with the click side's start done (an older release's clicks converted, the spill replayed). */
export async function openServerStorage(
  config: Config,
  log: Logger,
  clock: Clock,
  /** How long the start waits for an unreachable PostgreSQL (default CONNECT_DEADLINE_MS, 30 s). */
  connectDeadlineMs?: number,
): Promise<ServerStorage> {
  if (config.databaseUrl) {
    const { opened, sql } = await openPostgresStorage(config, log, connectDeadlineMs);
    try {
      return { ...opened, clicks: await startClickStoragePg(sql, config, log, clock) };
    } catch (err) {
      await opened.close();
      throw err;
    }
  }
  const opened = openSqliteStorage(config.dbPath);
  let clicks: ClickStart;
  try {
    clicks = startClickStorage(opened.db, config, log, clock);
  } catch (err) {
    await opened.close();
    throw explainDatabaseError(err, config.dbPath, `the clicks stored by an older release cannot be converted`);
  }
  // From here on the writer Worker writes the clicks and checkpoints; this connection serves the API.
  applyPragmas(opened.db.$client, 'server');
  return { ...opened, clicks };
}

/**
 * Connects (retrying for up to 30 s at start) and applies the migrations; a failure closes the
 * pool. Every connection carries `application_name` "slink <SLINK_NODE_ID>" (pg_stat_activity).
 */
async function openPostgresStorage(
  config: Config,
  log: Logger,
  deadlineMs?: number,
): Promise<{ opened: OpenedStorage; sql: Pg }> {
  const url = config.databaseUrl as string;
  const applicationName = `slink ${config.nodeId}`;
  const sql = await connectPostgres(url, log, { applicationName, deadlineMs });
  try {
    const applied = await migratePostgres(sql);
    if (applied > 0) log.info(`${applied} PostgreSQL migrations applied`);
  } catch (err) {
    await sql.close().catch(() => {});
    throw err;
  }
  // The click writer's and the exports' connections are opened from this URL in their threads.
  const stores = postgresStores(sql, withApplicationName(url, applicationName));
  return {
    opened: { db: unportedDb(), stores, where: `database: ${redactUrl(url)}`, close: () => stores.close() },
    sql,
  };
}
