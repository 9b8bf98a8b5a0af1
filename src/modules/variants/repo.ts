/** Variant queries and the row -> API mapping. Writes take a LinkWrite: they change redirect facts. */
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { shortUrlOf } from '../../lib/short-url';
import type { LinkWrite } from '../links/writes';
import type { Variant } from './model';
import { type VariantRow, variants } from './table';

export type { VariantRow };

export function toVariant(row: VariantRow, shortHost: string, slug: string): Variant {
  return {
    id: row.id,
    code: row.code,
    url: shortUrlOf(shortHost, slug, row.code),
    params: row.params,
    clickCount: row.clickCount,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** Variants of many links at once, oldest first, grouped by link id (one query per page). */
export function findVariantsByLinkIds(db: Db, linkIds: string[]): Map<string, VariantRow[]> {
  const byLink = new Map<string, VariantRow[]>();
  if (linkIds.length === 0) return byLink;
  const rows = db
    .select()
    .from(variants)
    .where(inArray(variants.linkId, linkIds))
    .orderBy(asc(variants.createdAt), asc(variants.id))
    .all();
  for (const row of rows) {
    const list = byLink.get(row.linkId);
    if (list) list.push(row);
    else byLink.set(row.linkId, [row]);
  }
  return byLink;
}

export function findVariant(db: Db, linkId: string, variantId: string): VariantRow | undefined {
  return db
    .select()
    .from(variants)
    .where(and(eq(variants.linkId, linkId), eq(variants.id, variantId)))
    .get();
}

export function findVariantByCode(db: Db, linkId: string, code: string): VariantRow | undefined {
  return db
    .select()
    .from(variants)
    .where(and(eq(variants.linkId, linkId), eq(variants.code, code)))
    .get();
}

export function insertVariant(w: LinkWrite, row: VariantRow): void {
  w.touch(row.linkId);
  w.db.insert(variants).values(row).run();
}

export function updateVariantRow(w: LinkWrite, linkId: string, id: string, changes: Partial<VariantRow>): void {
  w.touch(linkId);
  w.db
    .update(variants)
    .set(changes)
    .where(and(eq(variants.linkId, linkId), eq(variants.id, id)))
    .run();
}

export function deleteVariantRow(w: LinkWrite, linkId: string, id: string): void {
  w.touch(linkId);
  w.db
    .delete(variants)
    .where(and(eq(variants.linkId, linkId), eq(variants.id, id)))
    .run();
}

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
