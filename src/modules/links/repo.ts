/** Link reads and the row -> API mapping. Writes are in writes.ts, the paged list in listing.ts. */
import { asc, count, desc, eq, getTableColumns, gt, inArray, sql } from 'drizzle-orm';
import type { SelectedFields } from 'drizzle-orm/sqlite-core';
import type { Db } from '../../db/client';
import { shortUrlOf } from '../../lib/short-url';
import { projectNames } from '../projects/repo';
import { findVariantsByLinkIds, toVariant } from '../variants/repo';
import { availabilityOf } from './availability';
import type { Link } from './model';
import { type LinkRow, linkCounters, links, linkTags } from './table';

export type { LinkRow };

/** A LinkRow's columns: the link's own and its counters' (select them from linkRowsFrom). */
const linkRowColumns = {
  ...getTableColumns(links),
  clickCount: linkCounters.clicks,
  uniqueCount: linkCounters.uniques,
  botCount: linkCounters.bots,
  lastClickedAt: linkCounters.lastClickedAt,
};

/** A select of `columns` from `links` joined to its counters (every link has its row). */
export function withCounters<C extends SelectedFields>(db: Db, columns: C) {
  return db.select(columns).from(links).innerJoin(linkCounters, eq(linkCounters.linkId, links.id));
}

/** LinkRows: select from here, then filter and order. */
export function linkRowsFrom(db: Db) {
  return withCounters(db, linkRowColumns);
}

export function findLinkRow(db: Db, id: string): LinkRow | undefined {
  return linkRowsFrom(db).where(eq(links.id, id)).get();
}

export function findLinkRows(db: Db, ids: string[]): LinkRow[] {
  if (ids.length === 0) return [];
  return linkRowsFrom(db).where(inArray(links.id, ids)).all();
}

/** The oldest link of each of these destinations. */
export function linkIdsByDestination(db: Db, destinations: string[]): Map<string, string> {
  if (destinations.length === 0) return new Map();
  const rows = db
    .select({ id: links.id, destination: links.destination })
    .from(links)
    .where(sql`${links.destination} IN (SELECT value FROM json_each(${JSON.stringify(destinations)}))`)
    .orderBy(links.createdAt, links.id)
    .all();
  const out = new Map<string, string>();
  for (const r of rows) if (!out.has(r.destination)) out.set(r.destination, r.id);
  return out;
}

/** What a redirect needs of a link (the in-memory slug index is built from these). */
export type RedirectRow = Pick<
  LinkRow,
  'id' | 'slug' | 'status' | 'destination' | 'params' | 'expiresAt' | 'clickLimit' | 'clickCount'
>;

const redirectColumns = {
  id: links.id,
  slug: links.slug,
  status: links.status,
  destination: links.destination,
  params: links.params,
  expiresAt: links.expiresAt,
  clickLimit: links.clickLimit,
  clickCount: linkCounters.clicks,
};

function redirectRowsFrom(db: Db) {
  return withCounters(db, redirectColumns);
}

/** The redirect rows of these ids that exist (the slug index refreshes written links with them). */
export function findRedirectRows(db: Db, ids: string[]): RedirectRow[] {
  if (ids.length === 0) return [];
  return redirectRowsFrom(db).where(inArray(links.id, ids)).all();
}

export function findRedirectRowBySlug(db: Db, slug: string): RedirectRow | undefined {
  return redirectRowsFrom(db).where(eq(links.slug, slug)).get();
}

/** A page of redirect rows in id order, strictly after `afterId` ('' for the first page). */
export function listRedirectRows(db: Db, afterId: string, limit: number): RedirectRow[] {
  return redirectRowsFrom(db).where(gt(links.id, afterId)).orderBy(asc(links.id)).limit(limit).all();
}

export function slugTaken(db: Db, slug: string): boolean {
  // A statement bun:sqlite compiles once and caches (`query`): a bulk create asks 200 times, and
  // building the query through drizzle each time cost ~35 us of the event loop per slug.
  return db.$client.query<unknown, [string]>('SELECT 1 FROM links WHERE slug = ?').get(slug) !== null;
}

/** Current slug and title of the links of these ids that exist (the workspace's top links name them). */
export function linkNamesOf(db: Db, ids: string[]): Map<string, { slug: string; title: string | null }> {
  if (ids.length === 0) return new Map();
  const rows = db.$client
    .query<{ id: string; slug: string; title: string | null }, [string]>(
      'SELECT id, slug, title FROM links WHERE id IN (SELECT value FROM json_each(?))',
    )
    .all(JSON.stringify(ids));
  return new Map(rows.map(({ id, ...names }) => [id, names]));
}

/** The tags of each of these links, in tag order (a link without tags has no entry). */
export function findTagsByLinkIds(db: Db, ids: string[]): Map<string, string[]> {
  const tagsByLink = new Map<string, string[]>();
  if (ids.length === 0) return tagsByLink;
  const tagRows = db.select().from(linkTags).where(inArray(linkTags.linkId, ids)).orderBy(asc(linkTags.tag)).all();
  for (const { linkId, tag } of tagRows) {
    const list = tagsByLink.get(linkId);
    if (list) list.push(tag);
    else tagsByLink.set(linkId, [tag]);
  }
  return tagsByLink;
}

/**
 * Full Link objects for rows: tags, variants and project names fetched in one query each, order
 * kept. The one way a LinkRow becomes a Link, so `availability` is judged in one place, at `now`
 * (the injected clock's, when the request is answered).
 */
export function toLinks(db: Db, shortHost: string, rows: LinkRow[], now: number): Link[] {
  const ids = rows.map((r) => r.id);
  const tagsByLink = findTagsByLinkIds(db, ids);
  const variantsByLink = findVariantsByLinkIds(db, ids);
  const projects = projectNames(
    db,
    rows.map((r) => r.projectId),
  );
  return rows.map((row) => ({
    id: row.id,
    slug: row.slug,
    shortUrl: shortUrlOf(shortHost, row.slug),
    destination: row.destination,
    title: row.title,
    tags: tagsByLink.get(row.id) ?? [],
    status: row.status,
    availability: availabilityOf(row, now),
    params: row.params,
    variants: (variantsByLink.get(row.id) ?? []).map((v) => toVariant(v, shortHost, row.slug)),
    projectId: row.projectId,
    projectName: row.projectId === null ? null : (projects.get(row.projectId) ?? null),
    clickCount: row.clickCount,
    uniqueCount: row.uniqueCount,
    botCount: row.botCount,
    expiresAt: row.expiresAt,
    clickLimit: row.clickLimit,
    lastClickedAt: row.lastClickedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  }));
}

export function countTags(db: Db): { tag: string; count: number }[] {
  return db
    .select({ tag: linkTags.tag, count: count() })
    .from(linkTags)
    .groupBy(linkTags.tag)
    .orderBy(desc(count()), asc(linkTags.tag))
    .all();
}

/** Number of links per project id (null: unfiled), archived links included. */
export function countLinksByProject(db: Db): Map<string | null, number> {
  const rows = db.select({ projectId: links.projectId, n: count() }).from(links).groupBy(links.projectId).all();
  return new Map(rows.map((r) => [r.projectId, r.n]));
}

export function countLinksInProject(db: Db, projectId: string): number {
  return db.select({ n: count() }).from(links).where(eq(links.projectId, projectId)).get()?.n ?? 0;
}
