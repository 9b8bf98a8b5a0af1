/**
 * What the links module keeps, in its own words: links with their tags and counters, read by
 * the API, the list, the slug index and other modules; and the writes of redirect facts (links,
 * tags, variants), which only the LinkWriter (writer.ts) calls, so that the slug index is
 * refreshed after every one of them. One implementation per engine beside this file.
 */
import type { AlsoInTx } from '../../lib/write-tx';
import type { AuditEntry, Audited } from '../audit/public';
import type { VariantRow } from '../variants/public';
import type { DeletedLink } from '../webhooks/public';
import type { LinkFilterInput, LinkSort } from './model';
import type { LinkFields, LinkRow } from './table';
import type { Visible } from './visible';

export type { LinkFields, LinkRow };

/** What a redirect needs of a link (the in-memory slug index is built from these). */
export type RedirectRow = Pick<
  LinkRow,
  | 'id'
  | 'slug'
  | 'domainId'
  | 'status'
  | 'destination'
  | 'params'
  | 'expiresAt'
  | 'clickLimit'
  | 'clickCount'
  | 'fallbackUrl'
  | 'redirectStatus'
  | 'forwardQuery'
  | 'passwordHash'
  | 'rules'
  | 'preview'
> & {
  /**
   * What the PostgreSQL click writer names this link's clicks with, as the database holds it
   * (absent on SQLite, whose writer names them in its own transaction): the link's dictionary
   * value and its plain click targets (no variant, code or rule), one per destination and params
   * it was clicked or created with. The slug index keeps the one matching what it serves, so a
   * click carries its ids and the writer looks up neither.
   */
  clickNames?: ClickNames;
};

/** A link's click names on PostgreSQL (RedirectRow.clickNames); 0: none stored. */
export interface ClickNames {
  value: number;
  /** [id, destination (the Location, params applied), params JSON] of each plain target stored. */
  plainTargets: readonly (readonly [number, string, string])[];
}

/** Where a page ends: the sort column's value and the id of the last link shown. */
export interface PageKey {
  value: number;
  id: string;
}

/** The list's filters, and the instant availability is judged at (the injected clock's now). */
export interface LinkFilter extends Omit<LinkFilterInput, 'domain'> {
  now: number;
  /** Only the links on this domain (the host of the query, looked up by the service). */
  domainId?: number;
  /** A limited caller's projects and domains (access/ linkFilter); absent or null: every link. */
  visible?: Visible | null;
}

export interface LinkPage {
  rows: LinkRow[];
  last: PageKey | null;
  more: boolean;
}

/** A link to insert: its row (counters zero) and its tags. */
export interface NewLink {
  row: LinkRow;
  tags: string[];
}

export interface LinkStore {
  find(id: string): Promise<LinkRow | null>;
  /** The rows of these ids that exist, in no particular order. */
  findMany(ids: string[]): Promise<LinkRow[]>;
  /** Whether a link on this domain has this slug (slugs are unique per domain). */
  slugTaken(domainId: number, slug: string): Promise<boolean>;
  /** Which of these addresses are taken, as `<domainId>/<slug>` (many slugTaken in one query). */
  takenSlugs(addresses: readonly { domainId: number; slug: string }[]): Promise<Set<string>>;
  /** The oldest link of each of these destinations (of the links `visible` keeps, when given). */
  idsByDestination(destinations: string[], visible?: Visible | null): Promise<Map<string, string>>;
  /**
   * One page in the sort's total order (sort column, then id), strictly after `after`: a link
   * created meanwhile can never shift the pages, so nothing repeats and nothing is skipped.
   */
  page(filter: LinkFilter, sort: LinkSort, limit: number, after: PageKey | null): Promise<LinkPage>;
  /** How many links the filters match: every page of the list together. */
  count(filter: LinkFilter): Promise<number>;
  /** The tags of each of these links, in tag order (a link without tags has no entry). */
  tagsOf(ids: string[]): Promise<Map<string, string[]>>;
  /** Tags in use with how many links carry each, most used first, then by tag (of the links `visible` keeps). */
  tagCounts(visible: Visible | null): Promise<{ tag: string; count: number }[]>;
  /** Number of links per project id (null: unfiled), archived links included (of the links `visible` keeps). */
  countByProject(visible: Visible | null): Promise<Map<string | null, number>>;
  countInProject(projectId: string, visible: Visible | null): Promise<number>;
  /**
   * The ids of the links `visible` keeps, on this domain when one is given, any status (statistics
   * of a domain, or of a limited caller, sum their scopes: analytics/domain-stats.ts).
   */
  idsWithin(visible: Visible | null, domainId: number | null): Promise<string[]>;
  /** Current slug and title of the links of these ids that exist. */
  names(ids: string[]): Promise<Map<string, { slug: string; title: string | null }>>;
  /** The redirect rows of these ids that exist. */
  redirectRows(ids: string[]): Promise<RedirectRow[]>;
  /** The redirect row of a slug on a domain (slugs are unique per domain), or null. */
  redirectRowBySlug(domainId: number, slug: string): Promise<RedirectRow | null>;
  /** A page of redirect rows in id order, strictly after `afterId` ('' for the first page). */
  redirectPage(afterId: string, limit: number): Promise<RedirectRow[]>;
  /** A page of whole link rows (counters included) in id order, strictly after `afterId` ('' for the first page): the export's. */
  rowPage(afterId: string, limit: number): Promise<LinkRow[]>;
}

