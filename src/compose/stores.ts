/**
 * The storage layer as services see it: one narrow store per module, written in the module's
 * words (its `store.ts`), with an implementation per engine in the module's `sqlite/` and
 * `postgres/` folders. This file only puts them together for the engine the configuration
 * chose (SLINK_DATABASE_URL set: PostgreSQL; unset: the SQLite file); nothing above it knows
 * which engine is below (docs/architecture.md, "Storage").
 */

import type { DatabaseAddress, Engine } from '../db/address';
import { backupDatabase } from '../db/backup';
import { type Db, pingDatabase } from '../db/client';
import type { Pg } from '../db/postgres/client';
import { WindowKeys } from '../db/postgres/window-keys';
import { probeWrite, storageFailure } from '../db/storage';
import { type RateLimit, RateLimiter } from '../http/rate-limit';
import { createPostgresRateWindows } from '../http/rate-limit-postgres';
import { SharedRateLimiter } from '../http/rate-limit-shared';
import type { Clock } from '../lib/clock';
import { AppError } from '../lib/errors';
import { hmacHex } from '../lib/hash';
import { randomToken } from '../lib/ids';
import type { Logger } from '../lib/log';
import {
  type AnalyticsStore,
  createPostgresAnalyticsStore,
  createSqliteAnalyticsStore,
  ExportHost,
  type Exports,
  postgresStorageBytes,
  type StorageBytes,
  sqliteStorageBytes,
} from '../modules/analytics/public';
import { type AuditStore, createPostgresAuditStore, createSqliteAuditStore } from '../modules/audit/public';
import {
  type AccountStore,
  createPostgresAccountStore,
  createPostgresKeyStore,
  createSqliteAccountStore,
  createSqliteKeyStore,
  insertAccountPostgres,
  insertAccountSqlite,
  type KeyStore,
} from '../modules/auth/public';
import {
  type ClickWriter,
  deleteLinkClicks,
  deleteLinkClicksPg,
  namePlainTargetsPg,
  openClickWriter,
  openPgImportWriter,
  plainTargetsColumnPg,
  upgradeClickStorage,
  type WriterOptions,
} from '../modules/clicks/public';
import { createPostgresDomainStore, createSqliteDomainStore, type DomainStore } from '../modules/domains/public';
import {
  createPostgresImportStore,
  createSqliteImportStore,
  type HistoryOptions,
  type HistoryWriter,
  type ImportStore,
  postgresHistoryWriter,
  sqliteHistoryWriter,
} from '../modules/imports/public';
import { createPostgresInviteStore, createSqliteInviteStore, type InviteStore } from '../modules/invites/public';
import {
  announceLinkChanges,
  type ClickLimitStore,
  createPostgresClickLimitStore,
  createPostgresLinkChangeFeed,
  createPostgresLinkStore,
  createPostgresLinkWrites,
  createSqliteLinkChangeFeed,
  createSqliteLinkStore,
  createSqliteLinkWrites,
  DOMAINS_CHANGED,
  domainLinksPostgres,
  domainLinksSqlite,
  type LinkChangeFeed,
  type LinkStore,
  type LinkWrites,
  type PgClickNamesColumns,
  unfileProjectLinksPostgres,
  unfileProjectLinksSqlite,
} from '../modules/links/public';
import { createPostgresProjectStore, createSqliteProjectStore, type ProjectStore } from '../modules/projects/public';
import { createPostgresSharedMisses, plainTargetOf, type SharedMisses } from '../modules/redirect/public';
import { forgetLinkRollups, forgetLinkRollupsPg, linkValueColumnPg, nameLinkValuesPg } from '../modules/rollups/public';
import {
  createPostgresSessionStore,
  createPostgresSetupTokens,
  createPostgresSignInFailures,
  createSqliteSessionStore,
  createSqliteSetupTokens,
  deleteSessionsOfAccountPostgres,
  deleteSessionsOfAccountSqlite,
  type SessionStore,
  type SetupTokenStore,
  SIGN_IN_LIMITS,
  type SignInFailureStore,
  SignInThrottle,
  type VerificationSlots,
} from '../modules/sessions/public';
import { createPostgresVariantStore, createSqliteVariantStore, type VariantStore } from '../modules/variants/public';
import {
  createPostgresOutboxStore,
  createPostgresWebhookStore,
  createSqliteOutboxStore,
  createSqliteWebhookStore,
  type OutboxStore,
  type WebhookStore,
} from '../modules/webhooks/public';

