/**
 * Link reads on a SQLite connection for the statistics, which still read SQLite directly
 * (analytics/service.ts); everything else reads links through the store (store.ts).
 */
import type { Db } from '../../db/client';

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
