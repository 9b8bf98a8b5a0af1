/**
 * The links list's click order on PostgreSQL (docs/performance.md, "The second PostgreSQL click
 * path: the database side"): what keeping it costs the fold's counters update, and what a page of
 * `GET /links?sort=clicks` costs to read.
 *
 * For each shape of counters (`--shapes`: `zero`, every link at 0 as bench:writer starts; `grown`,
 * 1,000-5,000 clicks each, a service that has run a while; `tail`, the i-th link 1,000,000 / i
 * clicks, most links below 64), a fresh throwaway cluster (pg-cluster.ts, durable defaults) with
 * `--links` links and their counters, then:
 *
 * - the update: `--folds` folds' counters statements (links/counters.ts, bumpLinkCounters, each
 *   in its own transaction) of 20,000 distinct random links, two in three a human click and the
 *   rest a bot's: PostgreSQL's CPU (the postmaster and every backend, from /proc) per link
 *   updated, and the share of those updates that were HOT (pg_stat_user_tables);
 * - the page: a real HTTP server of the app on that database, `--runs` timed GETs (after 3
 *   warm-ups) of the first page of `sort=clicks`, of a page from the middle (its cursor that of
 *   the link half way down the order), and of the first page of a tag held by one link in ten;
 *   p50 and p95, and a hash of each answer's body (the same data in every run: equal hashes are
 *   equal answers).
 *
 * Whatever the schema the migrations of this tree make is measured: run it in two trees (the
 * commit before a change and the change) one after the other to compare them.
 *
 *   bun run bench:click-order [-- --links 100000 --folds 8 --runs 15 --shapes zero,grown,tail]
 */
import { parseArgs } from 'node:util';
import { createDeps, unportedDb } from '../../src/compose/deps';
import { postgresStores } from '../../src/compose/stores';
import { loadConfig } from '../../src/config';
import { openPostgres, type Pg } from '../../src/db/postgres/client';
import { systemClock } from '../../src/lib/clock';
import { bumpLinkCounters } from '../../src/modules/links/counters';
import { encodeCursor } from '../../src/modules/links/cursor';
import { createPostgresLinkStore } from '../../src/modules/links/postgres/store';
import { prng } from '../helpers/random';
import { treeCpuUs } from './cpu-use';
import { benchPostgres } from './pg-cluster';
import { servedWithReadKey, timeGet } from './stats-calls';

const { values } = parseArgs({
  options: {
    links: { type: 'string', default: '100000' },
    folds: { type: 'string', default: '8' },
    runs: { type: 'string', default: '15' },
    shapes: { type: 'string', default: 'zero,grown,tail' },
    /** Both designs in one cluster, taking turns (this tree's rank, and the index on clicks before it). */
    alternate: { type: 'boolean', default: false },
  },
});
const LINKS = Number(values.links);
const FOLDS = Number(values.folds);
const RUNS = Number(values.runs);
const PER_FOLD = Math.min(20_000, LINKS);

const SHAPES: Record<string, { label: string; clicks: (i: number, rand: () => number) => number }> = {
  zero: { label: 'at 0', clicks: () => 0 },
  grown: { label: '1,000-5,000', clicks: (_i, rand) => 1000 + Math.floor(rand() * 4001) },
  tail: { label: '1,000,000 / i', clicks: (i) => Math.floor(1_000_000 / (i + 1)) },
};

const quiet = { info: () => {}, error: (m: string, e?: unknown) => console.error(m, e) };
const id = (i: number) => `lnk_bench${String(i).padStart(7, '0')}`;

/** `LINKS` links on domain 1 (the migrations make it), one in ten tagged `tenth`, their counters at `clicks`. */
async function seed(sql: Pg, clicks: (i: number, rand: () => number) => number, rand: () => number): Promise<void> {
  for (let i = 0; i < LINKS; i += 10_000) {
    const n = Math.min(10_000, LINKS - i);
    const ids = Array.from({ length: n }, (_, k) => id(i + k));
    await sql`INSERT INTO links (id, slug, domain_id, destination, status, params, created_at, updated_at)
      SELECT u.id, 's' || u.id, 1, 'https://www.example.org/' || u.id, 'active', '{}', 0, 0
      FROM unnest(${sql.array(ids, 'text')}::text[]) AS u(id)`;
    await sql`INSERT INTO link_tags (link_id, tag) SELECT u.id, 'tenth'
      FROM unnest(${sql.array(
        ids.filter((_, k) => (i + k) % 10 === 0),
        'text',
      )}::text[]) AS u(id)`;
    await sql`INSERT INTO link_counters (link_id, clicks) SELECT * FROM unnest(${sql.array(ids, 'text')}::text[],
      ${sql.array(
        ids.map((_, k) => clicks(i + k, rand)),
        'int8',
      )}::int8[])`;
  }
}

/** One fold's counters: `PER_FOLD` distinct random links, two in three a human click. */
function foldBumps(rand: () => number) {
  const chosen = new Set<number>();
  while (chosen.size < PER_FOLD) chosen.add(Math.floor(rand() * LINKS));
  return [...chosen].map((i) => {
    const human = rand() < 2 / 3;
    return { id: id(i), humans: human ? 1 : 0, uniques: human ? 1 : 0, bots: human ? 0 : 1, last: 1_790_000_000_000 };
  });
}

