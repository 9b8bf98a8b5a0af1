/**
 * The domains store on SQLite. Plain statements on the connection (no drizzle database): the
 * links module's own-host rules read the domains' face, which must not reach back to the schema.
 */
import type { Database } from 'bun:sqlite';
import { insertAuditSqlite } from '../../audit/public';
import {
  type DomainLinksSqlite,
  type DomainRow,
  type DomainSettings,
  type DomainStore,
  domainRowOf,
  SETTING_COLUMNS,
  type StoredDomain,
} from '../store';

/**
 * Every domain, oldest first, read at once: for a caller inside a synchronous transaction (the
 * click writer names each clicked link's domain in its events).
 */
export function listDomainsSqlite(sqlite: Database): DomainRow[] {
  return sqlite.query<StoredDomain, []>('SELECT * FROM domains ORDER BY created_at, id').all().map(domainRowOf);
}

export function createSqliteDomainStore(sqlite: Database, links: DomainLinksSqlite): DomainStore {
  const byId = (id: number) => sqlite.query<StoredDomain, [number]>('SELECT * FROM domains WHERE id = ?').get(id);
  return {
    async list() {
      return listDomainsSqlite(sqlite);
    },
    async ensureDefault(host, origin, now) {
      return sqlite
        .transaction(() => {
          const current = sqlite
            .query<{ id: number; origin: string; is_default: number }, [string]>(
              'SELECT id, origin, is_default FROM domains WHERE host = ?',
            )
            .get(host);
          let id: number;
          let changed = false;
          if (current !== null) {
            id = current.id;
            changed = current.origin !== origin || current.is_default !== 1;
            if (changed) sqlite.query('UPDATE domains SET origin = ?, is_default = 1 WHERE id = ?').run(origin, id);
          } else {
            const unnamed = sqlite.query<{ id: number }, []>("SELECT id FROM domains WHERE host = ''").get();
            changed = true;
            if (unnamed !== null) {
              id = unnamed.id;
              sqlite
                .query('UPDATE domains SET host = ?, origin = ?, is_default = 1, created_at = ? WHERE id = ?')
                .run(host, origin, now, id);
            } else {
              id = Number(
                sqlite
                  .query('INSERT INTO domains (host, origin, is_default, created_at) VALUES (?, ?, 1, ?)')
                  .run(host, origin, now).lastInsertRowid,
              );
            }
          }
          const others = sqlite.query('UPDATE domains SET is_default = 0 WHERE is_default = 1 AND id <> ?').run(id);
          return changed || others.changes > 0;
        })
        .immediate();
    },
    async insert(domain, audit) {
      const row = sqlite.transaction(() => {
        insertAuditSqlite(sqlite, audit);
        return sqlite
          .query<StoredDomain, (string | number | null)[]>(
            `INSERT INTO domains (host, origin, is_default, root_url, not_found_url, expired_url, upstream,
             apple_app_site_association, asset_links, created_at)
           VALUES (?, ?, 0, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
          )
          .get(
            domain.host,
            domain.origin,
            domain.rootUrl ?? null,
            domain.notFoundUrl ?? null,
            domain.expiredUrl ?? null,
            domain.upstream ?? null,
            domain.appleAppSiteAssociation ?? null,
            domain.assetLinks ?? null,
            domain.createdAt,
          );
      })();
      return domainRowOf(row!);
    },
    async update(id, changes: Partial<DomainSettings>, audit) {
      const fields = Object.keys(changes) as (keyof DomainSettings)[];
      if (fields.length > 0)
        sqlite.transaction(() => {
          const changed = sqlite
            .query(`UPDATE domains SET ${fields.map((f) => `${SETTING_COLUMNS[f]} = ?`).join(', ')} WHERE id = ?`)
            .run(...fields.map((f) => changes[f] ?? null), id);
          if (changed.changes > 0) insertAuditSqlite(sqlite, audit);
        })();
      const row = byId(id);
      return row === null ? null : domainRowOf(row);
    },
    async delete(id, audit) {
      return sqlite
        .transaction(() => {
          const row = sqlite
            .query<{ is_default: number }, [number]>('SELECT is_default FROM domains WHERE id = ?')
            .get(id);
          if (row === null) return 'missing' as const;
          if (row.is_default === 1) return 'default' as const;
          if (links.any(sqlite, id)) return 'has_links' as const;
          sqlite.query('DELETE FROM domains WHERE id = ?').run(id);
          insertAuditSqlite(sqlite, audit);
          return 'deleted' as const;
        })
        .immediate();
    },
    async linkCounts(visible) {
      return links.counts(sqlite, visible);
    },
    async linkCount(id, visible) {
      return links.count(sqlite, id, visible);
    },
    async recordSeen(seen) {
      if (seen.length === 0) return;
      const write = sqlite.query(
        'UPDATE domains SET last_seen_at = ?1 WHERE id = ?2 AND (last_seen_at IS NULL OR last_seen_at < ?1)',
      );
      sqlite.transaction(() => {
        for (const { id, at } of seen) write.run(at, id);
      })();
    },
  };
}
