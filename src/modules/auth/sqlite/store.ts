/** The auth stores on SQLite. */
import { and, asc, count, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import type { AccountRow, AccountStore, KeyStore } from '../store';
import { accounts, apiKeys } from '../table';

/**
 * Ends an account's dashboard sessions inside the transaction that changed its password or
 * disabled it: the sessions module's statement, given by the composition root.
 */
export type EndSessionsSqlite = (db: Db, accountId: string) => unknown;

/** Inserts an account inside another module's transaction (an invite's acceptance): the one way in besides the store. */
export function insertAccountSqlite(db: Db, row: AccountRow): void {
  db.insert(accounts).values(row).run();
}

export function createSqliteAccountStore(db: Db, endSessions: EndSessionsSqlite): AccountStore {
  const immediate = <T>(write: () => T): T => db.transaction(write, { behavior: 'immediate' });
  const any = () => (db.select({ n: count() }).from(accounts).get()?.n ?? 0) > 0;
  return {
    async insert(row) {
      insertAccountSqlite(db, row);
    },
    async insertFirst(row) {
      return immediate(() => {
        if (any()) return false;
        db.insert(accounts).values(row).run();
        return true;
      });
    },
    async any() {
      return any();
    },
    async findByEmail(email) {
      // SQLite's lower() folds ASCII letters only, both sides alike.
      return db.select().from(accounts).where(sql`lower(${accounts.email}) = lower(${email})`).get() ?? null;
    },
    async findById(id) {
      return db.select().from(accounts).where(eq(accounts.id, id)).get() ?? null;
    },
    async list() {
      return db.select().from(accounts).orderBy(asc(accounts.createdAt), asc(accounts.id)).all();
    },
    async setLastSignIn(id, at) {
      db.update(accounts).set({ lastSignInAt: at }).where(eq(accounts.id, id)).run();
    },
    async setPassword(id, passwordHash) {
      immediate(() => {
        db.update(accounts).set({ passwordHash }).where(eq(accounts.id, id)).run();
        endSessions(db, id);
      });
    },
    async setDisabled(id, at) {
      immediate(() => {
        db.update(accounts).set({ disabledAt: at }).where(eq(accounts.id, id)).run();
        if (at === null) return;
        endSessions(db, id);
        db.update(apiKeys)
          .set({ revokedAt: at })
          .where(and(eq(apiKeys.accountId, id), isNull(apiKeys.revokedAt)))
          .run();
      });
    },
  };
}

export function createSqliteKeyStore(db: Db): KeyStore {
  return {
    async prefixTaken(prefix) {
      return db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.prefix, prefix)).get() !== undefined;
    },
    async insert(row) {
      db.insert(apiKeys).values(row).run();
    },
    async find(id) {
      return db.select().from(apiKeys).where(eq(apiKeys.id, id)).get() ?? null;
    },
    async revoke(id, at) {
      db.update(apiKeys).set({ revokedAt: at }).where(eq(apiKeys.id, id)).run();
    },
    async list(accountId) {
      return db
        .select({ key: apiKeys, email: accounts.email })
        .from(apiKeys)
        .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
        .where(accountId ? eq(apiKeys.accountId, accountId) : undefined)
        .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
        .all()
        .map(({ key, email }) => ({ ...key, email }));
    },
    async findByPrefix(prefix) {
      return (
        db
          .select({ key: apiKeys, account: accounts })
          .from(apiKeys)
          .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
          .where(eq(apiKeys.prefix, prefix))
          .get() ?? null
      );
    },
    async touch(id, at) {
      db.update(apiKeys)
        .set({ lastUsedAt: at })
        .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
        .run();
    },
  };
}
