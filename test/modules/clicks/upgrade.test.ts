/**
 * The click storage upgrade (src/modules/clicks/upgrade.ts) on the old-release fixture, in
 * process: every old row becomes a raw click with the same id, time and visitor (its first 16
 * hex), the counters and rollups equal the old release's, the old table goes; a run stopped
 * between chunks and run again ends exactly where one run does. Answers over HTTP are checked
 * against the old release's own in test/upgrade.test.ts.
 */
import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../../src/db/client';
import { migrateDatabase } from '../../../src/db/migrate';
import { fixedClock } from '../../../src/lib/clock';
import { hasOldClickTable, type OldClickRow, upgradeClickStorage } from '../../../src/modules/clicks/sqlite/upgrade';
import { decodeCounts } from '../../../src/modules/rollups/rollup-codec';
import { buildOldReleaseDb, releaseCounters } from '../../fixtures/old-release-db';
import { createNamedBuckets, refreshRawClicks } from '../../helpers/raw-clicks';

const dir = mkdtempSync(join(tmpdir(), 'slink-upgrade-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

type NamedBucket = { scope: string; grain: string; start: number; bot: number; clicks: number; uniques: number };

/** The buckets each fixture held as that release wrote them, read before the migrations replace their table. */
const releaseBuckets = new WeakMap<Database, ReturnType<typeof buckets>>();
/** The counters each fixture held as that release wrote them, read before migration 0008 moves them. */
const releaseCountersOf = new WeakMap<Database, ReturnType<typeof releaseCounters>>();

/** A fresh fixture, opened and migrated by the current code (the old clicks still in place). */
function fixture(): Database {
  const path = join(dir, `f${++n}.db`);
  buildOldReleaseDb(path);
  const old = new Database(path, { readonly: true });
  // That release's format: text scopes and grains, the breakdown as little-endian uint32 (id, clicks) pairs.
  const written = old
    .query<NamedBucket & { data: Uint8Array }, []>(
      'SELECT scope, grain, start, bot, clicks, uniques, data FROM rollup_buckets ORDER BY scope, grain, start, bot',
    )
    .all()
    .map(({ data, ...b }) => {
      const pairs = new Uint32Array(data.slice().buffer);
      const counts: [number, number][] = [];
      for (let i = 0; i < pairs.length; i += 2) counts.push([pairs[i]!, pairs[i + 1]!]);
      return { ...b, counts: counts.sort((x, y) => x[0] - y[0]) };
    });
  const releaseCounted = releaseCounters(old);
  old.close();
  const db = openDatabase(path);
  migrateDatabase(db);
  releaseBuckets.set(db.$client, written);
  releaseCountersOf.set(db.$client, releaseCounted);
  return db.$client;
}

/** A row of the first click table as OLD selects it: its visitor as the 16 hex characters kept. */
type OldClick = Omit<OldClickRow, 'visitor_hash'> & { visitor: string };

const OLD = `SELECT id, link_id, timestamp, variant_id, variant_code, destination, params, country, city, device, os,
  browser, referrer, traffic_type, language, bot, substr(visitor_hash, 1, 16) AS visitor, first_of_day FROM clicks ORDER BY id`;

/**
 * The converted clicks in the old row shape, read back through the click store's own reader
 * (tail and sealed blocks alike: the upgrade seals what it converted).
 */
function converted(sqlite: Database) {
  refreshRawClicks(sqlite);
  return sqlite
    .query(
      `SELECT id, link_id, timestamp, variant_id, variant_code, destination, params, country, city, device, os, browser,
        referrer, traffic_type, language, bot, visitor_hash AS visitor, first_of_day FROM temp.raw_clicks ORDER BY id`,
    )
    .all();
}

/** Buckets with their breakdowns as sorted (value id, clicks) pairs: the order inside a blob is free. */
function buckets(sqlite: Database) {
  createNamedBuckets(sqlite);
  return sqlite
    .query<NamedBucket & { data: Uint8Array }, []>(
      'SELECT scope, grain, start, bot, clicks, uniques, data FROM named_buckets ORDER BY scope, grain, start, bot',
    )
    .all()
    .map(({ data, ...b }) => ({ ...b, counts: [...decodeCounts(data)].sort((x, y) => x[0] - y[0]) }));
}

/** The counters of the migrated database: the link's are in link_counters (since 0008). */
function counters(sqlite: Database) {
  return {
    links: sqlite
      .query('SELECT link_id AS id, clicks, uniques, bots, last_clicked_at FROM link_counters ORDER BY link_id')
      .all(),
    variants: sqlite.query('SELECT id, click_count FROM variants ORDER BY id').all(),
  };
}

/** Everything the upgrade writes, for comparing two upgraded databases. */
function endState(sqlite: Database) {
  return {
    clicks: converted(sqlite),
    buckets: buckets(sqlite),
    counters: counters(sqlite),
    state: sqlite.query('SELECT name, value FROM click_state ORDER BY name').all(),
    oldTable: hasOldClickTable(sqlite),
  };
}

describe('upgrading the click storage', () => {
  test('every old row becomes a raw click with its id, time and facts; counters and rollups stay; the old table goes', () => {
    const sqlite = fixture();
    const before = {
      clicks: sqlite.query<OldClick, []>(OLD).all(),
      buckets: releaseBuckets.get(sqlite)!,
      counters: releaseCountersOf.get(sqlite)!,
    };
    // Migration 0008 moved them to link_counters as they were.
    expect(counters(sqlite)).toEqual(before.counters);
    expect(before.clicks).toHaveLength(3000);
    expect(before.buckets.length).toBeGreaterThan(100);
    const lines: string[] = [];
    const today = Date.UTC(2026, 10, 24);
    const result = upgradeClickStorage(sqlite, {
      log: (l) => lines.push(l),
      chunk: 1000,
      clock: fixedClock(today + 5 * 3_600_000),
    });
    expect(result?.converted).toBe(3000);
    expect(converted(sqlite)).toEqual(before.clicks);
    expect(counters(sqlite)).toEqual(before.counters);
    expect(buckets(sqlite)).toEqual(before.buckets);
    // Both grains were written whole: every clicked link's day buckets are trusted up to today.
    const marks = sqlite
      .query<{ d: number; n: number }, []>('SELECT days_before AS d, count(*) AS n FROM rollup_marks GROUP BY 1')
      .all();
    const linkScopes = sqlite
      .query<{ n: number }, []>('SELECT count(DISTINCT scope) AS n FROM rollups WHERE scope <> 0')
      .get()!.n;
    expect(linkScopes).toBeGreaterThan(0);
    expect(marks).toEqual([{ d: today, n: linkScopes }]);
    expect(sqlite.query('SELECT name, value FROM click_state ORDER BY name').all()).toEqual([
      { name: 'folded_through', value: 3000 },
      { name: 'last_id', value: 3000 },
    ]);
    expect(hasOldClickTable(sqlite)).toBe(false);
    expect(lines[0]).toBe('upgrading click storage: 0 of 3,000 clicks');
    expect(lines).toContain('upgrading click storage: 1,000 of 3,000 clicks');
    expect(lines).toContain('upgrading click storage: 3,000 of 3,000 clicks');
    expect(lines.at(-1)).toMatch(/^click storage upgraded: 3,000 clicks in \d+\.\d s \([\d,]+ clicks\/s\)$/);
    // Nothing is left to do, and doing nothing says nothing.
    expect(upgradeClickStorage(sqlite, { log: (l) => lines.push(`again: ${l}`) })).toBeNull();
    expect(lines.filter((l) => l.startsWith('again'))).toEqual([]);
    sqlite.close();
  });

  test('stopped after two chunks, then run again: the same end as one run, counted from where it stopped', () => {
    const once = fixture();
    upgradeClickStorage(once, { log: () => {}, chunk: 700 });
    const expected = endState(once);
    once.close();

    const sqlite = fixture();
    const stop = new Error('stopped');
    expect(() =>
      upgradeClickStorage(sqlite, {
        log: () => {},
        chunk: 700,
        afterChunk: (converted) => {
          if (converted >= 1400) throw stop;
        },
      }),
    ).toThrow(stop);
    // Two whole chunks moved; the rest still in the old table.
    expect(sqlite.query('SELECT count(*) AS n FROM click_tail').get()).toEqual({ n: 1400 });
    expect(sqlite.query('SELECT min(id) AS id, count(*) AS n FROM clicks').get()).toEqual({ id: 1401, n: 1600 });
    const lines: string[] = [];
    expect(upgradeClickStorage(sqlite, { log: (l) => lines.push(l), chunk: 700 })?.converted).toBe(1600);
    expect(lines[0]).toBe('upgrading click storage: 1,400 of 3,000 clicks (resumed)');
    expect(endState(sqlite)).toEqual(expected);
    sqlite.close();
  });

  test('ids the old table gave to clicks since deleted are never given again', () => {
    const sqlite = fixture();
    // The newest clicks went with their link: the old table's high-water mark is above its rows.
    sqlite.run("DELETE FROM clicks WHERE id > 2990 AND link_id = 'lnk_fixtureAlpha0001'");
    const kept = sqlite.query<{ id: number }, []>('SELECT max(id) AS id FROM clicks').get()!.id;
    upgradeClickStorage(sqlite, { log: () => {} });
    refreshRawClicks(sqlite);
    expect(sqlite.query<{ id: number }, []>('SELECT max(id) AS id FROM temp.raw_clicks').get()!.id).toBe(kept);
    expect(sqlite.query("SELECT value FROM click_state WHERE name = 'last_id'").get()).toEqual({ value: 3000 });
    sqlite.close();
  });

  test('a database with an empty old table (created new by migration 0000) only loses the table', () => {
    const path = join(dir, 'fresh.db');
    const db = openDatabase(path);
    migrateDatabase(db);
    expect(upgradeClickStorage(db.$client, { log: () => {} })).toEqual({ converted: 0, ms: expect.any(Number) });
    expect(hasOldClickTable(db.$client)).toBe(false);
    // Only the fold's watermark of a new database (migration 0005): nothing converted, no id used.
    expect(db.$client.query('SELECT name, value FROM click_state').all()).toEqual([
      { name: 'folded_through', value: 0 },
    ]);
    db.$client.close();
  });
});
