/** The invites store on SQLite. */
import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../../db/client';
import { insertAuditSqlite } from '../../audit/public';
import type { AccountRow } from '../../auth/public';
import type { InviteStore } from '../store';
import { invites } from '../table';

/** Inserts an account inside the acceptance's transaction: the auth module's statement, given by the composition root. */
export type InsertAccountSqlite = (db: Db, row: AccountRow) => void;

const pendingAt = (now: number) => and(isNull(invites.usedAt), isNull(invites.revokedAt), gt(invites.expiresAt, now));

export function createSqliteInviteStore(db: Db, insertAccount: InsertAccountSqlite): InviteStore {
  const immediate = <T>(write: () => T): T => db.transaction(write, { behavior: 'immediate' });
  const pendingOf = (email: string, now: number) =>
    db
      .select()
      .from(invites)
      // SQLite's lower() folds ASCII letters only, both sides alike (as accounts' emails).
      .where(and(sql`lower(${invites.email}) = lower(${email})`, pendingAt(now)))
      .get() ?? null;
  return {
    async insertUnlessPending(row, now, audit) {
      return immediate(() => {
        if (pendingOf(row.email, now)) return false;
        db.insert(invites).values(row).run();
        insertAuditSqlite(db, audit);
        return true;
      });
    },
    async find(id) {
      return db.select().from(invites).where(eq(invites.id, id)).get() ?? null;
    },
    async findByTokenHash(tokenHash) {
      return db.select().from(invites).where(eq(invites.tokenHash, tokenHash)).get() ?? null;
    },
    async findPendingByEmail(email, now) {
      return pendingOf(email, now);
    },
    async listPending(now) {
      return db.select().from(invites).where(pendingAt(now)).orderBy(desc(invites.createdAt), desc(invites.id)).all();
    },
    async revoke(id, now, audit) {
      return immediate(() => {
        const changed = db
          .update(invites)
          .set({ revokedAt: now })
          .where(and(eq(invites.id, id), pendingAt(now)))
          .returning({ id: invites.id })
          .all().length;
        if (changed === 0) return false;
        insertAuditSqlite(db, audit);
        return true;
      });
    },
    async accept(id, account, now, audit) {
      // Synchronous inside: bun:sqlite's transaction commits at its callback's first await.
      return immediate(() => {
        const changed = db
          .update(invites)
          .set({ usedAt: now })
          .where(and(eq(invites.id, id), pendingAt(now)))
          .returning({ id: invites.id })
          .all().length;
        if (changed === 0) return false;
        insertAccount(db, account);
        for (const entry of audit) insertAuditSqlite(db, entry);
        return true;
      });
    },
  };
}
