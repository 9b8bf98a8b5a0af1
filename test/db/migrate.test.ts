/**
 * The embedded migrator (src/db/migrate.ts) must behave exactly like drizzle's folder migrator,
 * because dist/slink has no drizzle/ folder; and the database opens with the pragmas a busy
 * single-box service needs.
 */
import { Database } from 'bun:sqlite';
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getTableName, is } from 'drizzle-orm';
import { migrate as folderMigrate } from 'drizzle-orm/bun-sqlite/migrator';
import { readMigrationFiles } from 'drizzle-orm/migrator';
import { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { type Db, openDatabase, pingDatabase } from '../../src/db/client';
import { embeddedMigrations, migrateDatabase } from '../../src/db/migrate';
import * as schema from '../../src/db/schema';
import { BUN, run, tool } from '../helpers/proc';

const ROOT = join(import.meta.dir, '../..');
const MIGRATIONS_FOLDER = join(ROOT, 'drizzle');

let dir: string;
const open: Db[] = [];
function db(name: string): Db {
  const d = openDatabase(join(dir, name));
  open.push(d);
  return d;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'slink-migrate-'));
});
afterEach(() => {
  for (const d of open.splice(0)) d.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

const SCHEMA_TABLES = Object.values(schema)
  .filter((v) => is(v, SQLiteTable))
  .map((v) => getTableName(v as SQLiteTable))
  .sort();

function tables(d: Db): string[] {
  return (
    d.$client
      .query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as { name: string }[]
  ).map((r) => r.name);
}

function schemaSql(d: Db): { type: string; name: string; sql: string | null }[] {
  return d.$client
    .query(
      "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND name != '__drizzle_migrations' ORDER BY type, name",
    )
    .all() as { type: string; name: string; sql: string | null }[];
}

function migrationRows(d: Db) {
  return d.$client.query('SELECT id, hash, created_at FROM __drizzle_migrations ORDER BY id').all() as {
    id: number;
    hash: string;
    created_at: number;
  }[];
}

describe('embedded migrations', () => {
  test('the schema declares the tables the service needs', () => {
    expect(SCHEMA_TABLES).toEqual(
      expect.arrayContaining(['accounts', 'api_keys', 'links', 'link_tags', 'variants', 'projects', 'clicks']),
    );
  });

  test('create every table of the schema on an empty file', () => {
    const d = db('empty.db');
    expect(tables(d)).toEqual([]);
    migrateDatabase(d);
    expect(tables(d)).toEqual([...SCHEMA_TABLES, '__drizzle_migrations'].sort());
    // Every declared column exists.
    for (const value of Object.values(schema)) {
      if (!is(value, SQLiteTable)) continue;
      const name = getTableName(value as SQLiteTable);
      const columns = (d.$client.query(`PRAGMA table_info("${name}")`).all() as { name: string }[])
        .map((c) => c.name)
        .sort();
      const declared = Object.values(
        (value as unknown as Record<symbol, Record<string, { name: string }>>)[Symbol.for('drizzle:Columns')]!,
      )
        .map((c) => c.name)
        .sort();
      expect({ table: name, columns }).toEqual({ table: name, columns: declared });
    }
  });

  test('are idempotent: a second and third run change nothing and keep the data', () => {
    const d = db('twice.db');
    migrateDatabase(d);
    const before = { schema: schemaSql(d), rows: migrationRows(d) };
    d.$client.run(
      "INSERT INTO accounts (id, email, password_hash, role, created_at) VALUES ('acc_1', 'a@b.c', 'h', 'viewer', 1)",
    );
    migrateDatabase(d);
    migrateDatabase(d);
    expect({ schema: schemaSql(d), rows: migrationRows(d) }).toEqual(before);
    expect(d.$client.query('SELECT count(*) AS n FROM accounts').get()).toEqual({ n: 1 });
    // And again after reopening the file.
    d.$client.close();
    open.splice(open.indexOf(d), 1);
    const again = db('twice.db');
    migrateDatabase(again);
    expect(migrationRows(again)).toEqual(before.rows);
  });

  test("write the same rows into __drizzle_migrations as drizzle's folder migrator, and the same schema", () => {
    const embedded = db('embedded.db');
    migrateDatabase(embedded);
    const folder = db('folder.db');
    folderMigrate(folder, { migrationsFolder: MIGRATIONS_FOLDER });
    const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, 'meta/_journal.json'), 'utf8')) as {
      entries: { tag: string; when: number }[];
    };
    const rows = migrationRows(embedded);
    expect(rows).toHaveLength(journal.entries.length);
    expect(rows.map((r) => Number(r.created_at))).toEqual(journal.entries.map((e) => e.when));
    for (const r of rows) expect(r.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows).toEqual(migrationRows(folder));
    expect(schemaSql(embedded)).toEqual(schemaSql(folder));
  });

  test('a database made by the folder migrator is recognised as up to date by the embedded one', () => {
    const d = db('handover.db');
    folderMigrate(d, { migrationsFolder: MIGRATIONS_FOLDER });
    const rows = migrationRows(d);
    migrateDatabase(d); // would fail with "table already exists" if it did not recognise the hashes
    expect(migrationRows(d)).toEqual(rows);
  });

  test("embedded migrations equal drizzle's reading of the folder (sql, breakpoints, time, hash)", () => {
    const fromFolder = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
    expect(embeddedMigrations()).toEqual(fromFolder);
  });

  test('scripts/embed-migrations.ts --check exits 0 for the checked-in module', async () => {
    const check = await tool([BUN, 'run', join(ROOT, 'scripts/embed-migrations.ts'), '--check']);
    expect({ exitCode: check.code, stderr: check.stderr }).toEqual({ exitCode: 0, stderr: '' });
    expect(check.stdout).toContain('up to date');
  });

  test('--check exits non-zero when the generated module is stale', async () => {
    // A copy of the pieces the script reads, with a migration the module does not know.
    const copy = join(dir, 'repo');
    mkdirSync(join(copy, 'src/db'), { recursive: true });
    cpSync(join(ROOT, 'scripts'), join(copy, 'scripts'), { recursive: true });
    cpSync(MIGRATIONS_FOLDER, join(copy, 'drizzle'), { recursive: true });
    cpSync(join(ROOT, 'src/db/migrations.gen.ts'), join(copy, 'src/db/migrations.gen.ts'));
    const check = () =>
      run([BUN, 'run', join(copy, 'scripts/embed-migrations.ts'), '--check'], {
        cwd: copy,
        env: process.env as Record<string, string>,
      });
    expect((await check()).code).toBe(0);
    const journalPath = join(copy, 'drizzle/meta/_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8'));
    journal.entries.push({
      idx: journal.entries.length,
      version: '6',
      when: Date.now(),
      tag: '9999_extra',
      breakpoints: true,
    });
    writeFileSync(journalPath, JSON.stringify(journal));
    writeFileSync(join(copy, 'drizzle/9999_extra.sql'), 'SELECT 1;');
    const stale = await check();
    expect(stale.code).not.toBe(0);
    expect(stale.stderr).toContain('out of date');
  });
});

