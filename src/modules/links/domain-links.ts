/**
 * What the domains module asks of links, per engine: how many links each domain holds, and
 * whether one holds any (read inside the transaction that deletes a domain, so a link added
 * meanwhile is seen). Given to the domain stores by the composition root: domains name no links
 * table of their own.
 */
import type { Database } from 'bun:sqlite';
import type { Pg } from '../../db/postgres/client';
import { num } from '../../db/postgres/client';

export interface DomainLinksSqlite {
  /** Links per domain id (domains without links absent). */
  counts(sqlite: Database): Map<number, number>;
  count(sqlite: Database, domainId: number): number;
  /** Whether any link is on the domain (the index on (domain_id, slug) answers at once). */
  any(sqlite: Database, domainId: number): boolean;
}

export interface DomainLinksPostgres {
  counts(sql: Pg): Promise<Map<number, number>>;
  count(sql: Pg, domainId: number): Promise<number>;
  any(tx: Pg, domainId: number): Promise<boolean>;
}

export const domainLinksSqlite: DomainLinksSqlite = {
  counts(sqlite) {
    const rows = sqlite
      .query<{ domain_id: number; n: number }, []>('SELECT domain_id, count(*) AS n FROM links GROUP BY domain_id')
      .all();
    return new Map(rows.map((r) => [r.domain_id, r.n]));
  },
  count(sqlite, domainId) {
    return (
      sqlite.query<{ n: number }, [number]>('SELECT count(*) AS n FROM links WHERE domain_id = ?').get(domainId)?.n ?? 0
    );
  },
  any(sqlite, domainId) {
    return sqlite.query('SELECT 1 FROM links WHERE domain_id = ? LIMIT 1').get(domainId) !== null;
  },
};

export const domainLinksPostgres: DomainLinksPostgres = {
  async counts(sql) {
    const rows = await sql<{ domain_id: number; n: string }[]>`
      SELECT domain_id, count(*) AS n FROM links GROUP BY domain_id`;
    return new Map(rows.map((r) => [r.domain_id, num(r.n)]));
  },
  async count(sql, domainId) {
    const [row] = await sql<{ n: string }[]>`SELECT count(*) AS n FROM links WHERE domain_id = ${domainId}`;
    return num(row!.n);
  },
  async any(tx, domainId) {
    const rows = await tx`SELECT 1 FROM links WHERE domain_id = ${domainId} LIMIT 1`;
    return rows.length > 0;
  },
};
