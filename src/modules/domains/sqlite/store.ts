/** The domains store on SQLite. */
import { asc } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import type { DomainStore } from '../store';
import { domains } from '../table';

export function createSqliteDomainStore(db: Db): DomainStore {
  return {
    async list() {
      return db.select().from(domains).orderBy(asc(domains.createdAt), asc(domains.id)).all();
    },
    async ensureDefault(host, origin, now) {
      const sqlite = db.$client;
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
  };
}