describe('openDatabase', () => {
  test('sets WAL, synchronous NORMAL, a busy timeout and foreign keys', () => {
    const d = db('pragmas.db');
    const pragma = (name: string) =>
      Object.values(d.$client.query(`PRAGMA ${name}`).get() as Record<string, unknown>)[0];
    expect(pragma('journal_mode')).toBe('wal');
    expect(pragma('foreign_keys')).toBe(1);
    expect(pragma('synchronous')).toBe(1);
    expect(Number(pragma('busy_timeout'))).toBeGreaterThan(0);
    expect(existsSync(join(dir, 'pragmas.db'))).toBe(true);
  });

  test('WAL is persistent: another connection to the file sees it', () => {
    db('wal.db');
    const raw = new Database(join(dir, 'wal.db'));
    try {
      expect(raw.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    } finally {
      raw.close();
    }
  });

  test('foreign keys are enforced', () => {
    const d = db('fk.db');
    migrateDatabase(d);
    expect(() =>
      d.$client.run(
        "INSERT INTO api_keys (id, account_id, prefix, hash, scope, created_at) VALUES ('key_1', 'acc_missing', 'p', 'h', 'read', 1)",
      ),
    ).toThrow(/FOREIGN KEY/);
  });

  test('creates the folder of the file when it is missing', () => {
    const path = join(dir, 'a/b/c/slink.db');
    const d = openDatabase(path);
    open.push(d);
    migrateDatabase(d);
    expect(existsSync(path)).toBe(true);
    expect(pingDatabase(d)).toBe(true);
  });

  test('pingDatabase reports a closed database as down', () => {
    const d = openDatabase(join(dir, 'ping.db'));
    expect(pingDatabase(d)).toBe(true);
    d.$client.close();
    expect(pingDatabase(d)).toBe(false);
  });
});
