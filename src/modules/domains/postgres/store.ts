/** The domains store on PostgreSQL. */
import type { Pg } from '../../../db/postgres/client';
import { num } from '../../../db/postgres/client';
import type { DomainRow, DomainStore } from '../store';

export interface PgDomainRow {
  id: number;
  host: string;
  origin: string;
  is_default: boolean;
  root_url: string | null;
  not_found_url: string | null;
  expired_url: string | null;
  upstream: string | null;
  apple_app_site_association: string | null;
  asset_links: string | null;
  last_seen_at: string | null;
  created_at: string;
}

export function toDomainRow(r: PgDomainRow): DomainRow {
  return {
    id: r.id,
    host: r.host,
    origin: r.origin,
    isDefault: r.is_default,
    rootUrl: r.root_url,
    notFoundUrl: r.not_found_url,
    expiredUrl: r.expired_url,
    upstream: r.upstream,
    appleAppSiteAssociation: r.apple_app_site_association,
    assetLinks: r.asset_links,
    lastSeenAt: r.last_seen_at === null ? null : num(r.last_seen_at),
    createdAt: num(r.created_at),
  };
}

/**
 * Announces a change of the domains to every node, inside the writing transaction (several
 * nodes: links/changes.ts; the domains are few, so a node reads them all again).
 */
export type AnnounceDomainChange = (tx: Pg) => Promise<void>;

export function createPostgresDomainStore(sql: Pg, announce: AnnounceDomainChange): DomainStore {
  return {
    async list() {
      const rows = await sql<PgDomainRow[]>`SELECT * FROM domains ORDER BY created_at, id`;
      return rows.map(toDomainRow);
    },
    async ensureDefault(host, origin, now) {
      return sql.begin(async (tx) => {
        // Nodes starting together take turns: the first names or adds the domain, the rest find it.
        await tx`LOCK TABLE domains IN SHARE ROW EXCLUSIVE MODE`;
        const [current] = await tx<{ id: number; origin: string; is_default: boolean }[]>`
          SELECT id, origin, is_default FROM domains WHERE host = ${host}`;
        let id: number;
        let changed = false;
        if (current !== undefined) {
          id = current.id;
          changed = current.origin !== origin || !current.is_default;
          if (changed) await tx`UPDATE domains SET origin = ${origin}, is_default = true WHERE id = ${id}`;
        } else {
          changed = true;
          const [unnamed] = await tx<{ id: number }[]>`SELECT id FROM domains WHERE host = ''`;
          if (unnamed !== undefined) {
            id = unnamed.id;
            await tx`UPDATE domains SET host = ${host}, origin = ${origin}, is_default = true, created_at = ${now}
              WHERE id = ${id}`;
          } else {
            const [added] = await tx<{ id: number }[]>`
              INSERT INTO domains (host, origin, is_default, created_at) VALUES (${host}, ${origin}, true, ${now})
              RETURNING id`;
            id = added!.id;
          }
        }
        const others = await tx`UPDATE domains SET is_default = false WHERE is_default AND id <> ${id}`;
        changed ||= others.count > 0;
        if (changed) await announce(tx);
        return changed;
      });
    },
  };
}
