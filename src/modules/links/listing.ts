/** The link list: filters, sorts and keyset paging; and how many links the same filters match. */
import { and, asc, count, desc, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { availabilityCondition } from './availability';
import type { LinkFilterInput, LinkSort } from './model';
import { linkRowsFrom, withCounters } from './repo';
import { type LinkRow, linkCounters, links, linkTags } from './table';

/** Where a page ends: the sort column's value and the id of the last link shown. */
export interface PageKey {
  value: number;
  id: string;
}

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

/** The filters, and the instant availability is judged at (the injected clock's now). */
interface LinkFilter extends LinkFilterInput {
  now: number;
}

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function filterConditions(filter: LinkFilter): SQL[] {
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
  return where;
}

/** How many links the filters match: every page of the list together. */
export function countLinkRows(db: Db, filter: LinkFilter): number {
  return (
    withCounters(db, { n: count() })
      .where(and(...filterConditions(filter)))
      .get()?.n ?? 0
  );
}

/**
 * One page in the sort's total order (sort column, then id). Continuing strictly after the
 * last key shown means a link created meanwhile can never shift the pages: nothing repeats
 * and nothing is skipped.
 */
export function listLinkPage(
  db: Db,
  filter: LinkFilter,
  sort: LinkSort,
  limit: number,
  after: PageKey | null,
): { rows: LinkRow[]; last: PageKey | null; more: boolean } {
  const [column, id] = SORT_KEY[sort];
  const ascending = sort === 'oldest';
  const where = filterConditions(filter);
  if (after) {
    where.push(
      ascending
        ? sql`(${column}, ${id}) > (${after.value}, ${after.id})`
        : sql`(${column}, ${id}) < (${after.value}, ${after.id})`,
    );
  }
  const order = ascending ? [asc(column), asc(id)] : [desc(column), desc(id)];
  const found = linkRowsFrom(db)
    .where(and(...where))
    .orderBy(...order)
    .limit(limit + 1)
    .all();
  const more = found.length > limit;
  const rows = more ? found.slice(0, limit) : found;
  const tail = rows.at(-1);
  const last = tail ? { value: sortValue(tail, sort), id: tail.id } : null;
  return { rows, last, more };
}

function sortValue(row: LinkRow, sort: LinkSort): number {
  if (sort === 'clicks') return row.clickCount;
  if (sort === 'updated') return row.updatedAt;
  return row.createdAt;
}
