/** The auth stores on SQLite. */
import { and, asc, count, desc, eq, isNotNull, isNull, ne, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { insertAuditSqlite } from '../../audit/public';
import { applied, demotesKeys, losesAdmin, narrowedProjects } from '../narrow';
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
    async insert(row, audit) {
      immediate(() => {
        insertAccountSqlite(db, row);
        insertAuditSqlite(db, audit);
      });
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
    async setPassword(id, passwordHash, audit) {
      immediate(() => {
        db.update(accounts).set({ passwordHash }).where(eq(accounts.id, id)).run();
        endSessions(db, id);
        insertAuditSqlite(db, audit);
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
    async update(id, change, audit) {
      // Immediate: the writer lock is taken before the admins are counted, so two admins
      // demoting each other at once are served one after the other and the second is refused.
      return immediate(() => {
        const before = db.select().from(accounts).where(eq(accounts.id, id)).get();
        if (!before) return 'missing' as const;
        const after = applied(before, change);
        if (losesAdmin(before, after)) {
          const others = db
            .select({ n: count() })
            .from(accounts)
            .where(and(eq(accounts.role, 'admin'), isNull(accounts.disabledAt), ne(accounts.id, id)))
            .get();
          if ((others?.n ?? 0) === 0) return 'last_admin' as const;
        }
        db.update(accounts)
          .set({ role: after.role, projects: after.projects, disabledAt: after.disabledAt })
          .where(eq(accounts.id, id))
          .run();
        if (after.disabledAt !== null && before.disabledAt === null) {
          endSessions(db, id);
          db.update(apiKeys)
            .set({ revokedAt: after.disabledAt })
            .where(and(eq(apiKeys.accountId, id), isNull(apiKeys.revokedAt)))
            .run();
        }
        if (demotesKeys(before, after)) {
          db.update(apiKeys)
            .set({ scope: 'read' })
            .where(and(eq(apiKeys.accountId, id), eq(apiKeys.scope, 'write')))
            .run();
        }
        const limited = db
          .select({ id: apiKeys.id, projects: apiKeys.projects })
          .from(apiKeys)
          .where(and(eq(apiKeys.accountId, id), isNotNull(apiKeys.projects)))
          .all();
        for (const key of limited) {
          const projects = narrowedProjects(key, after.projects);
          if (projects) db.update(apiKeys).set({ projects }).where(eq(apiKeys.id, key.id)).run();
        }
        insertAuditSqlite(db, audit);
        return { row: after };
      });
    },
  };
}

export function createSqliteKeyStore(db: Db): KeyStore {
  const immediate = <T>(write: () => T): T => db.transaction(write, { behavior: 'immediate' });
  return {
    async prefixTaken(prefix) {
      return db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.prefix, prefix)).get() !== undefined;
    },
    async insert(row, audit) {
      immediate(() => {
        db.insert(apiKeys).values(row).run();
        insertAuditSqlite(db, audit);
      });
    },
    async find(id) {
      return db.select().from(apiKeys).where(eq(apiKeys.id, id)).get() ?? null;
    },
    async revoke(id, at, audit) {
      immediate(() => {
        db.update(apiKeys).set({ revokedAt: at }).where(eq(apiKeys.id, id)).run();
        insertAuditSqlite(db, audit);
      });
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
