/** The auth stores on PostgreSQL. */
import { num, numOrNull, type Pg, storable } from '../../../db/postgres/client';
import { ACCOUNT_UPDATE_LOCK, FIRST_ACCOUNT_LOCK } from '../../../db/postgres/locks';
import { insertAuditPostgres } from '../../audit/public';
import { applied, demotesKeys, losesAdmin, narrowedProjects } from '../narrow';
import type { AccountRow, AccountStore, ApiKeyRow, KeyStore } from '../store';

type Int8 = string | number;

interface PgAccountRow {
  id: string;
  email: string;
  password_hash: string;
  role: AccountRow['role'];
  created_at: Int8;
  last_sign_in_at: Int8 | null;
  disabled_at: Int8 | null;
  projects: string | null;
}

interface PgKeyRow {
  id: string;
  account_id: string;
  name: string | null;
  prefix: string;
  hash: string;
  scope: ApiKeyRow['scope'];
  expires_at: Int8 | null;
  revoked_at: Int8 | null;
  last_used_at: Int8 | null;
  created_at: Int8;
  projects: string | null;
  domains: string | null;
}

/** A limit column: a JSON array as text, or NULL for none (the SQLite store reads the same text). */
function listOf<T>(text: string | null): T[] | null {
  return text === null ? null : (JSON.parse(text) as T[]);
}

function listText(list: readonly unknown[] | null): string | null {
  return list === null ? null : JSON.stringify(list);
}

function toAccount(r: PgAccountRow): AccountRow {
  return {
    id: r.id,
    email: r.email,
    passwordHash: r.password_hash,
    role: r.role,
    createdAt: num(r.created_at),
    lastSignInAt: numOrNull(r.last_sign_in_at),
    disabledAt: numOrNull(r.disabled_at),
    projects: listOf<string>(r.projects),
  };
}

function toKey(r: PgKeyRow): ApiKeyRow {
  return {
    id: r.id,
    accountId: r.account_id,
    name: r.name,
    prefix: r.prefix,
    hash: r.hash,
    scope: r.scope,
    expiresAt: numOrNull(r.expires_at),
    revokedAt: numOrNull(r.revoked_at),
    lastUsedAt: numOrNull(r.last_used_at),
    createdAt: num(r.created_at),
    projects: listOf<string>(r.projects),
    domains: listOf<number>(r.domains),
  };
}

/** Inserts an account; also inside another module's transaction (an invite's acceptance). */
export async function insertAccountPostgres(sql: Pg, row: AccountRow): Promise<void> {
  await sql`INSERT INTO accounts (id, email, password_hash, role, created_at, last_sign_in_at, disabled_at, projects)
    VALUES (${row.id}, ${row.email}, ${row.passwordHash}, ${row.role}, ${row.createdAt},
      ${row.lastSignInAt}, ${row.disabledAt}, ${listText(row.projects ?? null)})`;
}

function insertKey(sql: Pg, row: ApiKeyRow): Promise<unknown> {
  return sql`INSERT INTO api_keys (id, account_id, name, prefix, hash, scope, expires_at, revoked_at,
      last_used_at, created_at, projects, domains)
    VALUES (${row.id}, ${row.accountId}, ${row.name}, ${row.prefix}, ${row.hash}, ${row.scope},
      ${row.expiresAt}, ${row.revokedAt}, ${row.lastUsedAt}, ${row.createdAt},
      ${listText(row.projects ?? null)}, ${listText(row.domains ?? null)})`;
}

/**
 * Ends an account's dashboard sessions inside the transaction that changed its password or
 * disabled it: the sessions module's statement, given by the composition root.
 */
export type EndSessionsPostgres = (tx: Pg, accountId: string) => Promise<unknown>;

