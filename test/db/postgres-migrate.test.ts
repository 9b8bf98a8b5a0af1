/**
 * The PostgreSQL migrator (src/db/postgres/migrate.ts) on a real server: every file of
 * migrations/ is registered in order, a fresh database gets all of them once, nodes starting
 * together apply them once (the advisory lock), and a recorded migration whose text changed is
 * refused rather than skipped.
 */
import { describe, expect, test } from 'bun:test';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openPostgres } from '../../src/db/postgres/client';
import { migratePostgres, PG_MIGRATIONS } from '../../src/db/postgres/migrate';
import { clusterAdminUrl } from '../helpers/postgres';

let counter = 0;
/** An empty database (no migration applied), unlike freshPostgresUrl's migrated copies. */
async function emptyDatabase(): Promise<string> {
  const admin = openPostgres(await clusterAdminUrl(), 1);
  const name = `m${process.pid}_${++counter}`;
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.close();
  }
  const url = new URL(await clusterAdminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

describe('PostgreSQL migrations', () => {
  test('every file of migrations/ is registered, in order, as the version its name starts with', () => {
    const files = readdirSync(join(import.meta.dir, '../../src/db/postgres/migrations'))
      .filter((f) => f.endsWith('.sql'))
      .sort();
    expect(PG_MIGRATIONS.map((m) => `${m.name}.sql`)).toEqual(files);
    // Numbers are handed out ahead of the work, so a branch may lack one: versions are the files'
    // own numbers, increasing, never a position in the list.
    expect(PG_MIGRATIONS.map((m) => m.version)).toEqual(files.map((f) => Number(f.slice(0, 4))));
    expect(files.map((f) => Number(f.slice(0, 4)))).toEqual(
      files.map((f) => Number(f.slice(0, 4))).sort((a, b) => a - b),
    );
    expect(new Set(PG_MIGRATIONS.map((m) => m.version)).size).toBe(PG_MIGRATIONS.length);
  });

  test('a fresh database gets every migration once; a second run applies none', async () => {
    const sql = openPostgres(await emptyDatabase(), 2);
    try {
      expect(await migratePostgres(sql)).toBe(PG_MIGRATIONS.length);
      expect(await migratePostgres(sql)).toBe(0);
      const rows = await sql`SELECT version, name FROM slink_migrations ORDER BY version`;
      expect(rows.map((r: { version: number; name: string }) => [r.version, r.name])).toEqual(
        PG_MIGRATIONS.map((m) => [m.version, m.name]),
      );
      const [tables] = await sql`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'
        AND tablename IN ('accounts', 'links', 'click_tail', 'rollups')`;
      expect(tables.n).toBe(4);
    } finally {
      await sql.close();
    }
  });

  test('three nodes starting together apply the migrations once between them', async () => {
    const url = await emptyDatabase();
    const pools = [openPostgres(url, 1), openPostgres(url, 1), openPostgres(url, 1)];
    try {
      const applied = await Promise.all(pools.map((p) => migratePostgres(p)));
      expect(applied.sort()).toEqual([0, 0, PG_MIGRATIONS.length]);
    } finally {
      await Promise.all(pools.map((p) => p.close()));
    }
  });

  test("an upgrade keeps every link's day buckets read as they were: each link's mark goes past its last day bucket", async () => {
    const sql = openPostgres(await emptyDatabase(), 1);
    try {
      await migratePostgres(
        sql,
        PG_MIGRATIONS.filter((m) => m.name < '0020_link_days_rolled_up'),
      );
      const DAY = 86_400_000;
      const D1 = Date.UTC(2026, 10, 20);
      // Written by the fold before: every link's day buckets complete, both grains (scope 5 and 6,
      // 0 the workspace); scope 6 has a mark copied from SQLite by copy-to, later than its days.
      const row = (scope: number, grain: number, start: number) =>
        sql`INSERT INTO rollups (scope, grain, start, bot, clicks, uniques, data)
          VALUES (${scope}, ${grain}, ${start}, false, 1, 1, ''::bytea)`;
      for (const scope of [0, 5, 6]) {
        await row(scope, 0, D1 + 3_600_000);
        await row(scope, 0, D1 + DAY + 3_600_000);
        await row(scope, 1, D1);
        await row(scope, 1, D1 + DAY);
      }
      await sql`INSERT INTO rollup_marks (scope, days_before) VALUES (6, ${D1 + 5 * DAY})`;
      await migratePostgres(sql);
      const marks = await sql`SELECT scope, days_before FROM rollup_marks ORDER BY scope`;
      expect(marks.map((m: { scope: number; days_before: string }) => [m.scope, Number(m.days_before)])).toEqual([
        [5, D1 + 2 * DAY],
        [6, D1 + 5 * DAY],
      ]);
    } finally {
      await sql.close();
    }
  });

  test('a recorded migration whose text changed is refused, and nothing is applied', async () => {
    const sql = openPostgres(await emptyDatabase(), 1);
    try {
      await migratePostgres(sql, PG_MIGRATIONS.slice(0, 1));
      const changed = [{ ...PG_MIGRATIONS[0]!, sql: `${PG_MIGRATIONS[0]!.sql}\n-- edited` }, ...PG_MIGRATIONS.slice(1)];
      await expect(migratePostgres(sql, changed)).rejects.toThrow(
        'migration 0001_init was applied with a different text: this database is not this release',
      );
      const [row] = await sql`SELECT count(*)::int AS n FROM slink_migrations`;
      expect(row.n).toBe(1);
    } finally {
      await sql.close();
    }
  });
});
