/** Keyset paging on PostgreSQL: the rows after a page's last key, as SQLite compares them. */

import { type Pg, type PgFragment, storable } from '../../../db/postgres/client';
import type { PageKey } from '../store';

/**
 * The rows past `after` in the order of (`column`, `id`), ascending or descending: `column`
 * compared with `value`, a tie broken by `id`. A cursor's id holding NUL (client.ts, storable)
 * is compared bytewise as SQLite does: a stored id (never with NUL) is below it exactly when it
 * is at most the part before the NUL.
 */
export function pastKey(
  sql: Pg,
  column: PgFragment,
  id: PgFragment,
  value: PgFragment,
  after: PageKey,
  ascending: boolean,
) {
  if (!storable(after.id)) {
    const before = after.id.slice(0, after.id.indexOf('\0'));
    return ascending
      ? sql`(${column} > ${value} OR (${column} = ${value} AND ${id} > ${before}::text))`
      : sql`(${column} < ${value} OR (${column} = ${value} AND ${id} <= ${before}::text))`;
  }
  return ascending
    ? sql`(${column}, ${id}) > (${value}, ${after.id}::text)`
    : sql`(${column}, ${id}) < (${value}, ${after.id}::text)`;
}