/** What an unlock cookie key is derived for: no other key of the database can equal it. */
const UNLOCK_KEY_LABEL = 'slink-unlock-cookie';

export interface Stores {
  readonly engine: Engine;
  readonly address: DatabaseAddress;
  /** The engine's click writer on this connection (the inline sink: tests, replays). */
  openClickWriter(options: WriterOptions): ClickWriter;
  /** Where an import's history goes (imports/history): queued for the click writer (SQLite) or written (PostgreSQL). */
  openHistoryWriter(options: HistoryOptions): HistoryWriter;
  readonly accounts: AccountStore;
  readonly keys: KeyStore;
  readonly sessions: SessionStore;
  /** The first-run setup tokens every node accepts (PostgreSQL); nothing stored with one process. */
  readonly setupTokens: SetupTokenStore;
  /** Invites; an acceptance inserts its account in the same transaction (the auth module's statement). */
  readonly invites: InviteStore;
  /** Import runs, what each source link became, and each run's report. */
  readonly imports: ImportStore;
  readonly projects: ProjectStore;
  readonly domains: DomainStore;
  readonly webhooks: WebhookStore;
  /** The events and their deliveries (webhooks/outbox): what the sender delivers. */
  readonly outbox: OutboxStore;
  readonly links: LinkStore;
  /** The writes of redirect facts: only links/writer.ts uses them (the slug index follows every one). */
  readonly linkWrites: LinkWrites;
  /**
   * What other processes wrote to links (links/changes.ts): the other nodes on PostgreSQL, an
   * operator command beside the service on SQLite; null where nothing else writes.
   */
  readonly changes: LinkChangeFeed | null;
  readonly variants: VariantStore;
  /** The audit log's reads and pruning (each change's own store writes its entry). */
  readonly audit: AuditStore;
  /**
   * The click limit's count that several processes share (PostgreSQL); null where one process
   * holds every click (SQLite), whose own count in memory is exact (redirect/click-limit-gate.ts).
   */
  readonly clickLimits: ClickLimitStore | null;
  /**
   * Read-through's misses every node remembers (PostgreSQL); null where one process asks every
   * question (SQLite), whose memory is enough.
   */
  readonly readThroughMisses: SharedMisses | null;
  /** The statistics' buckets and names, the raw clicks' pages (the clicks list, the export's snapshot). */
  readonly analytics: AnalyticsStore;
  /**
   * The API rate limiter (SLINK_RATE_LIMIT per identity per minute): in memory with one process
   * (SQLite), exact there; counted in the database every node shares (PostgreSQL), with the
   * node's memory while the database cannot be reached.
   */
  openRateLimiter(limit: number, clock: Clock, log: Logger): RateLimit;
  /**
   * Where wrong passwords of protected links are counted: null in memory (SQLite, one process);
   * the windows sign-in failures use, which every node shares (PostgreSQL).
   */
  readonly linkPasswordFailures: SignInFailureStore | null;
  /**
   * The key of a protected link's unlock cookies (redirect/password/unlock-cookie.ts), derived
   * from its password hash: with the database's window secret as well on PostgreSQL, so every
   * node derives the same key; from the hash alone on SQLite, whose database holds no other secret.
   */
  unlockKey(passwordHash: string): Promise<string>;
  /** Sign-in's failure limits and verification slots: failures counted in memory (SQLite) or in the shared database (PostgreSQL). */
  openSignInThrottle(clock: Clock, slots: VerificationSlots): SignInThrottle;
  /** The engine's runner of CSV exports (SQLite: a Worker of its own; PostgreSQL: async pages). */
  openExports(log: Logger): Exports;
  /** The database's size on disk (the metrics). */
  storageBytes(): Promise<StorageBytes>;
  /**
   * Whether the database answers a trivial query (/healthz): `gone` (the SQLite connection cannot
   * answer at all) or a short reason why the server cannot be reached right now (PostgreSQL).
   */
  ping(): Promise<'ok' | 'gone' | { unreachable: string }>;
  /** Null when the database takes writes, else a short reason (/healthz: degraded). */
  probeWrite(): Promise<string | null>;
  /**
   * `slink backup`: a consistent copy of the live database into `target` (SQLite); on
   * PostgreSQL an AppError saying pg_dump is the tool (a copy of a server database is its own).
   */
  backup(target: string): Promise<{ path: string; bytes: number }>;
  /**
   * `slink migrate`'s work past the schema (applied at open): converts clicks an older release
   * stored (SQLite), logging progress; false when there was nothing to convert.
   */
  upgrade(log: (line: string) => void): Promise<boolean>;
  /** Closes the connection (SQLite) or the pool (PostgreSQL). */
  close(): Promise<void>;
}