async function measure(shape: string): Promise<void> {
  const { label, clicks } = SHAPES[shape]!;
  const cluster = await benchPostgres();
  const sql = openPostgres(cluster.url, 4);
  const rand = prng(20261130);
  try {
    await seed(sql, clicks, rand);
    await sql`VACUUM ANALYZE`;
    const [schema] = await sql`SELECT string_agg(indexname, ', ' ORDER BY indexname) AS indexes,
      (SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = 'link_counters') AS options
      FROM pg_indexes WHERE tablename = 'link_counters'`;

    // The update, as a fold writes it.
    let cpuUs = 0;
    for (let f = 0; f < FOLDS; f++) {
      const bumps = foldBumps(rand);
      const before = treeCpuUs(cluster.pid);
      await sql.begin((tx) => bumpLinkCounters(tx, bumps));
      cpuUs += treeCpuUs(cluster.pid) - before;
    }
    // A backend's counts reach pg_stat_user_tables when it is idle or gone: read them on a new connection after closing.
    await sql.close();
    const stats = openPostgres(cluster.url, 1);
    const [hot] = await stats`SELECT n_tup_upd::int8 AS upd, n_tup_hot_upd::int8 AS hot FROM pg_stat_user_tables
      WHERE relname = 'link_counters'`;
    const middle = await stats`SELECT clicks::int8 AS clicks, link_id FROM link_counters
      ORDER BY clicks DESC, link_id DESC OFFSET ${Math.floor(LINKS / 2)} LIMIT 1`;
    await stats.close();

    // The page, through the real HTTP server.
    const pg = openPostgres(cluster.url);
    const deps = createDeps({
      db: unportedDb(),
      stores: postgresStores(pg, cluster.url),
      config: loadConfig({
        SLINK_SHORT_HOST: 'https://sl.bench',
        SLINK_RATE_LIMIT: '1000000',
        SLINK_DATABASE_URL: cluster.url,
      }),
      clock: systemClock,
      log: quiet,
    });
    await deps.linksLoaded;
    const server = await servedWithReadKey(deps);
    const pages: [string, string][] = [
      ['first page (50)', '/links?sort=clicks'],
      [
        `middle page (50, after ${Number(middle[0].clicks).toLocaleString('en-US')} clicks)`,
        `/links?sort=clicks&cursor=${encodeCursor('clicks', { value: Number(middle[0].clicks), id: middle[0].link_id })}`,
      ],
      ['first page of a tag on one link in ten (50)', '/links?sort=clicks&tag=tenth'],
    ];
    const timed: string[] = [];
    try {
      for (const [name, path] of pages) {
        const t = await timeGet(server.base, server.key, path, RUNS);
        const hash = new Bun.CryptoHasher('sha256').update(t.body).digest('hex').slice(0, 12);
        timed.push(`  ${name}: p50 ${t.p50.toFixed(2)} ms, p95 ${t.p95.toFixed(2)} ms, body ${hash}`);
      }
    } finally {
      await server.stop();
      deps.linkIndex.stopLoading();
      deps.exports.close();
      deps.passwordVerifier.close();
      await deps.stores.close();
    }
    const upd = Number(hot.upd);
    console.log(`counters ${label} (indexes: ${schema.indexes}; options: ${schema.options ?? 'none'}):`);
    console.log(
      `  counters update: ${FOLDS} folds of ${PER_FOLD.toLocaleString('en-US')} links, PostgreSQL CPU ${(cpuUs / (FOLDS * PER_FOLD)).toFixed(2)} us per link updated, HOT ${((100 * Number(hot.hot)) / Math.max(1, upd)).toFixed(0)}% of ${upd.toLocaleString('en-US')} updates`,
    );
    for (const line of timed) console.log(line);
  } finally {
    cluster.stop();
  }
}

/** p50 of a list of ms. */
const p50 = (ms: number[]) => [...ms].sort((a, b) => a - b)[Math.floor(ms.length / 2)]!;

/**
 * `--alternate`: the rank (this tree's migrations) and the index on `(clicks, link_id)` it
 * replaced, in two databases of one cluster seeded alike, taking turns fold by fold and page by
 * page, so the box's load falls on both alike. The page is the store's (two parts) against the
 * single statement it replaced, timed in this process (no HTTP); their ids must be equal.
 */
