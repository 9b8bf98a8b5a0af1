/**
 * A caller's limits (access/ linkFilter: project ids, domain ids) as a condition on `links`, per
 * engine: what lists, counts, tags and statistics of a limited caller read. An unlimited caller
 * has no filter (null) and none of these is asked: its statements stay exactly as they were.
 * An empty list matches no link.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Pg, PgFragment } from '../../db/postgres/client';
import type { LinkFilter as Visible } from '../access/public';
import { links } from './table';

export type { Visible };

/** The drizzle conditions (SQLite) of the links a limited caller sees. */
export function visibleConditions(visible: Visible): SQL[] {
  const where: SQL[] = [];
  if (visible.projects !== null) {
    where.push(sql`${links.projectId} IN (SELECT value FROM json_each(${JSON.stringify(visible.projects)}))`);
  }
  if (visible.domains !== null) {
    where.push(sql`${links.domainId} IN (SELECT value FROM json_each(${JSON.stringify(visible.domains)}))`);
  }
  return where;
}

/**
 * The same as text for a plain bun:sqlite statement: ` AND ...` after a WHERE over `links`
 * (columns qualified by `prefix`, e.g. `l.`), and its parameters in order.
 */
export function visibleSqlite(visible: Visible | null, prefix = ''): { and: string; params: string[] } {
  let and = '';
  const params: string[] = [];
  if (visible?.projects != null) {
    and += ` AND ${prefix}project_id IN (SELECT value FROM json_each(?))`;
    params.push(JSON.stringify(visible.projects));
  }
  if (visible?.domains != null) {
    and += ` AND ${prefix}domain_id IN (SELECT value FROM json_each(?))`;
    params.push(JSON.stringify(visible.domains));
  }
  return { and, params };
}

/** The condition on PostgreSQL (columns qualified by `prefix`, e.g. `l.`); TRUE without limits. */
export function visiblePg(sql: Pg, visible: Visible | null, prefix = ''): PgFragment {
  let where = sql`TRUE`;
  if (visible?.projects != null) {
    where = sql`${where} AND ${sql.unsafe(`${prefix}project_id`)} = ANY(${sql.array([...visible.projects], 'text')}::text[])`;
  }
  if (visible?.domains != null) {
    where = sql`${where} AND ${sql.unsafe(`${prefix}domain_id`)} = ANY(${sql.array([...visible.domains], 'int4')}::int4[])`;
  }
  return where;
}
