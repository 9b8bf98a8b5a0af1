/** The webhooks store on SQLite. */
import { asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
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
    async insert(row) {
      db.insert(webhooks).values(row).run();
    },
    async update(id, changes) {
      if (Object.keys(changes).length > 0) db.update(webhooks).set(changes).where(eq(webhooks.id, id)).run();
    },
    async rotateSecret(id, secret, previousUntil, at) {
      return (
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
          .get() ?? null
      );
    },
    async delete(id) {
      return db.delete(webhooks).where(eq(webhooks.id, id)).returning({ id: webhooks.id }).all().length > 0;
    },
  };
}
