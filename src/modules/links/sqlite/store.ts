/** The links store on SQLite: reads (drizzle), and the writes of redirect facts in IMMEDIATE transactions. */
import type { Database } from 'bun:sqlite';
import { and, asc, count, desc, eq, getTableColumns, gt, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { SelectedFields } from 'drizzle-orm/sqlite-core';
import type { Db } from '../../../db/client';
import type { WriteTx } from '../../../lib/write-tx';
import { entriesFor, insertAuditSqlite } from '../../audit/public';
import { deleteVariantSqlite, insertVariantSqlite, updateVariantSqlite, type VariantRow } from '../../variants/public';
import { linkDeletedEvents, linkEvents, type NewEvent, recordEventsSqlite } from '../../webhooks/public';
import { availabilityCondition } from '../availability';
import { pageOf } from '../page';
import type { LinkFilter, LinkStore, LinkWrites, NewLink, RedirectRow } from '../store';
import { linkCounters, links, linkTags } from '../table';
import { type Visible, visibleConditions, visibleSqlite } from '../visible';
import { announceLinkChangesSqlite } from './changes';

/** A LinkRow's columns: the link's own and its counters'. */
const linkRowColumns = {
  ...getTableColumns(links),
  clickCount: linkCounters.clicks,
  uniqueCount: linkCounters.uniques,
  botCount: linkCounters.bots,
  lastClickedAt: linkCounters.lastClickedAt,
  fallbackCount: linkCounters.fallbackVisits,
  importedSource: linkCounters.importedSource,
  importedAt: linkCounters.importedAt,
  importedHistory: linkCounters.importedHistory,
  importedClicks: linkCounters.importedClicks,
};

const redirectColumns = {
  id: links.id,
  slug: links.slug,
  domainId: links.domainId,
  status: links.status,
  destination: links.destination,
  params: links.params,
  expiresAt: links.expiresAt,
  clickLimit: links.clickLimit,
  clickCount: linkCounters.clicks,
  fallbackUrl: links.fallbackUrl,
  redirectStatus: links.redirectStatus,
  forwardQuery: links.forwardQuery,
  passwordHash: links.passwordHash,
  rules: links.rules,
  preview: links.preview,
};

/**
 * Each sort's column and the id it ends in, both of one table so that its index
 * (links_created_idx, links_updated_idx, link_counters_clicks_idx) gives the order and no sort
 * is needed: the clicks are in link_counters, whose link_id is the link's id.
 */
const SORT_KEY = {
  created: [links.createdAt, links.id],
  oldest: [links.createdAt, links.id],
  clicks: [linkCounters.clicks, linkCounters.linkId],
  updated: [links.updatedAt, links.id],
} as const;

/** A select of `columns` from `links` joined to its counters (every link has its row). */
function withCounters<C extends SelectedFields>(db: Db, columns: C) {
  return db.select(columns).from(links).innerJoin(linkCounters, eq(linkCounters.linkId, links.id));
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * The list filtered by domain: a domain holding at most this many links is read through its own
 * index and its links sorted (a few ms); a larger one is a filter on the walk of the sort's
 * index, which finds a page after some thousands of rows at most. Measured on 100,000 links, the
 * wrong way round costs a domain of 10 links 74-100 ms a page (1.1 s sorted by clicks, whose
 * index is link_counters'), a domain of 95,000 links 0.4-0.5 s a page; this way every sort of
 * either, and of a domain of 5,000, answers in 0.4-2.2 ms (p50), as the unfiltered list does.
 */
const SMALL_DOMAIN = 2000;

/**
 * SQLite's LIKE ignores the case of ASCII letters, as the list's search promises. `domainIndexed`:
 * the domain condition may use the domain's index (a small domain, or a count: no order to keep).
 */
function filterConditions(filter: LinkFilter, domainIndexed = true): SQL[] {
  const where: SQL[] = [];
  where.push(filter.status ? eq(links.status, filter.status) : inArray(links.status, ['active', 'paused']));
  if (filter.q) {
    const pattern = `%${escapeLike(filter.q)}%`;
    where.push(
      sql`(${links.slug} LIKE ${pattern} ESCAPE '\\' OR ${links.title} LIKE ${pattern} ESCAPE '\\' OR ${links.destination} LIKE ${pattern} ESCAPE '\\')`,
    );
  }
  if (filter.tag !== undefined) {
    where.push(
      sql`EXISTS (SELECT 1 FROM ${linkTags} WHERE ${linkTags.linkId} = ${links.id} AND ${linkTags.tag} = ${filter.tag})`,
    );
  }
  if (filter.project === 'none') where.push(isNull(links.projectId));
  else if (filter.project !== undefined) where.push(eq(links.projectId, filter.project));
  if (filter.availability !== undefined) where.push(availabilityCondition(filter.availability, filter.now));
  // Unary plus: a filter on the walk of the sort's index, not an index to walk. Left to itself,
  // SQLite takes links_domain_slug_unique for the equality and sorts all the domain's links.
  if (filter.domainId !== undefined) {
    where.push(domainIndexed ? eq(links.domainId, filter.domainId) : sql`+${links.domainId} = ${filter.domainId}`);
  }
  if (filter.visible) where.push(...visibleConditions(filter.visible));
  return where;
}

/** The oldest link of each of these destinations, of the links `visible` keeps (all without it). */
function oldestByDestination(db: Db, destinations: string[], visible: Visible | null | undefined): Map<string, string> {
  const found = db
    .select({ id: links.id, destination: links.destination })
    .from(links)
    .where(
      and(
        sql`${links.destination} IN (SELECT value FROM json_each(${JSON.stringify(destinations)}))`,
        ...(visible ? visibleConditions(visible) : []),
      ),
    )
    .orderBy(links.createdAt, links.id)
    .all();
  const out = new Map<string, string>();
  for (const r of found) if (!out.has(r.destination)) out.set(r.destination, r.id);
  return out;
}

/** `links.id IN` the ids given as one JSON array (the `ids` placeholder): one statement whatever their number. */
const idsIn = sql`${links.id} IN (SELECT value FROM json_each(${sql.placeholder('ids')}))`;

export function createSqliteLinkStore(db: Db): LinkStore {
  const rows = () => withCounters(db, linkRowColumns);
  const redirectRows = () => withCounters(db, redirectColumns);
  // Links read by id after every write (the slug index, the events' Links): prepared once, at the
  // first read (the store is made before the file is migrated), not built and prepared each time.
  const byIds = () => rows().where(idsIn).prepare();
  const redirectByIds = () => redirectRows().where(idsIn).prepare();
  let rowsById: ReturnType<typeof byIds> | null = null;
  let redirectRowsById: ReturnType<typeof redirectByIds> | null = null;
  return {
    async find(id) {
      return rows().where(eq(links.id, id)).get() ?? null;
    },
    async findMany(ids) {
      if (ids.length === 0) return [];
      rowsById ??= byIds();
      return rowsById.all({ ids: JSON.stringify(ids) });
    },
    async slugTaken(domainId, slug) {
      return (
        db
          .select({ id: links.id })
          .from(links)
          .where(and(eq(links.domainId, domainId), eq(links.slug, slug)))
          .get() !== undefined
      );
    },
    async takenSlugs(addresses) {
      const taken = new Set<string>();
      // Per domain, so the (domain, slug) index is searched: `slug IN` alone scanned every link.
      const byDomain = new Map<number, string[]>();
      for (const a of addresses) {
        const slugs = byDomain.get(a.domainId);
        if (slugs === undefined) byDomain.set(a.domainId, [a.slug]);
        else slugs.push(a.slug);
      }
      for (const [domainId, slugs] of byDomain) {
        const rows = db
          .select({ slug: links.slug })
          .from(links)
          .where(and(eq(links.domainId, domainId), inArray(links.slug, slugs)))
          .all();
        for (const r of rows) taken.add(`${domainId}/${r.slug}`);
      }
      return taken;
    },
    async idsByDestination(destinations, visible) {
      if (destinations.length === 0) return new Map();
      return oldestByDestination(db, destinations, visible);
    },
    async page(filter, sort, limit, after) {
      const [column, id] = SORT_KEY[sort];
      const ascending = sort === 'oldest';
      const small =
        filter.domainId !== undefined &&
        db.$client
          .query<{ n: number }, [number, number]>(
            'SELECT count(*) AS n FROM (SELECT 1 FROM links WHERE domain_id = ? LIMIT ?)',
          )
          .get(filter.domainId, SMALL_DOMAIN + 1)!.n <= SMALL_DOMAIN;
      const where = filterConditions(filter, small);
      if (after) {
        where.push(
          ascending
            ? sql`(${column}, ${id}) > (${after.value}, ${after.id})`
            : sql`(${column}, ${id}) < (${after.value}, ${after.id})`,
        );
      }
      const order = ascending ? [asc(column), asc(id)] : [desc(column), desc(id)];
      const found = rows()
        .where(and(...where))
        .orderBy(...order)
        .limit(limit + 1)
        .all();
      return pageOf(found, sort, limit);
    },
    async count(filter) {
      return (
        withCounters(db, { n: count() })
          .where(and(...filterConditions(filter)))
          .get()?.n ?? 0
      );
    },
    async tagsOf(ids) {
      const tagsByLink = new Map<string, string[]>();
      if (ids.length === 0) return tagsByLink;
      const tagRows = db.select().from(linkTags).where(inArray(linkTags.linkId, ids)).orderBy(asc(linkTags.tag)).all();
      for (const { linkId, tag } of tagRows) {
        const list = tagsByLink.get(linkId);
        if (list) list.push(tag);
        else tagsByLink.set(linkId, [tag]);
      }
      return tagsByLink;
    },
    async tagCounts(visible) {
      if (visible) {
        return db
          .select({ tag: linkTags.tag, count: count() })
          .from(linkTags)
          .innerJoin(links, eq(links.id, linkTags.linkId))
          .where(and(...visibleConditions(visible)))
          .groupBy(linkTags.tag)
          .orderBy(desc(count()), asc(linkTags.tag))
          .all();
      }
      return db
        .select({ tag: linkTags.tag, count: count() })
        .from(linkTags)
        .groupBy(linkTags.tag)
        .orderBy(desc(count()), asc(linkTags.tag))
        .all();
    },
    async countByProject(visible) {
      const found = db
        .select({ projectId: links.projectId, n: count() })
        .from(links)
        .where(visible ? and(...visibleConditions(visible)) : undefined)
        .groupBy(links.projectId)
        .all();
      return new Map(found.map((r) => [r.projectId, r.n]));
    },
    async countInProject(projectId, visible) {
      return (
        db
          .select({ n: count() })
          .from(links)
          .where(and(eq(links.projectId, projectId), ...(visible ? visibleConditions(visible) : [])))
          .get()?.n ?? 0
      );
    },
    async idsWithin(visible, domainId) {
      const { and: limits, params } = visibleSqlite(visible);
      const where = `${domainId === null ? 'TRUE' : 'domain_id = ?'}${limits}`;
      return db.$client
        .query<{ id: string }, (string | number)[]>(`SELECT id FROM links WHERE ${where}`)
        .all(...(domainId === null ? params : [domainId, ...params]))
        .map((r) => r.id);
    },
    async names(ids) {
      if (ids.length === 0) return new Map();
      const found = db.$client
        .query<{ id: string; slug: string; title: string | null }, [string]>(
          'SELECT id, slug, title FROM links WHERE id IN (SELECT value FROM json_each(?))',
        )
        .all(JSON.stringify(ids));
      return new Map(found.map(({ id, ...names }) => [id, names]));
    },
    async redirectRows(ids) {
      if (ids.length === 0) return [];
      redirectRowsById ??= redirectByIds();
      return redirectRowsById.all({ ids: JSON.stringify(ids) });
    },
    async redirectRowBySlug(domainId, slug) {
      return (
        redirectRows()
          .where(and(eq(links.domainId, domainId), eq(links.slug, slug)))
          .get() ?? null
      );
    },
    async redirectPage(afterId, limit) {
      return redirectRows().where(gt(links.id, afterId)).orderBy(asc(links.id)).limit(limit).all();
    },
    async rowPage(afterId, limit) {
      return rows().where(gt(links.id, afterId)).orderBy(asc(links.id)).limit(limit).all();
    },
  };
}

type Value = string | number | null;

/**
 * Each link with its counters row (every link has exactly one) and its tags. Through statements
 * bun:sqlite compiles once and caches (`query`): row by row through drizzle a link cost ~170 us
 * inside the write transaction, and a 200-line bulk create held the event loop and the write
 * lock ~50 ms for its inserts alone, against 12-22 ms this way (docs/performance.md, "Bulk create").
 */
function insertLinks(db: Db, items: NewLink[]): void {
  const sqlite = db.$client;
  const insertLink = sqlite.query<unknown, Value[]>(
    `INSERT INTO links (id, slug, domain_id, destination, title, status, params, project_id, expires_at, click_limit,
      fallback_url, redirect_status, forward_query, password_hash, rules, preview, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertCounters = sqlite.query<unknown, Value[]>(
    'INSERT INTO link_counters (link_id, clicks, uniques, bots, last_clicked_at, fallback_visits) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (const { row, tags } of items) {
    insertLink.run(
      row.id,
      row.slug,
      row.domainId,
      row.destination,
      row.title,
      row.status,
      JSON.stringify(row.params),
      row.projectId,
      row.expiresAt,
      row.clickLimit,
      row.fallbackUrl,
      row.redirectStatus,
      row.forwardQuery ? 1 : 0,
      row.passwordHash,
      jsonOrNull(row.rules),
      jsonOrNull(row.preview),
      row.createdAt,
      row.updatedAt,
    );
    insertCounters.run(row.id, row.clickCount, row.uniqueCount, row.botCount, row.lastClickedAt, row.fallbackCount);
    insertTags(db, row.id, tags);
  }
}

function jsonOrNull(value: unknown): string | null {
  return value === null ? null : JSON.stringify(value);
}

function insertTags(db: Db, linkId: string, tags: string[]): void {
  const insert = db.$client.query<unknown, [string, string]>('INSERT INTO link_tags (link_id, tag) VALUES (?, ?)');
  for (const tag of tags) insert.run(linkId, tag);
}

/** One IMMEDIATE transaction: the write lock first, so the click writer's connection cannot make it fail halfway. */
function immediate<T>(db: Db, write: () => T): T {
  return db.transaction(write, { behavior: 'immediate' });
}

/**
 * What else goes with a deleted link, inside the delete's transaction: its rollups and its raw
 * clicks (the rollups' and the clicks modules' own statements, given by the composition root so
 * that links import neither).
 */
export type DeleteLinkDataSqlite = (sqlite: Database, linkId: string) => void;

/**
 * `instance` names this process in the change feed (sqlite/changes.ts): every write announces
 * the links its events name, so another process on the same file (a running service) learns of it.
 */
export function createSqliteLinkWrites(db: Db, deleteLinkData: DeleteLinkDataSqlite, instance: string): LinkWrites {
  const record = (events: NewEvent[], at: number) => {
    recordEventsSqlite(db.$client, events, at);
    announceLinkChangesSqlite(
      db.$client,
      instance,
      events.flatMap((e) => (e.linkId === null ? [] : [e.linkId])),
    );
  };
  const ids = (items: NewLink[]) => items.map((i) => i.row.id);
  return {
    async insert(items, at, audit) {
      immediate(db, () => {
        insertLinks(db, items);
        record(linkEvents('link.created', ids(items)), at);
        insertAuditSqlite(db, audit);
      });
    },
    async insertBulk(items, { skipExisting, freshSlug, visible, also }, at, audit) {
      return immediate(db, () => {
        let existing = new Map<string, string>();
        let writing = items;
        if (skipExisting) {
          existing = oldestByDestination(
            db,
            items.map((i) => i.row.destination),
            visible,
          );
          writing = items.filter((i) => !existing.has(i.row.destination));
        }
        const taken = db.$client.query<{ one: number }, [number, string]>(
          'SELECT 1 AS one FROM links WHERE domain_id = ? AND slug = ?',
        );
        for (const item of writing) {
          while (taken.get(item.row.domainId, item.row.slug) !== null) item.row.slug = freshSlug();
        }
        insertLinks(db, writing);
        record(linkEvents('link.created', ids(writing)), at);
        if (audit) insertAuditSqlite(db, entriesFor(audit, ids(writing)));
        if (also && also(db as unknown as WriteTx, writing) instanceof Promise)
          throw new Error('a SQLite transaction cannot wait: its `also` must write before it returns');
        return { inserted: writing, existing };
      });
    },
    async update(updates, at, audit) {
      immediate(db, () => {
        insertAuditSqlite(db, audit);
        record(
          linkEvents(
            'link.updated',
            updates.map((u) => u.id),
          ),
          at,
        );
        for (const { id, changes, tags } of updates) {
          if (Object.keys(changes).length) db.update(links).set(changes).where(eq(links.id, id)).run();
          if (tags) {
            db.delete(linkTags).where(eq(linkTags.linkId, id)).run();
            insertTags(db, id, tags);
          }
        }
      });
    },
    async delete(deleted, at, audit) {
      immediate(db, () => {
        record(linkDeletedEvents(deleted), at);
        insertAuditSqlite(db, audit);
        for (const { id } of deleted) {
          // Its rollups leave the workspace's and its raw clicks go in the same transaction, so
          // workspace statistics never count a link that no longer exists.
          deleteLinkData(db.$client, id);
          db.delete(links).where(eq(links.id, id)).run();
        }
      });
    },
    async insertVariant(row, at, audit) {
      immediate(db, () => {
        insertAuditSqlite(db, audit);
        insertVariantSqlite(db, row);
        record(linkEvents('link.updated', [row.linkId]), at);
      });
    },
    async updateVariant(linkId, id, changes, at, audit) {
      immediate(db, () => {
        insertAuditSqlite(db, audit);
        updateVariantSqlite(db, linkId, id, changes);
        record(linkEvents('link.updated', [linkId]), at);
      });
    },
    async deleteVariant(linkId, id, at, audit) {
      immediate(db, () => {
        insertAuditSqlite(db, audit);
        deleteVariantSqlite(db, linkId, id);
        record(linkEvents('link.updated', [linkId]), at);
      });
    },
  };
}

/**
 * Moves every link of a project to unfiled (updatedAt `now`), inside the caller's transaction
 * (projects/sqlite/store.ts deletes the project in the same one). Returns the links moved.
 */
export function unfileProjectLinksSqlite(db: Db, projectId: string, now: number): string[] {
  const moving = db.select({ id: links.id }).from(links).where(eq(links.projectId, projectId)).all();
  db.update(links).set({ projectId: null, updatedAt: now }).where(eq(links.projectId, projectId)).run();
  const ids = moving.map((r) => r.id);
  recordEventsSqlite(db.$client, linkEvents('link.updated', ids), now);
  return ids;
}

export type { RedirectRow, VariantRow };
