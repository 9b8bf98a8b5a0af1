/** The domains store on PostgreSQL. */
import type { Pg } from '../../../db/postgres/client';
import { isForeignKeyViolation } from '../../../db/storage';
import { insertAuditPostgres } from '../../audit/public';
import {
  type DomainLinksPostgres,
  type DomainRow,
  type DomainSettings,
  type DomainStore,
  domainRowOf,
  SETTING_COLUMNS,
  type StoredDomain,
} from '../store';

/**
 * Announces a change of the domains to every node, inside the writing transaction (several
 * nodes: links/changes.ts; the domains are few, so a node reads them all again).
 */
export type AnnounceDomainChange = (tx: Pg) => Promise<void>;

/** Every domain, oldest first, read on `sql` (a connection or a caller's transaction). */
export async function listDomainsPostgres(sql: Pg): Promise<DomainRow[]> {
  const rows = await sql<StoredDomain[]>`SELECT * FROM domains ORDER BY created_at, id`;
  return rows.map(domainRowOf);
}

export function createPostgresDomainStore(
  sql: Pg,
  announce: AnnounceDomainChange,
  links: DomainLinksPostgres,
): DomainStore {
  return {
    async list() {
      return listDomainsPostgres(sql);
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
    async insert(domain, audit) {
      return sql.begin(async (tx) => {
        const [row] = await tx<StoredDomain[]>`
          INSERT INTO domains (host, origin, is_default, root_url, not_found_url, expired_url, upstream,
            apple_app_site_association, asset_links, created_at)
          VALUES (${domain.host}, ${domain.origin}, false, ${domain.rootUrl ?? null}, ${domain.notFoundUrl ?? null},
            ${domain.expiredUrl ?? null}, ${domain.upstream ?? null}, ${domain.appleAppSiteAssociation ?? null},
            ${domain.assetLinks ?? null}, ${domain.createdAt})
          RETURNING *`;
        await Promise.all([announce(tx), insertAuditPostgres(tx, audit)]);
        return domainRowOf(row!);
      });
    },
    async update(id, changes: Partial<DomainSettings>, audit) {
      const set: Record<string, string | null> = {};
      for (const [field, value] of Object.entries(changes))
        set[SETTING_COLUMNS[field as keyof DomainSettings]] = value ?? null;
      return sql.begin(async (tx) => {
        const rows =
          Object.keys(set).length === 0
            ? await tx<StoredDomain[]>`SELECT * FROM domains WHERE id = ${id}`
            : await tx<StoredDomain[]>`UPDATE domains SET ${tx(set)} WHERE id = ${id} RETURNING *`;
        if (rows.length === 0) return null;
        if (Object.keys(set).length > 0) await Promise.all([announce(tx), insertAuditPostgres(tx, audit)]);
        return domainRowOf(rows[0]!);
      });
    },
    async delete(id, audit) {
      try {
        return await sql.begin(async (tx) => {
          // The row locked first: a link being added to it (its foreign key's share lock) waits, then fails.
          const [row] = await tx<{ is_default: boolean }[]>`SELECT is_default FROM domains WHERE id = ${id} FOR UPDATE`;
          if (row === undefined) return 'missing' as const;
          if (row.is_default) return 'default' as const;
          if (await links.any(tx, id)) return 'has_links' as const;
          await Promise.all([tx`DELETE FROM domains WHERE id = ${id}`, insertAuditPostgres(tx, audit)]);
          await announce(tx);
          return 'deleted' as const;
        });
      } catch (err) {
        if (isForeignKeyViolation(err)) return 'has_links';
        throw err;
      }
    },
    linkCounts: (visible) => links.counts(sql, visible),
    linkCount: (id, visible) => links.count(sql, id, visible),
    async recordSeen(seen) {
      if (seen.length === 0) return;
      const ids = seen.map((s) => s.id);
      const ats = seen.map((s) => s.at);
      await sql`
        UPDATE domains d SET last_seen_at = s.at
        FROM unnest(${sql.array(ids, 'int4')}::int4[], ${sql.array(ats, 'int8')}::int8[]) AS s(id, at)
        WHERE d.id = s.id AND (d.last_seen_at IS NULL OR d.last_seen_at < s.at)`;
    },
  };
}
