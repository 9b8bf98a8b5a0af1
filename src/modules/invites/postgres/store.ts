/** The invites store on PostgreSQL. */
import { num, numOrNull, type Pg, storable } from '../../../db/postgres/client';
import { INVITE_LOCK } from '../../../db/postgres/locks';
import { insertAuditPostgres } from '../../audit/public';
import type { AccountRow } from '../../auth/public';
import type { InviteRow, InviteStore } from '../store';

/** Inserts an account inside the acceptance's transaction: the auth module's statement, given by the composition root. */
export type InsertAccountPostgres = (tx: Pg, row: AccountRow) => Promise<unknown>;

type Int8 = string | number;

interface PgInviteRow {
  id: string;
  email: string;
  role: InviteRow['role'];
  projects: string | null;
  token_hash: string;
  created_by: string | null;
  created_at: Int8;
  expires_at: Int8;
  used_at: Int8 | null;
  revoked_at: Int8 | null;
}

function toInvite(r: PgInviteRow): InviteRow {
  return {
    id: r.id,
    email: r.email,
    role: r.role,
    // The same JSON text the SQLite store reads.
    projects: r.projects === null ? null : (JSON.parse(r.projects) as string[]),
    tokenHash: r.token_hash,
    createdBy: r.created_by,
    createdAt: num(r.created_at),
    expiresAt: num(r.expires_at),
    usedAt: numOrNull(r.used_at),
    revokedAt: numOrNull(r.revoked_at),
  };
}

export function createPostgresInviteStore(sql: Pg, insertAccount: InsertAccountPostgres): InviteStore {
  const pendingOf = async (tx: Pg, email: string, now: number) => {
    const [row] = await tx<PgInviteRow[]>`
      SELECT * FROM invites WHERE slink_ascii_lower(email) = slink_ascii_lower(${email})
        AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ${now} LIMIT 1`;
    return row ? toInvite(row) : null;
  };
  return {
    async insertUnlessPending(row, now, audit) {
      if (!storable(row.email)) return false;
      return sql.begin(async (tx) => {
        // Two invites of one email at once: the second waits, then sees the first.
        await tx`SELECT pg_advisory_xact_lock(${INVITE_LOCK})`;
        if (await pendingOf(tx, row.email, now)) return false;
        await Promise.all([
          tx`INSERT INTO invites (id, email, role, projects, token_hash, created_by, created_at, expires_at, used_at, revoked_at)
            VALUES (${row.id}, ${row.email}, ${row.role}, ${row.projects === null ? null : JSON.stringify(row.projects)},
              ${row.tokenHash}, ${row.createdBy}, ${row.createdAt}, ${row.expiresAt}, ${row.usedAt}, ${row.revokedAt})`,
          insertAuditPostgres(tx, audit),
        ]);
        return true;
      });
    },
    async find(id) {
      if (!storable(id)) return null;
      const [row] = await sql<PgInviteRow[]>`SELECT * FROM invites WHERE id = ${id}`;
      return row ? toInvite(row) : null;
    },
    async findByTokenHash(tokenHash) {
      const [row] = await sql<PgInviteRow[]>`SELECT * FROM invites WHERE token_hash = ${tokenHash}`;
      return row ? toInvite(row) : null;
    },
    async findPendingByEmail(email, now) {
      return storable(email) ? pendingOf(sql, email, now) : null;
    },
    async listPending(now) {
      const rows = await sql<PgInviteRow[]>`
        SELECT * FROM invites WHERE used_at IS NULL AND revoked_at IS NULL AND expires_at > ${now}
        ORDER BY created_at DESC, id DESC`;
      return rows.map(toInvite);
    },
    async revoke(id, now, audit) {
      if (!storable(id)) return false;
      return sql.begin(async (tx) => {
        const changed = await tx`UPDATE invites SET revoked_at = ${now}
          WHERE id = ${id} AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ${now} RETURNING id`;
        if (changed.length === 0) return false;
        await insertAuditPostgres(tx, audit);
        return true;
      });
    },
    async accept(id, account, now, audit) {
      return sql.begin(async (tx) => {
        // The row lock makes a second acceptance wait for the first, then find the invite used.
        const changed = await tx`UPDATE invites SET used_at = ${now}
          WHERE id = ${id} AND used_at IS NULL AND revoked_at IS NULL AND expires_at > ${now} RETURNING id`;
        if (changed.length === 0) return false;
        await Promise.all([insertAccount(tx, account), ...audit.map((entry) => insertAuditPostgres(tx, entry))]);
        return true;
      });
    },
  };
}
