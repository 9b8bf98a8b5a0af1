/** Project queries. */
import { asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { type ProjectRow, projects } from './table';

export function findProject(db: Db, id: string): ProjectRow | undefined {
  return db.select().from(projects).where(eq(projects.id, id)).get();
}

/** Names of these projects by id (nulls skipped), in one query: a page of links shows each link's project name. */
export function projectNames(db: Db, ids: Iterable<string | null>): Map<string, string> {
  const unique = [...new Set(ids)].filter((id) => id !== null);
  if (unique.length === 0) return new Map();
  const rows = db
    .select({ id: projects.id, name: projects.name })
    .from(projects)
    .where(inArray(projects.id, unique))
    .all();
  return new Map(rows.map((r) => [r.id, r.name]));
}

/** Names are unique without regard to (ASCII) case; SQLite's lower() folds both sides alike. */
export function findProjectByName(db: Db, name: string): ProjectRow | undefined {
  return db.select().from(projects).where(sql`lower(${projects.name}) = lower(${name})`).get();
}

export function listProjectRows(db: Db): ProjectRow[] {
  return db
    .select()
    .from(projects)
    .orderBy(asc(sql`lower(${projects.name})`), asc(projects.id))
    .all();
}

export function insertProject(db: Db, row: ProjectRow): void {
  db.insert(projects).values(row).run();
}

export function renameProjectRow(db: Db, id: string, name: string, updatedAt: number): void {
  db.update(projects).set({ name, updatedAt }).where(eq(projects.id, id)).run();
}

export function deleteProjectRow(db: Db, id: string): void {
  db.delete(projects).where(eq(projects.id, id)).run();
}
