/**
 * The links list sorted by clicks on PostgreSQL (most first, ties by id, as SQLite's index on
 * `(clicks, link_id)` gives it). `link_counters` has no index on `clicks`, which every fold
 * changes, but one on `(click_rank, link_id)`: a coarse rank of `clicks`, monotone in it, exact
 * below 64 (migrations/0027_click_rank.sql). A page is read in two parts:
 *
 * - ranks from 64 up in `(click_rank, clicks, link_id)` order, the same order as `(clicks,
 *   link_id)` since the rank is monotone: the index gives the ranks in order and the server joins
 *   and sorts each rank's links as it reaches them (hundreds to a few thousand at 100,000 links);
 * - then, to fill the page, the ranks below 64 straight from the index, where equal rank is equal
 *   clicks, so `(click_rank, link_id)` is the order itself and nothing is sorted: the many links
 *   with few clicks (every new link) never make a sort.
 *
 * A cursor (clicks, id) from either part is followed into the right one: below 64 clicks only
 * the second part can hold what follows it.
 */

import type { Pg, PgFragment } from '../../../db/postgres/client';
import type { PageKey } from '../store';
import { pastKey } from './keyset';

/** Ranks below this are click counts themselves (slink_click_rank). */
const EXACT_RANKS = 64;

/**
 * Up to `want` rows matching `where` past `after`, in the click order: `columns` of `links l JOIN
 * link_counters c` (with `l.id` and `c.clicks` among them). Both parts are one statement, so a
 * page is one snapshot: a count that crosses 64 between two reads (a fold, a reset) cannot show a
 * link twice in a page or leave it out.
 */
export async function clickOrderRows<Row>(
  sql: Pg,
  columns: PgFragment,
  where: PgFragment,
  want: number,
  after: PageKey | null,
): Promise<Row[]> {
  const select = (part: number) =>
    sql`SELECT ${columns}, c.click_rank, ${part}::int4 AS part FROM links l JOIN link_counters c ON c.link_id = l.id`;
  let exact = sql`${where} AND c.click_rank < ${EXACT_RANKS}`;
  if (after && after.value < EXACT_RANKS) {
    // Below 64 clicks only the exact ranks can hold what follows the cursor.
    const rank = sql`slink_click_rank(${after.value}::int8)`;
    exact = sql`${exact} AND ${pastKey(sql, sql`c.click_rank`, sql`c.link_id`, rank, after, false)}`;
    return sql<Row[]>`${select(2)} WHERE ${exact} ORDER BY c.click_rank DESC, c.link_id DESC LIMIT ${want}`;
  }
  let coarse = sql`${where} AND c.click_rank >= ${EXACT_RANKS}`;
  if (after) {
    // The rank bound lets the index start at the cursor's rank; the key itself says where in it.
    const value = sql`${after.value}::int8`;
    coarse = sql`${coarse} AND c.click_rank <= slink_click_rank(${value})
      AND ${pastKey(sql, sql`c.clicks`, sql`c.link_id`, value, after, false)}`;
  }
  // Each part ends at `want` rows; the outer order puts the coarse part first (a few hundred rows
  // sorted at most).
  return sql<Row[]>`SELECT * FROM (
      (${select(1)} WHERE ${coarse} ORDER BY c.click_rank DESC, c.clicks DESC, c.link_id DESC LIMIT ${want})
      UNION ALL
      (${select(2)} WHERE ${exact} ORDER BY c.click_rank DESC, c.link_id DESC LIMIT ${want})
    ) AS page ORDER BY part, click_rank DESC, clicks DESC, id DESC LIMIT ${want}`;
}
