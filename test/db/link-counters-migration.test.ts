/**
 * Migration 0008 moves each link's counters out of `links` into `link_counters`: every link
 * keeps exactly its counts (zero and a null last click included), `links` loses the columns and
 * their index but not its rows or the rows that reference it, and the API reads them as before.
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
import { api, disposeTestApp, makeKey, makeTestApp, T0, type TestApp } from '../helpers/app';

const dir = mkdtempSync(join(tmpdir(), 'slink-0008-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let t: TestApp | null = null;
afterEach(async () => {
  if (t) await disposeTestApp(t);
  t = null;
});

/** A database migrated up to the migration before 0008, as a release of then left it. */
function migratedUntil0008(path: string): Database {
  const upTo = journal.entries.findIndex((e) => e.tag === '0008_link_counters');
  expect(upTo).toBe(8);
  const db = openDatabase(path);
  // The same call as migrateDatabase, given only the migrations before 0008.
  const internals = db as unknown as { dialect: { migrate(m: MigrationMeta[], s: unknown): void }; session: unknown };
  internals.dialect.migrate(embeddedMigrations().slice(0, upTo), internals.session);
  return db.$client;
}

const OLD_LINKS = [
  // id, click_count, unique_count, bot_count, last_clicked_at
  ['lnk_busy', 1234, 987, 56, T0 - 60_000],
  ['lnk_never', 0, 0, 0, null],
  ['lnk_bots', 0, 0, 7, null],
  ['lnk_tied', 1234, 1, 0, T0 - 1],
] as const;

test('0008 moves every link counter exactly, drops the old columns and index, keeps links and their references', async () => {
  const path = join(dir, 'old.db');
  const old = migratedUntil0008(path);
  expect(old.query("SELECT name FROM sqlite_master WHERE name = 'link_counters'").all()).toEqual([]);
  const insert = old.query(
    `INSERT INTO links (id, slug, destination, params, click_count, unique_count, bot_count, last_clicked_at, created_at, updated_at)
     VALUES (?, ?, 'https://example.com/', '{}', ?, ?, ?, ?, ?, ?)`,
  );
  OLD_LINKS.forEach(([id, clicks, uniques, bots, last], i) => {
    insert.run(id, `s${i}`, clicks, uniques, bots, last, T0 + i, T0 + i);
  });
  old.run("INSERT INTO link_tags (link_id, tag) VALUES ('lnk_never', 'kept')");
  old.close();

  // The app's own start migrates the file (makeTestApp runs the production migrator on it).
  t = await makeTestApp({ SLINK_DB: path });
  const sqlite = t.deps.db.$client;
  expect(
    sqlite.query('SELECT link_id, clicks, uniques, bots, last_clicked_at FROM link_counters ORDER BY link_id').all(),
  ).toEqual(
    OLD_LINKS.map(([id, clicks, uniques, bots, last]) => ({
      link_id: id,
      clicks,
      uniques,
      bots,
      last_clicked_at: last,
    })).sort((a, b) => (a.link_id < b.link_id ? -1 : 1)),
  );
  const columns = sqlite
    .query<{ name: string }, []>('PRAGMA table_info(links)')
    .all()
    .map((c) => c.name);
  for (const gone of ['click_count', 'unique_count', 'bot_count', 'last_clicked_at'])
    expect(columns).not.toContain(gone);
  expect(sqlite.query("SELECT name FROM sqlite_master WHERE name = 'links_clicks_idx'").all()).toEqual([]);
  const table = sqlite.query<{ sql: string }, []>("SELECT sql FROM sqlite_master WHERE name = 'link_counters'").get()!;
  expect(table.sql).toEndWith('WITHOUT ROWID');
  expect(sqlite.query('SELECT count(*) AS n FROM links').get()).toEqual({ n: OLD_LINKS.length });
  expect(sqlite.query('PRAGMA foreign_key_check').all()).toEqual([]);
  expect(sqlite.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });

  // Through the API: the same counts, the tag kept, sort=clicks in counter order.
  const { key } = await makeKey(t, 'read');
  const busy = await api(t, 'GET', '/links/lnk_busy', { key });
  expect(busy.status).toBe(200);
  expect(busy.body).toMatchObject({ clickCount: 1234, uniqueCount: 987, botCount: 56, lastClickedAt: T0 - 60_000 });
  const never = await api(t, 'GET', '/links/lnk_never', { key });
  expect(never.status).toBe(200);
  expect(never.body).toMatchObject({ clickCount: 0, uniqueCount: 0, botCount: 0, lastClickedAt: null, tags: ['kept'] });
  const list = await api(t, 'GET', '/links?sort=clicks', { key });
  expect(list.status).toBe(200);
  expect(list.body.items.map((l: { id: string }) => l.id)).toEqual(['lnk_tied', 'lnk_busy', 'lnk_never', 'lnk_bots']);
});

test('0008 on a database without links creates the empty table', async () => {
  const path = join(dir, 'empty.db');
  migratedUntil0008(path).close();
  t = await makeTestApp({ SLINK_DB: path });
  expect(t.deps.db.$client.query('SELECT count(*) AS n FROM link_counters').get()).toEqual({ n: 0 });
});