async function alternate(shape: string): Promise<void> {
  const { label, clicks } = SHAPES[shape]!;
  const cluster = await benchPostgres();
  const rand = prng(20261130);
  const beforeUrl = cluster.url.replace(/\/slink_bench$/, '/slink_before');
  try {
    const seeding = openPostgres(cluster.url, 2);
    await seed(seeding, clicks, rand);
    await seeding.close();
    const admin = openPostgres(cluster.url.replace(/\/slink_bench$/, '/postgres'), 1);
    await admin.unsafe('CREATE DATABASE slink_before TEMPLATE slink_bench');
    await admin.close();
    const rank = openPostgres(cluster.url, 2);
    const index = openPostgres(beforeUrl, 2);
    await index.unsafe(`ALTER TABLE link_counters DROP COLUMN click_rank;
      ALTER TABLE link_counters RESET (fillfactor);
      CREATE INDEX link_counters_clicks_idx ON link_counters (clicks, link_id)`);
    for (const sql of [rank, index]) {
      await sql`VACUUM FULL link_counters`;
      await sql`VACUUM ANALYZE`;
    }
    const designs = [
      { name: 'rank (click_rank, link_id), fillfactor 80', sql: rank, url: cluster.url, cpuUs: 0 },
      { name: 'index on (clicks, link_id) (before)', sql: index, url: beforeUrl, cpuUs: 0 },
    ];
    for (let f = 0; f < FOLDS; f++) {
      const bumps = foldBumps(rand);
      for (const d of f % 2 === 0 ? designs : [...designs].reverse()) {
        const before = treeCpuUs(cluster.pid);
        await d.sql.begin((tx) => bumpLinkCounters(tx, bumps));
        d.cpuUs += treeCpuUs(cluster.pid) - before;
      }
    }
    const [middle] = await rank`SELECT clicks::int8 AS clicks, link_id FROM link_counters
      ORDER BY clicks DESC, link_id DESC OFFSET ${Math.floor(LINKS / 2)} LIMIT 1`;
    const after = { value: Number(middle.clicks), id: middle.link_id as string };
    const store = createPostgresLinkStore(rank);
    const LINK_ROW = `l.*, c.clicks, c.uniques, c.bots, c.last_clicked_at, c.fallback_visits, c.imported_source,
      c.imported_at, c.imported_history, c.imported_clicks`;
    /** The statement the store ran before the rank. */
    const old = (tag: boolean, key: typeof after | null) =>
      index<{ id: string }[]>`SELECT ${index.unsafe(LINK_ROW)} FROM links l JOIN link_counters c ON c.link_id = l.id
        WHERE l.status IN ('active', 'paused')
        ${tag ? index`AND EXISTS (SELECT 1 FROM link_tags t WHERE t.link_id = l.id AND t.tag = 'tenth')` : index``}
        ${key ? index`AND (c.clicks, c.link_id) < (${key.value}::int8, ${key.id}::text)` : index``}
        ORDER BY c.clicks DESC, c.link_id DESC LIMIT 51`;
    const pages: [string, boolean, typeof after | null][] = [
      ['first page (50)', false, null],
      [`middle page (50, after ${after.value.toLocaleString('en-US')} clicks)`, false, after],
      ['first page of a tag on one link in ten (50)', true, null],
    ];
    const lines: string[] = [];
    for (const [name, tag, key] of pages) {
      const times: [number[], number[]] = [[], []];
      for (let r = 0; r < RUNS + 3; r++) {
        const t0 = performance.now();
        const page = await store.page({ now: 0, ...(tag ? { tag: 'tenth' } : {}) }, 'clicks', 50, key);
        const t1 = performance.now();
        const rows = await old(tag, key);
        const t2 = performance.now();
        const same =
          page.rows.map((row) => row.id).join() ===
          rows
            .slice(0, 50)
            .map((row) => row.id)
            .join();
        if (!same) throw new Error(`${name}: the two designs answered different pages`);
        if (r >= 3) {
          times[0].push(t1 - t0);
          times[1].push(t2 - t1);
        }
      }
      lines.push(
        `  ${name}: rank p50 ${p50(times[0]).toFixed(2)} ms, before p50 ${p50(times[1]).toFixed(2)} ms, same ids`,
      );
    }
    await rank.close();
    await index.close();
    console.log(
      `counters ${label}, both designs in turn (${FOLDS} folds of ${PER_FOLD.toLocaleString('en-US')} links each):`,
    );
    for (const d of designs) {
      // A backend's counts reach pg_stat_user_tables when it is idle or gone: read on a new connection after closing.
      const stats = openPostgres(d.url, 1);
      const [hot] = await stats`SELECT n_tup_upd::int8 AS upd, n_tup_hot_upd::int8 AS hot FROM pg_stat_user_tables
        WHERE relname = 'link_counters'`;
      await stats.close();
      console.log(
        `  ${d.name}: PostgreSQL CPU ${(d.cpuUs / (FOLDS * PER_FOLD)).toFixed(2)} us per link updated, HOT ${((100 * Number(hot.hot)) / Math.max(1, Number(hot.upd))).toFixed(0)}% of ${Number(hot.upd).toLocaleString('en-US')} updates`,
      );
    }
    console.log('  pages, the store against the statement before it, in this process (no HTTP):');
    for (const line of lines) console.log(line);
  } finally {
    cluster.stop();
  }
}

console.log(`${LINKS.toLocaleString('en-US')} links, ${RUNS} timed runs per page after 3 warm-ups`);
for (const shape of values.shapes.split(',')) await (values.alternate ? alternate(shape) : measure(shape));
process.exit(0);
