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
import { openPostgres } from '../../src/db/postgres/client';
import { systemClock } from '../../src/lib/clock';
import { bumpLinkCounters } from '../../src/modules/links/counters';
import { encodeCursor } from '../../src/modules/links/cursor';
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

async function measure(shape: string): Promise<void> {
  const { label, clicks } = SHAPES[shape]!;
  const cluster = await benchPostgres();
  const sql = openPostgres(cluster.url, 4);
  const rand = prng(20261130);
  try {
    for (let i = 0; i < LINKS; i += 10_000) {
      const n = Math.min(10_000, LINKS - i);
      const ids = Array.from({ length: n }, (_, k) => id(i + k));
      // Domain 1: the first domain, which the migrations make. One link in ten carries the tag.
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
    await sql`VACUUM ANALYZE`;
    const [schema] = await sql`SELECT string_agg(indexname, ', ' ORDER BY indexname) AS indexes,
      (SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = 'link_counters') AS options
      FROM pg_indexes WHERE tablename = 'link_counters'`;

    // The update, as a fold writes it.
    let cpuUs = 0;
    for (let f = 0; f < FOLDS; f++) {
      const chosen = new Set<number>();
      while (chosen.size < PER_FOLD) chosen.add(Math.floor(rand() * LINKS));
      const bumps = [...chosen].map((i) => {
        const human = rand() < 2 / 3;
        return {
          id: id(i),
          humans: human ? 1 : 0,
          uniques: human ? 1 : 0,
          bots: human ? 0 : 1,
          last: 1_790_000_000_000,
        };
      });
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

console.log(`${LINKS.toLocaleString('en-US')} links, ${RUNS} timed runs per page after 3 warm-ups`);
for (const shape of values.shapes.split(',')) await measure(shape);
process.exit(0);
