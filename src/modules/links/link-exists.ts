/**
 * Whether a link exists, on a plain bun:sqlite connection: the export Worker's, which has no
 * drizzle, asks it in the same read transaction as each page it reads (analytics/export-cursor.ts).
 */
import type { Database } from 'bun:sqlite';

export function linkExists(sqlite: Database, id: string): boolean {
  return sqlite.query<{ one: number }, [string]>('SELECT 1 AS one FROM links WHERE id = ?').get(id) !== null;
}
