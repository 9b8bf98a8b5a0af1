/** The domains store on SQLite. */
import { asc, eq } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import type { DomainLinksSqlite } from '../../links/public';
import type { DomainSettings, DomainStore } from '../store';
import { domains } from '../table';

export function createSqliteDomainStore(db: Db, links: DomainLinksSqlite): DomainStore {
  const sqlite = db.$client;
  return {
    async list() {
      return db.select().from(domains).orderBy(asc(domains.createdAt), asc(domains.id)).all();
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
    async insert(domain) {
      const [row] = db
        .insert(domains)
        .values({ ...domain, isDefault: false })
        .returning()
        .all();
      return row!;
    },
    async update(id, changes: Partial<DomainSettings>) {
      if (Object.keys(changes).length > 0) db.update(domains).set(changes).where(eq(domains.id, id)).run();
      return db.select().from(domains).where(eq(domains.id, id)).get() ?? null;
    },
    async delete(id) {
      return sqlite
        .transaction(() => {
          const row = sqlite
            .query<{ is_default: number }, [number]>('SELECT is_default FROM domains WHERE id = ?')
            .get(id);
          if (row === null) return 'missing' as const;
          if (row.is_default === 1) return 'default' as const;
          if (links.any(sqlite, id)) return 'has_links' as const;
          sqlite.query('DELETE FROM domains WHERE id = ?').run(id);
          return 'deleted' as const;
        })
        .immediate();
    },
    async linkCounts() {
      return links.counts(sqlite);
    },
    async linkCount(id) {
      return links.count(sqlite, id);
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
