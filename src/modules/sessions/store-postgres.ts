/** The sessions store on PostgreSQL. */
import { num, type Pg, storable } from '../../db/postgres/client';
import type { SessionRow, SessionStore } from './store';

interface PgSessionRow {
  id: string;
  account_id: string;
  token_hash: string;
  created_at: string | number;
  last_seen_at: string | number;
  expires_at: string | number;
  user_agent: string | null;
}

function toRow(r: PgSessionRow): SessionRow {
  return {
    id: r.id,
    accountId: r.account_id,
    tokenHash: r.token_hash,
    createdAt: num(r.created_at),
    lastSeenAt: num(r.last_seen_at),
    expiresAt: num(r.expires_at),
    userAgent: r.user_agent,
  };
}

/** Deletes every session of an account, inside the caller's transaction (auth's password change, disabling). */
export async function deleteSessionsOfAccountPostgres(tx: Pg, accountId: string): Promise<number> {
  return (await tx`DELETE FROM sessions WHERE account_id = ${accountId}`).count;
}

export function createPostgresSessionStore(sql: Pg): SessionStore {
  return {
    async insert(row) {
      await sql`INSERT INTO sessions (id, account_id, token_hash, created_at, last_seen_at, expires_at, user_agent)
        VALUES (${row.id}, ${row.accountId}, ${row.tokenHash}, ${row.createdAt}, ${row.lastSeenAt},
          ${row.expiresAt}, ${row.userAgent})`;
    },
    async findByTokenHash(tokenHash) {
      const [row] = await sql<PgSessionRow[]>`SELECT * FROM sessions WHERE token_hash = ${tokenHash}`;
      return row ? toRow(row) : null;
    },
    async touch(id, lastSeenAt) {
      await sql`UPDATE sessions SET last_seen_at = ${lastSeenAt} WHERE id = ${id}`;
    },
    async listOfAccount(accountId) {
      const rows = await sql<PgSessionRow[]>`
        SELECT * FROM sessions WHERE account_id = ${accountId} ORDER BY created_at DESC, id DESC`;
      return rows.map(toRow);
    },
    async deleteOfAccount(accountId, id) {
      if (!storable(id)) return false;
      return (await sql`DELETE FROM sessions WHERE id = ${id} AND account_id = ${accountId}`).count > 0;
    },
    async delete(id) {
      if (!storable(id)) return;
      await sql`DELETE FROM sessions WHERE id = ${id}`;
    },
    async deleteAllOfAccount(accountId) {
      return deleteSessionsOfAccountPostgres(sql, accountId);
    },
    async deleteEnded(now, idleBefore) {
      await sql`DELETE FROM sessions WHERE expires_at <= ${now} OR last_seen_at <= ${idleBefore}`;
    },
  };
}
