/**
 * Read-through's answers remembered by every node (PostgreSQL): a row of `read_through_misses`
 * per (domain, upstream, slug) not to ask again until `until`. A node reads it only for a slug
 * its own memory does not hold, inside the bounded question (never on the path of known slugs),
 * and writes it before answering the visit, so the next visit on any node finds it.
 */
import type { Pg } from '../../../db/postgres/client';
import { num } from '../../../db/postgres/client';
import type { SharedMisses } from './read-through';

/** Expired rows are deleted once every this many rows written (a scan cannot grow the table for long). */
const PRUNE_EVERY = 1000;
/**
 * Rows the table keeps at most after a node's prune (~180 bytes each: ~18 MiB), the soonest to
 * expire dropped first. A scan through many nodes at 200 questions a second each would
 * otherwise keep an hour of them (720,000 rows a node); between two prunes a node adds at most
 * PRUNE_EVERY. A dropped miss is asked of the old service again, as a restart forgets it.
 */
export const MAX_MISSES = 100_000;

export interface SharedMissesOptions {
  pruneEvery?: number;
  maxRows?: number;
}

export function createPostgresSharedMisses(sql: Pg, options: SharedMissesOptions = {}): SharedMisses {
  const pruneEvery = options.pruneEvery ?? PRUNE_EVERY;
  const maxRows = options.maxRows ?? MAX_MISSES;
  let written = 0;
  return {
    async recall(domainId, upstream, slug, now) {
      const [row] = await sql<{ until: string }[]>`SELECT until FROM read_through_misses
        WHERE domain_id = ${domainId} AND slug = ${slug} AND upstream = ${upstream} AND until > ${now}::int8`;
      return row === undefined ? null : num(row.until);
    },
    async remember(domainId, upstream, slug, until, now) {
      // The later of two answers stands (a node that asked again after the earlier one expired).
      await sql`INSERT INTO read_through_misses (domain_id, upstream, slug, until)
        VALUES (${domainId}, ${upstream}, ${slug}, ${until}::int8)
        ON CONFLICT (domain_id, slug, upstream) DO UPDATE SET until = greatest(read_through_misses.until, excluded.until)`;
      if (++written % pruneEvery !== 0) return;
      // The expired rows, and those beyond the newest maxRows: the (maxRows+1)-th latest expiry
      // is read from the `until` index (no count of the table), and every row at or before it goes.
      await sql`DELETE FROM read_through_misses WHERE until <= ${now}::int8
        OR until <= (SELECT until FROM read_through_misses ORDER BY until DESC OFFSET ${maxRows}::int8 LIMIT 1)`;
    },
  };
}
