/**
 * The click limit's shared count on PostgreSQL (migration 0007_click_limits): a row per link
 * with a click limit, the human clicks let through so far. A node lets a human click through
 * only when one statement raises the row below the limit, so nodes that ask together never let
 * more through than the limit between them: PostgreSQL locks the row for each raise in turn.
 */
import { num, type Pg } from '../../../db/postgres/client';
import type { ClickLimitStore } from '../store';

export function createPostgresClickLimitStore(sql: Pg): ClickLimitStore {
  return {
    async reserve(linkId, limit, counted) {
      // The row starts (at the link's first human click under a limit) at the link's stored
      // human clicks, and every raise first lifts it to what was stored or counted since: human
      // clicks let through without it (before the limit was set, while the database could not
      // be reached) then count too, once any node knows of them. Each is a count of clicks that
      // happened, so the row never passes the true count. No row for a link gone (the join).
      const rows = await sql`
        INSERT INTO click_limits AS c (link_id, used)
        SELECT l.id, GREATEST(${counted}::int8, coalesce(k.clicks, 0)) + 1
        FROM links l LEFT JOIN link_counters k ON k.link_id = l.id
        WHERE l.id = ${linkId} AND GREATEST(${counted}::int8, coalesce(k.clicks, 0)) < ${limit}::int8
        ON CONFLICT (link_id) DO UPDATE SET used = GREATEST(c.used, excluded.used - 1) + 1
          WHERE GREATEST(c.used, excluded.used - 1) < ${limit}::int8
        RETURNING c.used`;
      return rows.length === 0 ? null : num(rows[0].used);
    },
  };
}