export function createPostgresAccountStore(sql: Pg, endSessions: EndSessionsPostgres): AccountStore {
  return {
    async insert(row, audit) {
      if (!audit) return insertAccountPostgres(sql, row);
      await sql.begin((tx) => Promise.all([insertAccountPostgres(tx, row), insertAuditPostgres(tx, audit)]));
    },
    async insertFirst(row) {
      return sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${FIRST_ACCOUNT_LOCK})`;
        if ((await tx`SELECT 1 FROM accounts LIMIT 1`).length > 0) return false;
        await insertAccountPostgres(tx, row);
        return true;
      });
    },
    async any() {
      return (await sql`SELECT 1 FROM accounts LIMIT 1`).length > 0;
    },
    async findByEmail(email) {
      if (!storable(email)) return null;
      const [row] = await sql<PgAccountRow[]>`
        SELECT * FROM accounts WHERE slink_ascii_lower(email) = slink_ascii_lower(${email})`;
      return row ? toAccount(row) : null;
    },
    async findById(id) {
      if (!storable(id)) return null;
      const [row] = await sql<PgAccountRow[]>`SELECT * FROM accounts WHERE id = ${id}`;
      return row ? toAccount(row) : null;
    },
    async list() {
      return (await sql<PgAccountRow[]>`SELECT * FROM accounts ORDER BY created_at, id`).map(toAccount);
    },
    async setLastSignIn(id, at) {
      await sql`UPDATE accounts SET last_sign_in_at = ${at} WHERE id = ${id}`;
    },
    async setPassword(id, passwordHash, audit) {
      await sql.begin((tx) =>
        Promise.all([
          tx`UPDATE accounts SET password_hash = ${passwordHash} WHERE id = ${id}`,
          endSessions(tx, id),
          insertAuditPostgres(tx, audit),
        ]),
      );
    },
    async setDisabled(id, at) {
      await sql.begin(async (tx) => {
        await tx`UPDATE accounts SET disabled_at = ${at} WHERE id = ${id}`;
        if (at === null) return;
        await endSessions(tx, id);
        await tx`UPDATE api_keys SET revoked_at = ${at} WHERE account_id = ${id} AND revoked_at IS NULL`;
      });
    },
    async update(id, change, audit) {
      if (!storable(id)) return 'missing';
      return sql.begin(async (tx) => {
        // Taken before the admins are counted: updates wait for each other, so the count sees
        // every demotion committed before this one.
        await tx`SELECT pg_advisory_xact_lock(${ACCOUNT_UPDATE_LOCK})`;
        const [found] = await tx<PgAccountRow[]>`SELECT * FROM accounts WHERE id = ${id}`;
        if (!found) return 'missing' as const;
        const before = toAccount(found);
        const after = applied(before, change);
        if (losesAdmin(before, after)) {
          const others = await tx`SELECT 1 FROM accounts
            WHERE role = 'admin' AND disabled_at IS NULL AND id <> ${id} LIMIT 1`;
          if (others.length === 0) return 'last_admin' as const;
        }
        const keys = await tx<{ id: string; projects: string }[]>`
          SELECT id, projects FROM api_keys WHERE account_id = ${id} AND projects IS NOT NULL`;
        const writes: Promise<unknown>[] = [
          tx`UPDATE accounts SET role = ${after.role}, projects = ${listText(after.projects)},
            disabled_at = ${after.disabledAt} WHERE id = ${id}`,
          insertAuditPostgres(tx, audit),
        ];
        if (after.disabledAt !== null && before.disabledAt === null) {
          writes.push(
            endSessions(tx, id),
            tx`UPDATE api_keys SET revoked_at = ${after.disabledAt} WHERE account_id = ${id} AND revoked_at IS NULL`,
          );
        }
        if (demotesKeys(before, after)) {
          writes.push(tx`UPDATE api_keys SET scope = 'read' WHERE account_id = ${id} AND scope = 'write'`);
        }
        for (const key of keys) {
          const projects = narrowedProjects({ projects: listOf<string>(key.projects) }, after.projects);
          if (projects) writes.push(tx`UPDATE api_keys SET projects = ${listText(projects)} WHERE id = ${key.id}`);
        }
        await Promise.all(writes);
        return { row: after };
      });
    },
  };
}

export function createPostgresKeyStore(sql: Pg): KeyStore {
  return {
    async prefixTaken(prefix) {
      if (!storable(prefix)) return false;
      return (await sql`SELECT 1 FROM api_keys WHERE prefix = ${prefix}`).length > 0;
    },
    async insert(row, audit) {
      if (audit) {
        await sql.begin((tx) => Promise.all([insertKey(tx, row), insertAuditPostgres(tx, audit)]));
        return;
      }
      await insertKey(sql, row);
    },
    async find(id) {
      if (!storable(id)) return null;
      const [row] = await sql<PgKeyRow[]>`SELECT * FROM api_keys WHERE id = ${id}`;
      return row ? toKey(row) : null;
    },
    async revoke(id, at, audit) {
      await sql.begin((tx) =>
        Promise.all([tx`UPDATE api_keys SET revoked_at = ${at} WHERE id = ${id}`, insertAuditPostgres(tx, audit)]),
      );
    },
    async list(accountId) {
      if (accountId && !storable(accountId)) return [];
      const rows = accountId
        ? await sql<(PgKeyRow & { email: string })[]>`
            SELECT k.*, a.email FROM api_keys k JOIN accounts a ON a.id = k.account_id
            WHERE k.account_id = ${accountId} ORDER BY k.created_at DESC, k.id DESC`
        : await sql<(PgKeyRow & { email: string })[]>`
            SELECT k.*, a.email FROM api_keys k JOIN accounts a ON a.id = k.account_id
            ORDER BY k.created_at DESC, k.id DESC`;
      return rows.map((r) => ({ ...toKey(r), email: r.email }));
    },
    async findByPrefix(prefix) {
      if (!storable(prefix)) return null;
      const [row] = await sql<(PgKeyRow & { a_id: string } & Record<string, unknown>)[]>`
        SELECT k.*, a.id AS a_id, a.email AS a_email, a.password_hash AS a_password_hash,
          a.role AS a_role, a.created_at AS a_created_at,
          a.last_sign_in_at AS a_last_sign_in_at, a.disabled_at AS a_disabled_at, a.projects AS a_projects
        FROM api_keys k JOIN accounts a ON a.id = k.account_id WHERE k.prefix = ${prefix}`;
      if (!row) return null;
      const account = toAccount({
        id: row.a_id,
        email: row.a_email as string,
        password_hash: row.a_password_hash as string,
        role: row.a_role as AccountRow['role'],
        created_at: row.a_created_at as Int8,
        last_sign_in_at: row.a_last_sign_in_at as Int8 | null,
        disabled_at: row.a_disabled_at as Int8 | null,
        projects: row.a_projects as string | null,
      });
      return { key: toKey(row), account };
    },
    async touch(id, at) {
      await sql`UPDATE api_keys SET last_used_at = ${at} WHERE id = ${id} AND revoked_at IS NULL`;
    },
  };
}
