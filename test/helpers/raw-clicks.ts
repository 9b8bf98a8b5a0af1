/**
 * The stored raw clicks as rows of a temporary table `raw_clicks` with the columns of the first
 * click table, read back through the click store's own reader (readClicksAfter), so tests can
 * count and group what was recorded in plain SQL. `visitor_hash` is the stored 16 hex
 * characters. Rebuilt at each call: call it right before the query.
 */
import type { Database } from 'bun:sqlite';
import { readClicksAfter } from '../../src/modules/clicks/sqlite/raw-read';

export function refreshRawClicks(sqlite: Database): void {
  sqlite.run('DROP TABLE IF EXISTS temp.raw_clicks');
  sqlite.run(
    `CREATE TEMP TABLE raw_clicks (id INTEGER PRIMARY KEY, link_id TEXT, timestamp INTEGER, variant_id TEXT,
       variant_code TEXT, destination TEXT, params TEXT, country TEXT, city TEXT, device TEXT, os TEXT, browser TEXT,
       referrer TEXT, traffic_type TEXT, language TEXT, bot INTEGER, visitor_hash TEXT, first_of_day INTEGER, rule INTEGER, opted_out INTEGER)`,
  );
  const insert = sqlite.prepare(
    'INSERT INTO temp.raw_clicks VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  for (const c of readClicksAfter(sqlite, 0, Number.MAX_SAFE_INTEGER)) {
    insert.run(
      c.id,
      c.linkId,
      c.time,
      c.variantId,
      c.code,
      c.destination,
      c.paramsJson,
      c.country,
      c.city,
      c.device,
      c.os,
      c.browser,
      c.referrer,
      c.trafficType,
      c.language,
      c.bot ? 1 : 0,
      c.visitor,
      c.firstOfDay ? 1 : 0,
      c.rule,
      c.optedOut ? 1 : 0,
    );
  }
}

/**
 * The rollup buckets with names instead of ids, as a temporary view `named_buckets`: `scope` is
 * the link id ('' for the workspace), `grain` is 'hour' or 'day'; `data` stays packed.
 */
export function createNamedBuckets(sqlite: Database): void {
  sqlite.run(
    `CREATE TEMP VIEW IF NOT EXISTS named_buckets AS
     SELECT CASE WHEN r.scope = 0 THEN '' ELSE v.value END AS scope, CASE r.grain WHEN 0 THEN 'hour' ELSE 'day' END AS grain,
       r.start AS start, r.bot AS bot, r.clicks AS clicks, r.uniques AS uniques, r.data AS data
     FROM main.rollups r LEFT JOIN main.rollup_values v ON v.id = r.scope`,
  );
}

/** `sqlite.query(sql)`, with raw_clicks rebuilt (or named_buckets made) first when the SQL reads it. */
export function queryRaw(sqlite: Database, sql: string) {
  if (/\braw_clicks\b/.test(sql)) refreshRawClicks(sqlite);
  if (/\bnamed_buckets\b/.test(sql)) createNamedBuckets(sqlite);
  return sqlite.query(sql);
}

/**
 * Stores `count` human clicks of a link straight into the tail (a fixture far larger than a
 * test could send), one per millisecond back from `newest`, every fact unknown, landing on
 * https://example.com/landing. Ids continue after the last one assigned.
 */
export function insertTailClicks(sqlite: Database, linkId: string, count: number, newest: number): void {
  sqlite.transaction(() => {
    const value = (dim: string, val: string) =>
      sqlite
        .query<{ id: number }, [string, string]>(
          `INSERT INTO rollup_values (dim, key, value) VALUES (?, '', ?)
           ON CONFLICT (dim, key, value) DO UPDATE SET id = id RETURNING id`,
        )
        .get(dim, val)!.id;
    const link = value('link', linkId);
    const dims = ['country', 'city', 'device', 'os', 'browser', 'referrer', 'trafficType', 'language'].map((d) =>
      value(d, ''),
    );
    const target = sqlite
      .query<{ id: number }, [string]>(
        `INSERT INTO click_targets (link_id, destination, params) VALUES (?, 'https://example.com/landing', '{}') RETURNING id`,
      )
      .get(linkId)!.id;
    const last = sqlite.query<{ id: number }, []>('SELECT coalesce(max(id), 0) AS id FROM click_tail').get()!.id;
    const stateLast =
      sqlite.query<{ v: number }, []>("SELECT value AS v FROM click_state WHERE name = 'last_id'").get()?.v ?? 0;
    const first = Math.max(last, stateLast);
    sqlite
      .query(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO click_tail (id, link, time, target, country, city, device, os, browser, referrer, traffic, language,
           visitor, flags)
         SELECT ? + i, ?, ? - i, ?, ?, ?, ?, ?, ?, ?, ?, ?, i, 0 FROM n`,
      )
      .run(count, first, link, newest, target, ...dims);
    // Past the fold's watermark too, in the same transaction: these stand for clicks counted long
    // ago, and a writer opening meanwhile would otherwise count them as left unfolded by a crash.
    const state = sqlite.prepare(
      `INSERT INTO click_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
    );
    state.run('last_id', first + count);
    state.run('folded_through', first + count);
  })();
}

/** Moves the fold's watermark: clicks up to `id` count as folded, the ones after it as left unfolded by a crash. */
export function setFoldedThrough(sqlite: Database, id: number): void {
  sqlite
    .query(
      `INSERT INTO click_state (name, value) VALUES ('folded_through', ?)
       ON CONFLICT (name) DO UPDATE SET value = excluded.value`,
    )
    .run(id);
}
