/** The variants store on SQLite. */
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { groupByLink, type VariantRow, type VariantStore } from '../store';
import { variants } from '../table';

export function createSqliteVariantStore(db: Db): VariantStore {
  return {
    async ofLinks(linkIds) {
      if (linkIds.length === 0) return new Map();
      const rows = db
        .select()
        .from(variants)
        .where(inArray(variants.linkId, linkIds))
        .orderBy(asc(variants.createdAt), asc(variants.id))
        .all();
      return groupByLink(rows);
    },
    async find(linkId, variantId) {
      return (
        db
          .select()
          .from(variants)
          .where(and(eq(variants.linkId, linkId), eq(variants.id, variantId)))
          .get() ?? null
      );
    },
    async findByCode(linkId, code) {
      return (
        db
          .select()
          .from(variants)
          .where(and(eq(variants.linkId, linkId), eq(variants.code, code)))
          .get() ?? null
      );
    },
    async codes(linkId) {
      // Plain bun:sqlite: the workspace's statistics read every variant, and need no row objects.
      const sqlite = db.$client;
      const rows =
        linkId === null
          ? sqlite.query<{ id: string; code: string }, []>('SELECT id, code FROM variants').all()
          : sqlite
              .query<{ id: string; code: string }, [string]>('SELECT id, code FROM variants WHERE link_id = ?')
              .all(linkId);
      return new Map(rows.map((r) => [r.id, r.code]));
    },
    async byIds(ids) {
      if (ids.length === 0) return new Map();
      const rows = db.$client
        .query<{ id: string; code: string; linkId: string }, [string]>(
          'SELECT id, code, link_id AS linkId FROM variants WHERE id IN (SELECT value FROM json_each(?))',
        )
        .all(JSON.stringify(ids));
      return new Map(rows.map(({ id, ...variant }) => [id, variant]));
    },
  };
}

// The writes: redirect facts, so only the links store's LinkWrites calls these (links/sqlite/store.ts).

export function insertVariantSqlite(db: Db, row: VariantRow): void {
  db.insert(variants).values(row).run();
}

export function updateVariantSqlite(db: Db, linkId: string, id: string, changes: Partial<VariantRow>): void {
  db.update(variants)
    .set(changes)
    .where(and(eq(variants.linkId, linkId), eq(variants.id, id)))
    .run();
}

export function deleteVariantSqlite(db: Db, linkId: string, id: string): void {
  db.delete(variants)
    .where(and(eq(variants.linkId, linkId), eq(variants.id, id)))
    .run();
}
