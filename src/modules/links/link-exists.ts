/**
 * Whether a link exists, for the export. On a plain bun:sqlite connection: the export Worker's, which has no
 * drizzle, asks it in the same read transaction as each page it reads (analytics/export-cursor.ts).
 */
import type { Database } from 'bun:sqlite';
import type { Pg, PgFragment } from '../../db/postgres/client';

export function linkExists(sqlite: Database, id: string): boolean {
  return sqlite.query<{ one: number }, [string]>('SELECT 1 AS one FROM links WHERE id = ?').get(id) !== null;
}

/**
 * The same on PostgreSQL, as a condition to place inside another statement (the export's page,
 * clicks/postgres/read-clicks.ts), so the link is looked up in the snapshot its page is read in.
 */
export function linkExistsCondition(sql: Pg, id: string): PgFragment {
  return sql`EXISTS (SELECT 1 FROM links WHERE id = ${id})`;
}
