/** Session queries. Rows are found by the hash of their token, never by the token. */
import { and, desc, eq, lte, or } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { type SessionRow, sessions } from './table';

export function insertSession(db: Db, row: SessionRow): void {
  db.insert(sessions).values(row).run();
}

export function findSessionByTokenHash(db: Db, tokenHash: string): SessionRow | undefined {
  return db.select().from(sessions).where(eq(sessions.tokenHash, tokenHash)).get();
}

export function touchSession(db: Db, id: string, lastSeenAt: number): void {
  db.update(sessions).set({ lastSeenAt }).where(eq(sessions.id, id)).run();
}

export function listSessionsOfAccount(db: Db, accountId: string): SessionRow[] {
  return db
    .select()
    .from(sessions)
    .where(eq(sessions.accountId, accountId))
    .orderBy(desc(sessions.createdAt), desc(sessions.id))
    .all();
}

/** Deletes one session of one account; false when the account has no such session. */
export function deleteSessionOfAccount(db: Db, accountId: string, id: string): boolean {
  const gone = db
    .delete(sessions)
    .where(and(eq(sessions.id, id), eq(sessions.accountId, accountId)))
    .returning({ id: sessions.id })
    .all();
  return gone.length > 0;
}

export function deleteSession(db: Db, id: string): void {
  db.delete(sessions).where(eq(sessions.id, id)).run();
}

export function deleteSessionsOfAccount(db: Db, accountId: string): number {
  return db.delete(sessions).where(eq(sessions.accountId, accountId)).returning({ id: sessions.id }).all().length;
}

/** Drops every session past its absolute expiry or idle since `idleBefore`. */
export function deleteEndedSessions(db: Db, now: number, idleBefore: number): void {
  db.delete(sessions)
    .where(or(lte(sessions.expiresAt, now), lte(sessions.lastSeenAt, idleBefore)))
    .run();
}
