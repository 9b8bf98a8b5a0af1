/**
 * Builds the real app on a fresh SQLite file migrated by the production migrator, with a
 * clock the test controls, and seeds accounts and keys through the real services.
 */
import { expect } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type App, createApp } from '../../src/app';
import { createDeps, type Deps, unportedDb } from '../../src/compose/deps';
import { postgresStores, type Stores, sqliteStores } from '../../src/compose/stores';
import { type Config, loadConfig } from '../../src/config';
import type { Engine } from '../../src/db/address';
import { type Db, openDatabase } from '../../src/db/client';
import { migrateDatabase } from '../../src/db/migrate';
import { openPostgres, type Pg } from '../../src/db/postgres/client';
import { fixedClock } from '../../src/lib/clock';
import { newId } from '../../src/lib/ids';
import type { Logger } from '../../src/lib/log';
import { type AccountRow, insertAccount } from '../../src/modules/auth/accounts';
import { createApiKey } from '../../src/modules/auth/keys';
import type { Scope } from '../../src/modules/auth/model';
import { hashPassword } from '../../src/modules/auth/passwords';
import { freshPostgresUrl } from './postgres';

export const T0 = Date.UTC(2026, 10, 21, 12, 0, 0);

export interface TestApp {
  app: App;
  deps: Deps;
  clock: ReturnType<typeof fixedClock>;
  dir: string;
  errors: string[];
  /** Stops what the app started and removes its database (the SQLite file, or the test database). */
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** The storage engine (test/helpers/engines.ts): SQLite in a temporary folder, or a fresh PostgreSQL database. */
  engine?: Engine;
  /** On PostgreSQL: this database as it is (one a test filled, e.g. by `slink copy-to`), not a fresh one. */
  postgresUrl?: string;
  /** On PostgreSQL: what the stores get instead of the pool itself (a wrapper that counts statements). */
  wrapPostgres?: (sql: Pg) => Pg;
}

export async function makeTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'slink-test-'));
  const engine = options.engine ?? 'sqlite';
  const pgUrl = engine === 'postgres' ? (options.postgresUrl ?? (await freshPostgresUrl())) : null;
  const config: Config = loadConfig({
    SLINK_DB: join(dir, 'slink.db'),
    SLINK_SHORT_HOST: 'https://sl.test',
    SLINK_APP_HOST: 'https://app.sl.test',
    ...(pgUrl ? { SLINK_DATABASE_URL: pgUrl } : {}),
    ...env,
  });
  let db: Db;
  let stores: Stores;
  if (pgUrl) {
    db = unportedDb();
    const pool = openPostgres(pgUrl);
    stores = postgresStores(options.wrapPostgres?.(pool) ?? pool, pgUrl);
  } else {
    db = openDatabase(config.dbPath);
    migrateDatabase(db);
    stores = sqliteStores(db);
  }
  const clock = fixedClock(T0);
  const errors: string[] = [];
  const log: Logger = { info: () => {}, error: (m, e) => errors.push(e === undefined ? m : `${m} ${String(e)}`) };
  const deps: Deps = createDeps({ db, stores, config, clock, log });
  await deps.linksLoaded;
  const app = createApp(deps);
  return {
    app,
    deps,
    clock,
    dir,
    errors,
    async close() {
      deps.linkIndex.stopLoading();
      await deps.follower?.stop();
      deps.exports.close();
      deps.passwordVerifier.close();
      rmSync(dir, { recursive: true, force: true });
      await stores.close();
    },
  };
}

let accountCounter = 0;

/** The password of every fixture account (makeAccount, makeKey). */
export const FIXTURE_PASSWORD = 'correct horse battery';

let fixtureHash: Promise<string> | undefined;

/**
 * The fixture password's argon2id hash, made once per process: a real hash (signing in with
 * FIXTURE_PASSWORD checks it for real), without paying ~120 ms of a core for each of the
 * suite's fixture accounts. A password set through the API is still hashed for itself.
 */
export function fixturePasswordHash(): Promise<string> {
  fixtureHash ??= hashPassword(FIXTURE_PASSWORD);
  return fixtureHash;
}

/**
 * A fresh account whose password is FIXTURE_PASSWORD, written through the real account store
 * (insertAccount: the unique email index holds) with the shared hash.
 */
export async function makeAccount(
  t: Pick<TestApp, 'deps'>,
  opts: { email?: string; superuser?: boolean; role?: AccountRow['role']; projects?: string[] | null } = {},
): Promise<AccountRow> {
  return insertAccount(t.deps, {
    id: newId('acc'),
    email: opts.email ?? `user${++accountCounter}@example.com`,
    passwordHash: await fixturePasswordHash(),
    role: opts.role ?? (opts.superuser ? 'admin' : 'editor'),
    createdAt: t.deps.clock.now(),
    lastSignInAt: null,
    disabledAt: null,
    projects: opts.projects ?? null,
  });
}

/** A fresh account and a key of the given scope; returns the plaintext key. */
export async function makeKey(t: TestApp, scope: Scope, opts: { superuser?: boolean; expiresAt?: number } = {}) {
  const account = await makeAccount(t, { superuser: opts.superuser ?? false });
  const created = await createApiKey(t.deps, {
    accountId: account.id,
    scope,
    expiresAt: opts.expiresAt ?? null,
    name: `${scope} key`,
  });
  return { key: created.key, keyId: created.row.id, account };
}

export interface ApiResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
  text: string;
}

/**
 * Calls the app like a client would: `http://localhost/api/v1` + path (app.handle() misroutes
 * URLs whose host has 3 characters or fewer).
 */
export async function api<T = any>(
  t: TestApp,
  method: string,
  path: string,
  opts: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  let body: string | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const url =
    path.startsWith('/api/') || path === '/healthz' ? `http://localhost${path}` : `http://localhost/api/v1${path}`;
  const res = await t.app.handle(new Request(url, { method, headers, body }));
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed as T, headers: res.headers, text };
}

/**
 * An API call that must answer `status` (201 for POST, else 200); fails naming the path and
 * showing the body otherwise. Answers the body.
 */
export async function apiExpecting(
  t: TestApp,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  status = method === 'POST' ? 201 : 200,
): Promise<any> {
  const res = await api(t, method, path, { key, body });
  expect({ path, status: res.status, body: res.status === status ? null : res.body }).toEqual({
    path,
    status,
    body: null,
  });
  return res.body;
}

/** Stops a listening server if the test started one, checks nothing reached the 500 branch, closes. */
export async function disposeTestApp(t: TestApp): Promise<void> {
  if (t.app.server) await t.app.stop(true);
  expect(t.errors).toEqual([]);
  await t.close();
}
