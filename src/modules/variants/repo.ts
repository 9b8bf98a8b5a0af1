/**
 * Variant reads on a SQLite connection for the statistics, which still read SQLite directly
 * (analytics/service.ts); everything else reads variants through the store (store.ts).
 */
import type { Db } from '../../db/client';

/**
 * Current code of every variant id (of one link, or of all links), for the statistics. Plain
 * bun:sqlite: the workspace's statistics read every variant, and need no row objects.
 */
export function variantCodes(db: Db, linkId: string | null): Map<string, string> {
  const sqlite = db.$client;
  const rows =
    linkId === null
      ? sqlite.query<{ id: string; code: string }, []>('SELECT id, code FROM variants').all()
      : sqlite
          .query<{ id: string; code: string }, [string]>('SELECT id, code FROM variants WHERE link_id = ?')
          .all(linkId);
  return new Map(rows.map((r) => [r.id, r.code]));
}

/**
 * The current code and link of the variants of these ids that exist: what the statistics name
 * a variant's clicks with. Plain bun:sqlite, one query for the variants a window's buckets
 * hold (not every variant of the workspace).
 */
export function variantsByIds(db: Db, ids: string[]): Map<string, { code: string; linkId: string }> {
  if (ids.length === 0) return new Map();
  const rows = db.$client
    .query<{ id: string; code: string; linkId: string }, [string]>(
      'SELECT id, code, link_id AS linkId FROM variants WHERE id IN (SELECT value FROM json_each(?))',
    )
    .all(JSON.stringify(ids));
  return new Map(rows.map(({ id, ...variant }) => [id, variant]));
}
