/** What the domains module keeps, in its own words; one implementation per engine beside it. */
import type { Database } from 'bun:sqlite';
import type { Pg } from '../../db/postgres/client';
import type { LinkFilter } from '../access/public';
import type { Audited } from '../audit/public';
import type { DomainRow } from './table';

export type { DomainRow };

/** The fields of a domain the API sets (null clears). */
export type DomainSettings = Pick<
  DomainRow,
  'rootUrl' | 'notFoundUrl' | 'expiredUrl' | 'upstream' | 'appleAppSiteAssociation' | 'assetLinks'
>;

/** A domain to add: never the default (only the start makes one so). */
export type NewDomain = Pick<DomainRow, 'host' | 'origin' | 'createdAt'> & Partial<DomainSettings>;

/** What a deletion did: the domain is gone, or why not. */
export type DomainDeletion = 'deleted' | 'missing' | 'default' | 'has_links';

/** When a domain was last asked for (a node's own count, written at most once a minute). */
export interface DomainSeen {
  id: number;
  at: number;
}

export interface DomainStore {
  /** Every domain, oldest first (then by id). */
  list(): Promise<DomainRow[]>;
  /**
   * Makes the domain of `host` the default one, with `origin` (SLINK_SHORT_HOST), in one
   * transaction: an existing domain of that host becomes the default (its origin updated: the
   * scheme or port may have changed), else the first domain when it is still unnamed (the
   * migration's, holding the links made before domains) is named so, else a new one is added.
   * Every other domain stops being the default. Returns whether anything changed.
   */
  ensureDefault(host: string, origin: string, now: number): Promise<boolean>;
  /** Adds a domain; throws a unique violation (db/storage.ts isUniqueViolation) when its host is taken. */
  insert(domain: NewDomain, audit?: Audited): Promise<DomainRow>;
  /** Sets the given fields; the domain as it is then, or null when it is gone. */
  update(id: number, changes: Partial<DomainSettings>, audit?: Audited): Promise<DomainRow | null>;
  /**
   * Deletes the domain in one transaction that first checks it is not the default one and holds
   * no link (SQLite has no foreign key to refuse it).
   */
  /** `audit` is written only when the domain is deleted, in the same transaction. */
  delete(id: number, audit?: Audited): Promise<DomainDeletion>;
  /** Links per domain id (domains without links absent), of the links `visible` keeps (null: all). */
  linkCounts(visible: LinkFilter | null): Promise<Map<number, number>>;
  linkCount(id: number, visible: LinkFilter | null): Promise<number>;
  /** Moves each domain's last_seen_at to `at` unless it is already later (several nodes write it). */
  recordSeen(seen: readonly DomainSeen[]): Promise<void>;
}

/**
 * What the domain stores ask of the links table, per engine: the links module answers
 * (links/domain-links.ts), given by the composition root, so domains name no table of links.
 * `any` runs inside the transaction that deletes a domain: a link added meanwhile is seen.
 */
export interface DomainLinksSqlite {
  /** Links per domain id (domains without links absent), of the links `visible` keeps (null: all). */
  counts(sqlite: Database, visible: LinkFilter | null): Map<number, number>;
  count(sqlite: Database, domainId: number, visible: LinkFilter | null): number;
  /** Whether any link is on the domain. */
  any(sqlite: Database, domainId: number): boolean;
}

export interface DomainLinksPostgres {
  counts(sql: Pg, visible: LinkFilter | null): Promise<Map<number, number>>;
  count(sql: Pg, domainId: number, visible: LinkFilter | null): Promise<number>;
  any(tx: Pg, domainId: number): Promise<boolean>;
}

/** The column of each settable field, the same on both engines. */
export const SETTING_COLUMNS: Readonly<Record<keyof DomainSettings, string>> = {
  rootUrl: 'root_url',
  notFoundUrl: 'not_found_url',
  expiredUrl: 'expired_url',
  upstream: 'upstream',
  appleAppSiteAssociation: 'apple_app_site_association',
  assetLinks: 'asset_links',
};

/**
 * A `domains` row as either engine answers it, under its column names: SQLite gives a boolean as
 * 0 or 1, PostgreSQL an int8 as text.
 */
export interface StoredDomain {
  id: number;
  host: string;
  origin: string;
  is_default: boolean | number;
  root_url: string | null;
  not_found_url: string | null;
  expired_url: string | null;
  upstream: string | null;
  apple_app_site_association: string | null;
  asset_links: string | null;
  last_seen_at: number | string | null;
  created_at: number | string;
}

/** A stored row in the module's words. */
export function domainRowOf(r: StoredDomain): DomainRow {
  return {
    id: r.id,
    host: r.host,
    origin: r.origin,
    isDefault: r.is_default === true || r.is_default === 1,
    rootUrl: r.root_url,
    notFoundUrl: r.not_found_url,
    expiredUrl: r.expired_url,
    upstream: r.upstream,
    appleAppSiteAssociation: r.apple_app_site_association,
    assetLinks: r.asset_links,
    lastSeenAt: r.last_seen_at === null ? null : Number(r.last_seen_at),
    createdAt: Number(r.created_at),
  };
}
