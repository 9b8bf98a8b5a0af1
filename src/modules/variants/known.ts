/**
 * Which of these variant ids still name a variant, read inside another module's transaction (a
 * click batch's, for its `clicks` events' `variantKnown`), on the caller's connection.
 */
import type { Database } from 'bun:sqlite';
import type { Pg } from '../../db/postgres/client';

export function knownVariantsSqlite(sqlite: Database, ids: readonly string[]): Set<string> {
  if (ids.length === 0) return new Set();
  const rows = sqlite
    .query<{ id: string }, [string]>('SELECT id FROM variants WHERE id IN (SELECT value FROM json_each(?))')
    .all(JSON.stringify(ids));
  return new Set(rows.map((r) => r.id));
}

export async function knownVariantsPostgres(tx: Pg, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await tx<
    { id: string }[]
  >`SELECT id FROM variants WHERE id = ANY(${tx.array([...ids], 'text')}::text[])`;
  return new Set(rows.map((r) => r.id));
}

/** A link's variants, code to id (an import's clicks name their variant by its code). */
export function linkVariantsSqlite(sqlite: Database, linkId: string): Map<string, string> {
  const rows = sqlite
    .query<{ code: string; id: string }, [string]>('SELECT code, id FROM variants WHERE link_id = ?')
    .all(linkId);
  return new Map(rows.map((r) => [r.code, r.id]));
}

/** PostgreSQL: the variants of these links, code to id, by link (one query). */
export async function linkVariantsPostgres(
  sql: Pg,
  linkIds: readonly string[],
): Promise<Map<string, Map<string, string>>> {
  const out = new Map<string, Map<string, string>>();
  if (linkIds.length === 0) return out;
  const rows = await sql<{ link_id: string; code: string; id: string }[]>`
    SELECT link_id, code, id FROM variants WHERE link_id = ANY(${sql.array([...new Set(linkIds)], 'text')}::text[])`;
  for (const r of rows) {
    const codes = out.get(r.link_id) ?? new Map<string, string>();
    codes.set(r.code, r.id);
    out.set(r.link_id, codes);
  }
  return out;
}
