/**
 * The migrations that give accounts a role (SQLite 0018 and 0019, PostgreSQL 0015): on a
 * database a release of before left with accounts, superusers become admins and the others
 * editors, is_superuser is gone (the role is the one source of truth), and the API says so.
 */
import type { Database } from 'bun:sqlite';
import { afterAll, afterEach, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MigrationMeta } from 'drizzle-orm/migrator';
import { openDatabase } from '../../src/db/client';
import { embeddedMigrations } from '../../src/db/migrate';
import { journal } from '../../src/db/migrations.gen';
import { openPostgres } from '../../src/db/postgres/client';
import { migratePostgres, PG_MIGRATIONS } from '../../src/db/postgres/migrate';
import { createApiKey } from '../../src/modules/auth/keys';
import { api, disposeTestApp, makeTestApp, T0, type TestApp } from '../helpers/app';
import { clusterAdminUrl } from '../helpers/postgres';

const dir = mkdtempSync(join(tmpdir(), 'slink-roles-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let t: TestApp | null = null;
afterEach(async () => {
  if (t) await disposeTestApp(t);
  t = null;
});

const OLD_ACCOUNTS = [
  ['acc_boss', 'boss@example.com', true],
  ['acc_member', 'member@example.com', false],
] as const;

/** GET /me with a fresh key of each account: what the API says of its role. */
async function rolesSeen(app: TestApp): Promise<unknown[]> {
  const seen = [];
  for (const [id] of OLD_ACCOUNTS) {
    const { key } = await createApiKey(app.deps, { accountId: id, scope: 'read' });
    const me = await api(app, 'GET', '/me', { key });
    expect(me.status).toBe(200);
    seen.push(me.body.account);
  }
  return seen;
}

const EXPECTED = [
  { id: 'acc_boss', email: 'boss@example.com', superuser: true, role: 'admin', projects: null },
  { id: 'acc_member', email: 'member@example.com', superuser: false, role: 'editor', projects: null },
];

test('SQLite: superusers become admins, other accounts editors, is_superuser is dropped', async () => {
  const path = join(dir, 'old.db');
  const upTo = journal.entries.findIndex((e) => e.tag === '0018_account_roles');
  expect(upTo).toBe(18);
  const db = openDatabase(path);
  const internals = db as unknown as { dialect: { migrate(m: MigrationMeta[], s: unknown): void }; session: unknown };
  internals.dialect.migrate(embeddedMigrations().slice(0, upTo), internals.session);
  const old: Database = db.$client;
  const insert = old.query(
    'INSERT INTO accounts (id, email, password_hash, is_superuser, created_at) VALUES (?, ?, ?, ?, ?)',
  );
  for (const [id, email, superuser] of OLD_ACCOUNTS) insert.run(id, email, 'x', superuser ? 1 : 0, T0);
  old.close();

  t = await makeTestApp({ SLINK_DB: path });
  const columns = t.deps.db.$client.query<{ name: string }, []>('PRAGMA table_info(accounts)').all();
  expect(columns.map((c) => c.name)).toContain('role');
  expect(columns.map((c) => c.name)).not.toContain('is_superuser');
  expect(await rolesSeen(t)).toEqual(EXPECTED);
});

test('PostgreSQL: superusers become admins, other accounts editors, is_superuser is dropped', async () => {
  const admin = openPostgres(await clusterAdminUrl(), 1);
  const name = `roles${process.pid}`;
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name}`);
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.close();
  }
  const url = new URL(await clusterAdminUrl());
  url.pathname = `/${name}`;
  const before = PG_MIGRATIONS.findIndex((m) => m.name === '0015_account_roles');
  expect(before).toBe(14);
  const sql = openPostgres(url.toString(), 1);
  try {
    await migratePostgres(sql, PG_MIGRATIONS.slice(0, before));
    for (const [id, email, superuser] of OLD_ACCOUNTS) {
      await sql`INSERT INTO accounts (id, email, password_hash, is_superuser, created_at)
        VALUES (${id}, ${email}, 'x', ${superuser}, ${T0})`;
    }
    // What a node of this release does at start.
    expect(await migratePostgres(sql)).toBe(PG_MIGRATIONS.length - before);
  } finally {
    await sql.close();
  }

  t = await makeTestApp({}, { engine: 'postgres', postgresUrl: url.toString() });
  expect(await rolesSeen(t)).toEqual(EXPECTED);
  const check = openPostgres(url.toString(), 1);
  try {
    const cols = await check`SELECT column_name FROM information_schema.columns WHERE table_name = 'accounts'`;
    const names = cols.map((c: { column_name: string }) => c.column_name);
    expect(names).toContain('role');
    expect(names).not.toContain('is_superuser');
    await expect(check`UPDATE accounts SET role = 'owner' WHERE id = 'acc_boss'`).rejects.toThrow();
  } finally {
    await check.close();
  }
});