/** A bulk insert's answer: the links written, and the destinations found taken inside its transaction. */
export interface BulkInserted {
  inserted: NewLink[];
  /** Destination -> the existing link, for the items skipped because it exists (skipExisting). */
  existing: Map<string, string>;
}

/**
 * The writes of redirect facts. Each is one transaction. Only links/writer.ts calls these (the
 * architecture test link-writes.test.ts holds it), so the slug index learns of every one.
 */
/**
 * Every write also records its events (link.created, link.updated, link.deleted) in its own
 * transaction (webhooks/outbox), at `at`: the time of the write, by the injected clock, and the
 * audit entries it is given (`audit`, modules/audit) in the same transaction.
 */
export interface LinkWrites {
  /** Throws a unique violation when a slug is taken, a foreign-key violation when the project is gone. */
  insert(items: NewLink[], at: number, audit?: Audited): Promise<void>;
  /**
   * Inserts in one transaction that re-checks what may have changed since the items were
   * planned: with `skipExisting`, an item whose destination has a link now (one `visible` keeps,
   * when given: a limited caller is never told of a link it cannot see) is skipped and
   * reported; an item whose slug was taken meanwhile gets `freshSlug()`; a project deleted
   * meanwhile is a foreign-key violation. `audit` is the entry of each link written (its
   * targetId set to the link's): only the store knows which were. `also`, when given, runs last
   * in the same transaction with the links written (another module's rows that commit with them).
   */
  insertBulk(
    items: NewLink[],
    options: { skipExisting: boolean; freshSlug: () => string; visible?: Visible | null; also?: AlsoInTx<NewLink> },
    at: number,
    audit?: AuditEntry | null,
  ): Promise<BulkInserted>;
  /** Changes the fields given of each link; `tags`, when given, replace the link's tags. */
  update(
    updates: { id: string; changes: Partial<LinkFields>; tags?: string[] }[],
    at: number,
    audit?: Audited,
  ): Promise<void>;
  /**
   * Deletes links with their raw clicks and rollups (the workspace's lose their counts) in one
   * transaction; variants, tags and counters go by the foreign keys' cascade.
   */
  delete(deleted: readonly DeletedLink[], at: number, audit?: Audited): Promise<void>;
  insertVariant(row: VariantRow, at: number, audit?: Audited): Promise<void>;
  updateVariant(linkId: string, id: string, changes: Partial<VariantRow>, at: number, audit?: Audited): Promise<void>;
  deleteVariant(linkId: string, id: string, at: number, audit?: Audited): Promise<void>;
}

/**
 * The click limit's count that several processes share (PostgreSQL): a human click on a link
 * with a limit is let through only by raising it below the limit. One process alone (SQLite)
 * has none: its own count in memory is exact (redirect/click-limit-gate.ts).
 */
export interface ClickLimitStore {
  /**
   * Counts one more human click of the link against `limit`, after raising the shared count to
   * `counted` (what the asking process counted itself) and to the link's stored human clicks,
   * each a number of clicks that happened. Resolves with the count after this click, or null
   * when it had reached the limit (nothing counted) or the link is gone.
   */
  reserve(linkId: string, limit: number, counted: number): Promise<number | null>;
}

/** Ids each once, in order. */
export function uniqueIds(ids: Iterable<string>): string[] {
  return [...new Set(ids)];
}
