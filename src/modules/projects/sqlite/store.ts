/** The projects store on SQLite. */
import { asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { insertAuditSqlite } from '../../audit/public';
import { type ProjectStore, projectIdsOf } from '../store';
import { type ProjectRow, projects } from '../table';

/**
 * Unfiles a project's links inside the transaction that deletes it, returning their ids: the
 * links module's statement (it records their events too), given by the composition root.
 */
export type UnfileLinksSqlite = (db: Db, projectId: string, now: number) => string[];

export function createSqliteProjectStore(db: Db, unfileLinks: UnfileLinksSqlite): ProjectStore {
  const find = (id: string): ProjectRow | null => db.select().from(projects).where(eq(projects.id, id)).get() ?? null;
  return {
    async find(id) {
      return find(id);
    },
    async findByName(name) {
      // SQLite's lower() folds ASCII letters only, both sides alike.
      return db.select().from(projects).where(sql`lower(${projects.name}) = lower(${name})`).get() ?? null;
    },
    async names(ids) {
      const unique = projectIdsOf(ids);
      if (unique.length === 0) return new Map();
      const rows = db
        .select({ id: projects.id, name: projects.name })
        .from(projects)
        .where(inArray(projects.id, unique))
        .all();
      return new Map(rows.map((r) => [r.id, r.name]));
    },
    async list() {
      return db
        .select()
        .from(projects)
        .orderBy(asc(sql`lower(${projects.name})`), asc(projects.id))
        .all();
    },
    async insert(row, audit) {
      db.transaction(() => {
        db.insert(projects).values(row).run();
        insertAuditSqlite(db, audit);
      });
    },
    async rename(id, name, updatedAt, audit) {
      db.transaction(() => {
        db.update(projects).set({ name, updatedAt }).where(eq(projects.id, id)).run();
        insertAuditSqlite(db, audit);
      });
    },
    async deleteUnfiling(id, now, audit) {
      return db.transaction(
        () => {
          const unfiled = unfileLinks(db, id, now);
          db.delete(projects).where(eq(projects.id, id)).run();
          insertAuditSqlite(db, audit);
          return unfiled;
        },
        { behavior: 'immediate' },
      );
    },
  };
}
