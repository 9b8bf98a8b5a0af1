/** The webhooks store on SQLite. */
import { asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { insertAuditSqlite } from '../../audit/public';
import type { WebhookStore } from '../store';
import { webhooks } from '../table';

export function createSqliteWebhookStore(db: Db): WebhookStore {
  return {
    async list() {
      return db.select().from(webhooks).orderBy(asc(webhooks.createdAt), asc(webhooks.id)).all();
    },
    async find(id) {
      return db.select().from(webhooks).where(eq(webhooks.id, id)).get() ?? null;
    },
    async count() {
      return db.select({ n: count() }).from(webhooks).get()?.n ?? 0;
    },
    async insert(row, audit) {
      db.transaction(() => {
        db.insert(webhooks).values(row).run();
        insertAuditSqlite(db, audit);
      });
    },
    async update(id, changes, audit) {
      if (Object.keys(changes).length === 0) return;
      db.transaction(() => {
        const changed = db
          .update(webhooks)
          .set(changes)
          .where(eq(webhooks.id, id))
          .returning({ id: webhooks.id })
          .all();
        if (changed.length > 0) insertAuditSqlite(db, audit);
      });
    },
    async rotateSecret(id, secret, previousUntil, at, audit) {
      return db.transaction(() => {
        const row =
          db
            .update(webhooks)
            .set({
              previousSecret: sql`${webhooks.secret}`,
              secret,
              previousSecretUntil: previousUntil,
              updatedAt: sql`max(${webhooks.updatedAt}, ${at})`,
            })
            .where(eq(webhooks.id, id))
            .returning()
            .get() ?? null;
        if (row) insertAuditSqlite(db, audit);
        return row;
      });
    },
    async delete(id, audit) {
      return db.transaction(() => {
        const gone = db.delete(webhooks).where(eq(webhooks.id, id)).returning({ id: webhooks.id }).all().length > 0;
        if (gone) insertAuditSqlite(db, audit);
        return gone;
      });
    },
  };
}
