/**
 * Migration 0009 rebuilds click_targets with AUTOINCREMENT: every stored target keeps its id (so
 * every stored click still names its own), the high-water mark starts at the highest id stored,
 * and from then on an id that went with a deleted link is never given to another target.
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
import { insertTailClicks } from '../helpers/raw-clicks';
import { click, flushOk, UA } from '../modules/clicks/support';

const dir = mkdtempSync(join(tmpdir(), 'slink-0009-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let t: TestApp | null = null;
afterEach(async () => {
  if (t) await disposeTestApp(t);
  t = null;
});

/** A database migrated up to the migration before 0009, as a release of then left it. */
function migratedUntil0009(path: string): Database {
  const upTo = journal.entries.findIndex((e) => e.tag === '0009_click_targets_never_reused');
  expect(upTo).toBe(9);
  const db = openDatabase(path);
  const internals = db as unknown as { dialect: { migrate(m: MigrationMeta[], s: unknown): void }; session: unknown };
  internals.dialect.migrate(embeddedMigrations().slice(0, upTo), internals.session);
  return db.$client;
}

function addLink(sqlite: Database, id: string, slug: string): void {
  sqlite
    .query(
      `INSERT INTO links (id, slug, destination, params, created_at, updated_at)
       VALUES (?, ?, 'https://example.com/landing', '{}', ?, ?)`,
    )
    .run(id, slug, T0, T0);
  sqlite.query('INSERT INTO link_counters (link_id, clicks) VALUES (?, 0)').run(id);
}

const targets = (sqlite: Database) =>
  sqlite.query<{ id: number; link_id: string }, []>('SELECT id, link_id FROM click_targets ORDER BY id').all();
const highWater = (sqlite: Database) =>
  sqlite.query<{ seq: number }, []>("SELECT seq FROM sqlite_sequence WHERE name = 'click_targets'").get()?.seq;

test('0009 keeps every target and its id, starts the high-water mark at the highest, and never gives an id again', async () => {
  const path = join(dir, 'old.db');
  const old = migratedUntil0009(path);
  // Two links with stored clicks (targets 1 and 2), and a third whose link was deleted with its
  // clicks and target before the upgrade (target 3: the highest then, gone now).
  addLink(old, 'lnk_first', 'first');
  addLink(old, 'lnk_second', 'second');
  addLink(old, 'lnk_gone', 'gone');
  insertTailClicks(old, 'lnk_first', 3, T0 - 10_000);
  insertTailClicks(old, 'lnk_second', 2, T0 - 5_000);
  insertTailClicks(old, 'lnk_gone', 1, T0 - 1_000);
  expect(targets(old).map((r) => r.id)).toEqual([1, 2, 3]);
  old.run(
    "DELETE FROM click_tail WHERE target = 3; DELETE FROM click_targets WHERE id = 3; DELETE FROM links WHERE id = 'lnk_gone'",
  );
  old.close();

  t = await makeTestApp({ SLINK_DB: path });
  const sqlite = t.deps.db.$client;
  const table = sqlite.query<{ sql: string }, []>("SELECT sql FROM sqlite_master WHERE name = 'click_targets'").get()!;
  expect(table.sql).toContain('AUTOINCREMENT');
  expect(sqlite.query("SELECT name FROM sqlite_master WHERE name = 'click_targets_key'").all()).toEqual([
    { name: 'click_targets_key' },
  ]);
  expect(targets(sqlite)).toEqual([
    { id: 1, link_id: 'lnk_first' },
    { id: 2, link_id: 'lnk_second' },
  ]);
  expect(highWater(sqlite)).toBe(2);
  const { key } = await makeKey(t, 'write', { superuser: true });
  // The stored clicks still read as their own link's.
  for (const [id, n] of [
    ['lnk_first', 3],
    ['lnk_second', 2],
  ] as const) {
    const res = await api(t, 'GET', `/links/${id}/clicks`, { key });
    expect(res.status).toBe(200);
    expect(res.body.items.map((i: any) => [i.linkId, i.destination])).toEqual(
      Array.from({ length: n }, () => [id, 'https://example.com/landing']),
    );
  }

  // A new link's target takes the next id; deleted with its link, that id is not given again.
  const made = await api(t, 'POST', '/links', {
    key,
    body: { destination: 'https://a.example/', params: { token: 'A-secret' } },
  });
  expect(made.status).toBe(201);
  expect(await click(t, `/${made.body.slug}`, { ua: UA.curl })).toBe(302);
  await flushOk(t);
  expect(targets(sqlite).at(-1)).toEqual({ id: 3, link_id: made.body.id });
  expect((await api(t, 'DELETE', `/links/${made.body.id}`, { key })).status).toBe(200);
  expect(targets(sqlite).map((r) => r.id)).toEqual([1, 2]);
  const next = await api(t, 'POST', '/links', { key, body: { destination: 'https://b.example/' } });
  expect(await click(t, `/${next.body.slug}`)).toBe(302);
  await flushOk(t);
  expect(targets(sqlite).at(-1)).toEqual({ id: 4, link_id: next.body.id });
  expect(highWater(sqlite)).toBe(4);
  const listed = await api(t, 'GET', `/links/${next.body.id}/clicks`, { key });
  expect(listed.body.items.map((i: any) => [i.destination, i.params])).toEqual([['https://b.example/', {}]]);
});