export function sqliteStores(db: Db): Stores {
  // This process among those writing the file: its own link writes need not come back to it.
  const instance = randomToken();
  return {
    engine: 'sqlite',
    address: { engine: 'sqlite', path: db.$client.filename },
    openClickWriter: (options) => openClickWriter({ engine: 'sqlite', sqlite: db.$client }, options),
    openHistoryWriter: (options) => sqliteHistoryWriter(db.$client, options),
    accounts: createSqliteAccountStore(db, deleteSessionsOfAccountSqlite),
    keys: createSqliteKeyStore(db),
    sessions: createSqliteSessionStore(db),
    setupTokens: createSqliteSetupTokens(),
    invites: createSqliteInviteStore(db, insertAccountSqlite),
    imports: createSqliteImportStore(db),
    projects: createSqliteProjectStore(db, unfileProjectLinksSqlite),
    domains: createSqliteDomainStore(db.$client, domainLinksSqlite),
    webhooks: createSqliteWebhookStore(db),
    outbox: createSqliteOutboxStore(db.$client),
    links: createSqliteLinkStore(db),
    // A deleted link's rollups leave the workspace's and its raw clicks go in the same transaction.
    linkWrites: createSqliteLinkWrites(
      db,
      (sqlite, id) => {
        forgetLinkRollups(sqlite, id);
        deleteLinkClicks(sqlite, id);
      },
      instance,
    ),
    changes: createSqliteLinkChangeFeed(db.$client, instance),
    variants: createSqliteVariantStore(db),
    audit: createSqliteAuditStore(db.$client),
    clickLimits: null,
    readThroughMisses: null,
    analytics: createSqliteAnalyticsStore(db.$client),
    openRateLimiter: (limit, clock) => new RateLimiter(limit, clock),
    linkPasswordFailures: null,
    unlockKey: async (passwordHash) => hmacHex(UNLOCK_KEY_LABEL, passwordHash),
    openSignInThrottle: (clock, slots) => new SignInThrottle(clock, SIGN_IN_LIMITS, null, slots),
    openExports: (log) => new ExportHost({ engine: 'sqlite', path: db.$client.filename }, log),
    async storageBytes() {
      return sqliteStorageBytes(db.$client.filename);
    },
    async ping() {
      return pingDatabase(db) ? 'ok' : 'gone';
    },
    async probeWrite() {
      return probeWrite(db.$client);
    },
    async backup(target) {
      return backupDatabase(db.$client, target);
    },
    async upgrade(log) {
      const result = upgradeClickStorage(db.$client, { log });
      return result !== null && result.converted > 0;
    },
    async close() {
      db.$client.close();
    },
  };
}

/**
 * What the slug index reads with each link on PostgreSQL so that its clicks carry their ids
 * (links' RedirectRow.clickNames): its dictionary value (rollups) and plain click targets (clicks).
 */
export function pgClickNames(sql: Pg): PgClickNamesColumns {
  return (linkId) =>
    sql`${linkValueColumnPg(sql, linkId)} AS value_id, ${plainTargetsColumnPg(sql, linkId)} AS plain_targets`;
}

