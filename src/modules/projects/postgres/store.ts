/** The projects store on PostgreSQL. */
import type { Pg } from '../../../db/postgres/client';
import { num, storable, storableKeys } from '../../../db/postgres/client';
import { auditCtePostgres, insertAuditPostgres } from '../../audit/public';
import { type ProjectRow, type ProjectStore, projectIdsOf } from '../store';

interface PgProjectRow {
  id: string;
  name: string;
  created_at: string;
  updated_at: string;
}

function toRow(r: PgProjectRow): ProjectRow {
  return { id: r.id, name: r.name, createdAt: num(r.created_at), updatedAt: num(r.updated_at) };
}

/**
 * Unfiles a project's links inside the transaction that deletes it, returning their ids: the
 * links module's statement (it records their events too), given by the composition root.
 */
export type UnfileLinksPostgres = (tx: Pg, projectId: string, now: number) => Promise<string[]>;

export function createPostgresProjectStore(sql: Pg, unfileLinks: UnfileLinksPostgres): ProjectStore {
  return {
    async find(id) {
      if (!storable(id)) return null;
      const [row] = await sql<PgProjectRow[]>`SELECT * FROM projects WHERE id = ${id}`;
      return row ? toRow(row) : null;
    },
    async findByName(name) {
      if (!storable(name)) return null;
      const [row] = await sql<
        PgProjectRow[]
      >`SELECT * FROM projects WHERE slink_ascii_lower(name) = slink_ascii_lower(${name})`;
      return row ? toRow(row) : null;
    },
    async names(ids) {
      const unique = storableKeys(projectIdsOf(ids));
      if (unique.length === 0) return new Map();
      const rows = await sql<{ id: string; name: string }[]>`
        SELECT id, name FROM projects WHERE id = ANY(${sql.array(unique, 'text')}::text[])`;
      return new Map(rows.map((r) => [r.id, r.name]));
    },
    async list() {
      const rows = await sql<PgProjectRow[]>`
        SELECT * FROM projects ORDER BY slink_ascii_lower(name) COLLATE "C", id`;
      return rows.map(toRow);
    },
    // The entry in a WITH of the change's own statement: one statement, one round trip.
    async insert(row, audit) {
      await sql`WITH audit AS (${auditCtePostgres(sql, audit)})
        INSERT INTO projects (id, name, created_at, updated_at)
        VALUES (${row.id}, ${row.name}, ${row.createdAt}, ${row.updatedAt})`;
    },
    async rename(id, name, updatedAt, audit) {
      await sql`WITH renamed AS (UPDATE projects SET name = ${name}, updated_at = ${updatedAt} WHERE id = ${id} RETURNING id),
        audit AS (${auditCtePostgres(sql, audit, sql`EXISTS (SELECT 1 FROM renamed)`)})
        SELECT 1`;
    },
    async deleteUnfiling(id, now, audit) {
      return sql.begin(async (tx) => {
        const unfiled = await unfileLinks(tx, id, now);
        await Promise.all([tx`DELETE FROM projects WHERE id = ${id}`, insertAuditPostgres(tx, audit)]);
        return unfiled;
      });
    },
  };
}
