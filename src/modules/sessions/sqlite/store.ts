/** The sessions store on SQLite. */
import { and, desc, eq, lte, or } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import type { SessionStore, SetupTokenStore } from '../store';
import { sessions } from '../table';

/** Deletes every session of an account, inside the caller's transaction if any (auth's password change, disabling). */
export function deleteSessionsOfAccountSqlite(db: Db, accountId: string): number {
  return db.delete(sessions).where(eq(sessions.accountId, accountId)).returning({ id: sessions.id }).all().length;
}

export function createSqliteSessionStore(db: Db): SessionStore {
  return {
    async insert(row) {
      db.insert(sessions).values(row).run();
    },
    async findByTokenHash(tokenHash) {
      return db.select().from(sessions).where(eq(sessions.tokenHash, tokenHash)).get() ?? null;
    },
    async touch(id, lastSeenAt) {
      db.update(sessions).set({ lastSeenAt }).where(eq(sessions.id, id)).run();
    },
    async listOfAccount(accountId) {
      return db
        .select()
        .from(sessions)
        .where(eq(sessions.accountId, accountId))
        .orderBy(desc(sessions.createdAt), desc(sessions.id))
        .all();
    },
    async deleteOfAccount(accountId, id) {
      const gone = db
        .delete(sessions)
        .where(and(eq(sessions.id, id), eq(sessions.accountId, accountId)))
        .returning({ id: sessions.id })
        .all();
      return gone.length > 0;
    },
    async delete(id) {
      db.delete(sessions).where(eq(sessions.id, id)).run();
    },
    async deleteAllOfAccount(accountId) {
      return deleteSessionsOfAccountSqlite(db, accountId);
    },
    async deleteEnded(now, idleBefore) {
      db.delete(sessions)
        .where(or(lte(sessions.expiresAt, now), lte(sessions.lastSeenAt, idleBefore)))
        .run();
    },
  };
}

/** One process: its setup token, kept in memory (setup.ts), is the only one; nothing is stored. */
export function createSqliteSetupTokens(): SetupTokenStore {
  return {
    async add() {},
    async has() {
      return false;
    },
    async delete() {},
    async deleteAll() {},
  };
}
