/**
 * What the domains module asks of links, per engine (domains/store.ts DomainLinksSqlite and
 * DomainLinksPostgres): how many links each domain holds, and whether one holds any (read inside
 * the transaction that deletes a domain). Given to the domain stores by the composition root.
 */
import { num } from '../../db/postgres/client';
import type { DomainLinksPostgres, DomainLinksSqlite } from '../domains/public';
import { visiblePg, visibleSqlite } from './visible';

export const domainLinksSqlite: DomainLinksSqlite = {
  counts(sqlite, visible) {
    if (visible !== null) {
      const { and, params } = visibleSqlite(visible);
      const rows = sqlite
        .query<{ domain_id: number; n: number }, string[]>(
          `SELECT domain_id, count(*) AS n FROM links WHERE TRUE${and} GROUP BY domain_id`,
        )
        .all(...params);
      return new Map(rows.map((r) => [r.domain_id, r.n]));
    }
    const rows = sqlite
      .query<{ domain_id: number; n: number }, []>('SELECT domain_id, count(*) AS n FROM links GROUP BY domain_id')
      .all();
    return new Map(rows.map((r) => [r.domain_id, r.n]));
  },
  count(sqlite, domainId, visible) {
    const { and, params } = visibleSqlite(visible);
    return (
      sqlite
        .query<{ n: number }, (string | number)[]>(`SELECT count(*) AS n FROM links WHERE domain_id = ?${and}`)
        .get(domainId, ...params)?.n ?? 0
    );
  },
  any(sqlite, domainId) {
    return sqlite.query('SELECT 1 FROM links WHERE domain_id = ? LIMIT 1').get(domainId) !== null;
  },
};

export const domainLinksPostgres: DomainLinksPostgres = {
  async counts(sql, visible) {
    const rows =
      visible === null
        ? await sql<{ domain_id: number; n: string }[]>`
          SELECT domain_id, count(*) AS n FROM links GROUP BY domain_id`
        : await sql<{ domain_id: number; n: string }[]>`
          SELECT domain_id, count(*) AS n FROM links WHERE ${visiblePg(sql, visible)} GROUP BY domain_id`;
    return new Map(rows.map((r) => [r.domain_id, num(r.n)]));
  },
  async count(sql, domainId, visible) {
    const [row] =
      visible === null
        ? await sql<{ n: string }[]>`SELECT count(*) AS n FROM links WHERE domain_id = ${domainId}`
        : await sql<{ n: string }[]>`
          SELECT count(*) AS n FROM links WHERE domain_id = ${domainId} AND ${visiblePg(sql, visible)}`;
    return num(row!.n);
  },
  async any(tx, domainId) {
    const rows = await tx`SELECT 1 FROM links WHERE domain_id = ${domainId} LIMIT 1`;
    return rows.length > 0;
  },
};
