/** The link list: filters, sorts and keyset paging. */
import { and, asc, desc, eq, inArray, isNull, type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import type { LinkSort } from './model';
import { type LinkRow, links, linkTags } from './table';

/** Where a page ends: the sort column's value and the id of the last link shown. */
export interface PageKey {
  value: number;
  id: string;
}

const SORT_COLUMN = {
  created: links.createdAt,
  oldest: links.createdAt,
  clicks: links.clickCount,
  updated: links.updatedAt,
} as const;

interface LinkFilter {
  q?: string;
  tag?: string;
  project?: string;
  status?: LinkRow['status'];
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
  return where;
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
  const column = SORT_COLUMN[sort];
  const ascending = sort === 'oldest';
  const where = filterConditions(filter);
  if (after) {
    where.push(
      ascending
        ? sql`(${column}, ${links.id}) > (${after.value}, ${after.id})`
        : sql`(${column}, ${links.id}) < (${after.value}, ${after.id})`,
    );
  }
  const order = ascending ? [asc(column), asc(links.id)] : [desc(column), desc(links.id)];
  const found = db
    .select()
    .from(links)
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