export function postgresStores(sql: Pg, url: string): Stores {
  // This process among the nodes: its own link writes need not come back to it through the feed.
  const instance = randomToken();
  const windowKeys = new WindowKeys(sql);
  return {
    engine: 'postgres',
    address: { engine: 'postgres', url },
    openClickWriter: (options) => openClickWriter({ engine: 'postgres', sql }, options),
    openHistoryWriter: (options) =>
      postgresHistoryWriter(
        sql,
        openPgImportWriter(sql, {
          ownHosts: options.policy.ownHosts,
          clock: options.clock,
          retentionDays: options.retentionDays,
        }),
        options,
      ),
    accounts: createPostgresAccountStore(sql, deleteSessionsOfAccountPostgres),
    keys: createPostgresKeyStore(sql),
    sessions: createPostgresSessionStore(sql),
    setupTokens: createPostgresSetupTokens(sql),
    invites: createPostgresInviteStore(sql, insertAccountPostgres),
    imports: createPostgresImportStore(sql),
    projects: createPostgresProjectStore(sql, unfileProjectLinksPostgres),
    // Every domain write announces itself to the other nodes in its own transaction.
    domains: createPostgresDomainStore(
      sql,
      (tx) => announceLinkChanges(tx, instance, [DOMAINS_CHANGED]),
      domainLinksPostgres,
    ),
    webhooks: createPostgresWebhookStore(sql),
    outbox: createPostgresOutboxStore(sql),
    links: createPostgresLinkStore(sql, pgClickNames(sql)),
    linkWrites: createPostgresLinkWrites(
      sql,
      instance,
      async (tx, id) => {
        await forgetLinkRollupsPg(tx, id);
        await deleteLinkClicksPg(tx, id);
      },
      // Pipelined: one round trip for both.
      async (tx, links) => {
        await Promise.all([
          nameLinkValuesPg(
            tx,
            links.map((l) => l.id),
          ),
          namePlainTargetsPg(
            tx,
            links.map((l) => ({ linkId: l.id, ...plainTargetOf(l) })),
          ),
        ]);
      },
    ),
    changes: createPostgresLinkChangeFeed(sql, instance),
    variants: createPostgresVariantStore(sql),
    audit: createPostgresAuditStore(sql),
    clickLimits: createPostgresClickLimitStore(sql),
    readThroughMisses: createPostgresSharedMisses(sql),
    analytics: createPostgresAnalyticsStore(sql),
    openRateLimiter: (limit, clock, log) =>
      new SharedRateLimiter(createPostgresRateWindows(sql, windowKeys), limit, clock, log),
    linkPasswordFailures: createPostgresSignInFailures(sql, windowKeys),
    unlockKey: (passwordHash) => windowKeys.of(`${UNLOCK_KEY_LABEL}:${passwordHash}`),
    openSignInThrottle: (clock, slots) =>
      new SignInThrottle(clock, SIGN_IN_LIMITS, createPostgresSignInFailures(sql, windowKeys), slots),
    openExports: (log) => new ExportHost({ engine: 'postgres', url }, log),
    storageBytes: () => postgresStorageBytes(sql),
    async ping() {
      try {
        await sql`SELECT 1`;
        return 'ok';
      } catch (err) {
        return { unreachable: storageFailure(err) ?? 'database unreachable' };
      }
    },
    async probeWrite() {
      // A standby (after a failover pointed at the wrong server) or a read-only default refuses writes.
      try {
        const [row] = await sql<{ standby: boolean; readOnly: string }[]>`
          SELECT pg_is_in_recovery() AS standby, current_setting('default_transaction_read_only') AS "readOnly"`;
        if (row!.standby) return 'database is a read-only standby';
        return row!.readOnly === 'on' ? 'database read-only' : null;
      } catch (err) {
        return storageFailure(err) ?? 'database unavailable';
      }
    },
    async backup() {
      throw new AppError(
        'invalid_request',
        'on PostgreSQL, back up with pg_dump (pg_dump --format=custom --file=<file> <database>; docs/operations.md, "Running on PostgreSQL")',
      );
    },
    async upgrade() {
      // Nothing older than the PostgreSQL engine exists to convert: the migrations did it all.
      return false;
    },
    async close() {
      await sql.close();
    },
  };
}
