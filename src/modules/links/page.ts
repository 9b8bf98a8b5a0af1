/** A page of the link list, the same on both engines: the sort key of a row, where a page ends. */

import type { LinkSort } from './model';
import type { PageKey } from './store';
import type { LinkRow } from './table';

export function sortValue(row: LinkRow, sort: LinkSort): number {
  if (sort === 'clicks') return row.clickCount;
  if (sort === 'updated') return row.updatedAt;
  return row.createdAt;
}

/** The page of `limit` rows out of `limit + 1` found, and where it ends. */
export function pageOf(found: LinkRow[], sort: LinkSort, limit: number) {
  const more = found.length > limit;
  const page = more ? found.slice(0, limit) : found;
  const tail = page.at(-1);
  const last: PageKey | null = tail ? { value: sortValue(tail, sort), id: tail.id } : null;
  return { rows: page, last, more };
}
