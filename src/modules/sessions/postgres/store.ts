/** The sessions store on PostgreSQL, and the sign-in failures and setup tokens every node shares. */
import { num, type Pg, storable } from '../../../db/postgres/client';
import type { WindowKeys } from '../../../db/postgres/window-keys';
import type { SessionRow, SessionStore, SetupTokenStore, SignInFailureStore } from '../store';

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

/** `sign_in_failures` (UNLOGGED), keyed by the keyed hash of each email and address (window-keys.ts). */
export function createPostgresSignInFailures(sql: Pg, keys: WindowKeys): SignInFailureStore {
  return {
    async count(wanted, now, windowMs) {
      const hashed = await Promise.all(wanted.map((k) => keys.of(k.key)));
      return sql.begin(async (tx) => {
        // Every key's row, made when missing and reset when its window ended, locked until the
        // commit: attempts sharing a key on any node decide one after the other. Locked in one
        // order (sorted), so two attempts sharing both keys never wait for each other in a circle.
        const rows = await tx<{ key: string; start: string; failures: number }[]>`
          INSERT INTO sign_in_failures AS f (key, window_start, failures)
          SELECT k, ${now}::int8, 0 FROM unnest(${tx.array([...new Set(hashed)].sort(), 'text')}::text[]) AS k ORDER BY k
          ON CONFLICT (key) DO UPDATE SET
            window_start = CASE WHEN ${now}::int8 - f.window_start >= ${windowMs}::int8 THEN ${now}::int8
              ELSE f.window_start END,
            failures = CASE WHEN ${now}::int8 - f.window_start >= ${windowMs}::int8 THEN 0 ELSE f.failures END
          RETURNING key, window_start AS start, failures`;
        const byKey = new Map(rows.map((r) => [r.key, { start: num(r.start), failures: num(r.failures) }]));
        const windows = hashed.map((h) => byKey.get(h)!);
        if (windows.some((w, i) => w.failures >= wanted[i]!.limit)) return { counted: false, windows };
        await tx`UPDATE sign_in_failures SET failures = failures + 1
          WHERE key = ANY(${tx.array(hashed, 'text')}::text[])`;
        return { counted: true, windows: windows.map((w) => ({ start: w.start, failures: w.failures + 1 })) };
      });
    },
    async takeBack(key, start) {
      await sql`UPDATE sign_in_failures SET failures = failures - 1
        WHERE key = ${await keys.of(key)} AND window_start = ${start}::int8 AND failures > 0`;
    },
    async forget(key) {
      await sql`DELETE FROM sign_in_failures WHERE key = ${await keys.of(key)}`;
    },
    async prune(now, windowMs) {
      await sql`DELETE FROM sign_in_failures WHERE window_start <= ${now - windowMs}::int8`;
    },
  };
}

/** `setup_tokens`: the SHA-256 of each running node's setup token, found by hash as sessions are. */
export function createPostgresSetupTokens(sql: Pg): SetupTokenStore {
  return {
    async add(tokenHash, createdAt) {
      await sql`INSERT INTO setup_tokens (token_hash, created_at) VALUES (${tokenHash}, ${createdAt}::int8)
        ON CONFLICT (token_hash) DO NOTHING`;
    },
    async has(tokenHash) {
      return (await sql`SELECT 1 FROM setup_tokens WHERE token_hash = ${tokenHash}`).length > 0;
    },
    async delete(tokenHash) {
      await sql`DELETE FROM setup_tokens WHERE token_hash = ${tokenHash}`;
    },
    async deleteAll() {
      await sql`DELETE FROM setup_tokens`;
    },
  };
}
