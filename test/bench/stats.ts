/**
 * Analytics benchmark (docs/performance.md): statistics, the clicks list and the CSV export at ten million
 * clicks. Run: bun run bench:stats [--clicks 10000000] [--links 10000] [--days 90] [--runs 30]
 *   [--dir <folder>] [--reseed] [--only stats|export] [--engine sqlite|postgres]
 *
 * Seeding: every click goes through the real app (app.handle: the redirect hook, the click
 * buffer) and the real flush (ClickFlusher -> SqliteClickWriter: enrichment with the bundled DB-IP
 * database, visitor hashing, one transaction per batch of 2,000). The clock is simulated so the
 * clicks spread over the last `days` days in time order. Writing is inline (not the writer
 * Worker) only because the Worker reads the system clock, under which 90-day-old clicks would
 * lose their visitor salts between batches. The seeded database is kept in --dir and reused by
 * the next run with the same parameters (seeding 10M clicks takes several minutes).
 *
 * Measuring: a real HTTP server on the seeded file, a read key, warm-up calls, then --runs
 * timed calls per endpoint (p50/p95). The export streams the busy link's clicks (over a
 * million) from a fresh `bun src/index.ts serve` process, three times, while that process's
 * RSS is sampled every 20 ms and GET /healthz round trips show whether the event loop is held
 * up (stats-export.ts); its baseline, from the same run, is the same pages read straight from
 * the click store, with no CSV and no HTTP.
 *
 * `--engine postgres` (stats-postgres.ts) measures SQLite as above first, then moves the seeded
 * file with the real `slink copy-to` into a throwaway PostgreSQL cluster (pg-cluster.ts; timed,
 * its verification must pass), and measures the same calls, the same export and the disk there,
 * each beside SQLite's figures from this run. Copy-to brings the file it reads up to date, as a
 * start of `serve` on it does; the seeded file stays usable for the next run.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../../src/app';
import { createDeps } from '../../src/compose/deps';
import { loadConfig } from '../../src/config';
import { openDatabase } from '../../src/db/client';
import { migrateDatabase } from '../../src/db/migrate';
import { fixedClock } from '../../src/lib/clock';
import { DAY_MS } from '../../src/lib/time';
import { OPERATOR } from '../../src/modules/access/public';
import { encodeClickCursor } from '../../src/modules/analytics/clicks';
import { MAX_BATCH } from '../../src/modules/clicks/capture/flusher';
import { ExportPages, keyAbove, readClickPage } from '../../src/modules/clicks/sqlite/read-clicks';
import { createLink } from '../../src/modules/links/service';
import { linkValueId } from '../../src/modules/rollups/rollup-values';
import { createVariant } from '../../src/modules/variants/service';
import { prng } from '../helpers/random';
import { servedWithReadKey, statCalls, timeGet } from './stats-calls';
import { int, mb, measureExport, ms } from './stats-export';
import { postgresPart, type SqliteFigures } from './stats-postgres';

const { values: args } = parseArgs({
  options: {
    clicks: { type: 'string', default: '10000000' },
    links: { type: 'string', default: '10000' },
    days: { type: 'string', default: '90' },
    runs: { type: 'string', default: '30' },
    dir: { type: 'string', default: join(tmpdir(), 'slink-bench-stats') },
    reseed: { type: 'boolean', default: false },
    only: { type: 'string' },
    engine: { type: 'string', default: 'sqlite' },
  },
});
if (args.engine !== 'sqlite' && args.engine !== 'postgres') throw new Error('--engine must be sqlite or postgres');
/** postgres: the same measures on PostgreSQL after SQLite's, the database filled by `slink copy-to`. */
const POSTGRES = args.engine === 'postgres';
const CLICKS = Number(args.clicks);
const LINKS = Number(args.links);
const DAYS = Number(args.days);
const RUNS = Number(args.runs);
const DIR = args.dir!;
const DB = join(DIR, 'stats.db');
const MARK = join(DIR, 'seed.json');
/** Share of all clicks on the busy link: enough for a million-row export. */
const BUSY_SHARE = 0.11;

const ENV = {
  SLINK_TRUST_PROXY: '1',
  SLINK_SHORT_HOST: 'https://sl.bench',
  SLINK_APP_HOST: 'https://app.sl.bench',
  SLINK_RATE_LIMIT: '1000000',
};
const env = (dbPath: string) => loadConfig({ ...ENV, SLINK_DB: dbPath });
const quiet = { info: () => {}, error: (m: string, e?: unknown) => console.error(m, e) };

// ---- the traffic: deterministic pseudo-random, realistic mixes -------------------------

const rand = prng(20261121);

/** Picks from weighted items by a cumulative table. */
function weighted<T>(items: [T, number][]): () => T {
  const total = items.reduce((s, [, w]) => s + w, 0);
  const cumulative: number[] = [];
  let sum = 0;
  for (const [, w] of items) {
    sum += w / total;
    cumulative.push(sum);
  }
  return () => {
    const r = rand();
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < r) lo = mid + 1;
      else hi = mid;
    }
    return items[lo]![0];
  };
}

const agent = weighted<string>([
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
    28,
  ],
  [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    22,
  ],
  [
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
    14,
  ],
  [
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
    9,
  ],
  [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0',
    5,
  ],
  ['Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0', 3],
  ['Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0', 3],
  [
    'Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    3,
  ],
  [
    'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36',
    3,
  ],
  ['Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)', 3],
  ['facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)', 2],
  ['Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', 1.5],
  ['Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)', 1],
  ['curl/8.4.0', 1],
  ['python-requests/2.32.3', 0.5],
]);
const referrer = weighted<string | null>([
  [null, 40],
  ['https://www.google.com/', 14],
  ['https://t.co/abc', 8],
  ['https://www.facebook.com/', 6],
  ['https://www.linkedin.com/feed/', 4],
  ['https://news.ycombinator.com/item?id=1', 3],
  ['https://www.reddit.com/r/programming/', 3],
  ['https://mail.google.com/mail/u/0/', 3],
  ['https://www.bing.com/search?q=x', 2],
  ['https://duckduckgo.com/', 2],
  ['https://outlook.live.com/mail/', 1],
  ...Array.from({ length: 300 }, (_, i) => [`https://blog${i}.example.org/post/${i}`, 14 / 300] as [string, number]),
]);
const language = weighted<string | null>([
  ['en-US,en;q=0.9', 38],
  ['en-GB,en;q=0.8', 10],
  ['de-DE,de;q=0.9', 9],
  ['fr-FR,fr;q=0.9', 7],
  ['es-ES,es;q=0.9', 6],
  ['pt-BR,pt;q=0.9', 5],
  ['ja-JP,ja;q=0.9', 4],
  ['it-IT', 3],
  ['nl-NL', 3],
  ['pl-PL', 2],
  ['zh-CN,zh;q=0.9', 3],
  ['ko-KR', 2],
  ['sv-SE', 1],
  ['tr-TR', 1],
  [null, 6],
]);

/** A pool of public IPv4 addresses, chosen with a skew (some visitors come back often). */
const ADDRESSES = (() => {
  const pool: string[] = [];
  while (pool.length < 40_000) {
    const n = (rand() * 0xffffffff) >>> 0;
    const a = n >>> 24;
    const b = (n >>> 16) & 255;
    if (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      a >= 224 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b < 32) ||
      (a === 192 && b === 168)
    )
      continue;
    pool.push(`${a}.${b}.${(n >>> 8) & 255}.${n & 255}`);
  }
  return pool;
})();
const address = () => ADDRESSES[Math.floor(rand() * rand() * ADDRESSES.length)]!;

/** Link 0 gets BUSY_SHARE of the clicks; the rest follow a Zipf law (s = 1) over the other links. */
function linkPicker(n: number): () => number {
  const others = weighted(Array.from({ length: n - 1 }, (_, i) => [i + 1, 1 / (i + 1)] as [number, number]));
  return () => (rand() < BUSY_SHARE ? 0 : others());
}

// ---- seeding --------------------------------------------------------------------------

interface SeedMark {
  clicks: number;
  links: number;
  days: number;
  end: number;
  busyId: string;
  seconds: number;
}

async function seed(): Promise<SeedMark> {
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  const end = Math.floor(Date.now() / 3_600_000) * 3_600_000;
  const start = end - DAYS * DAY_MS;
  const clock = fixedClock(start - DAY_MS);
  const db = openDatabase(DB);
  migrateDatabase(db);
  const deps = createDeps({ db, config: env(DB), clock, log: quiet });
  const app = createApp(deps);
  // The default domain is named at start (domains/start.ts): links need its id.
  await deps.domainsReady;
  const sources = ['newsletter', 'twitter', 'linkedin', 'partner', 'ads'];
  const mediums = ['email', 'social', 'cpc', 'referral'];
  const slugs: string[] = [];
  const variantLinks = new Set<number>();
  let busyId = '';
  for (let i = 0; i < LINKS; i++) {
    const params: Record<string, string> = {};
    if (i % 3 === 0) {
      params.utm_source = sources[i % sources.length]!;
      params.utm_medium = mediums[i % mediums.length]!;
      params.utm_campaign = `campaign-${i % 60}`;
    }
    if (i % 5 === 0) params.ref = `partner-${i % 40}`;
    const link = await createLink(deps, OPERATOR, { destination: `https://example.com/p/${i}`, slug: `s${i}`, params });
    if (i === 0) busyId = link.id;
    if (i % 10 === 0) {
      await createVariant(deps, OPERATOR, link.id, { code: 'a', params: { utm_content: 'a' } });
      await createVariant(deps, OPERATOR, link.id, { code: 'b', params: { utm_content: 'b' } });
      variantLinks.add(i);
    }
    slugs.push(link.slug);
  }
  const pickLink = linkPicker(LINKS);
  const began = performance.now();
  const step = (DAYS * DAY_MS) / CLICKS;
  for (let i = 0; i < CLICKS; i++) {
    // Time order, with a daily swell (more clicks in the afternoon UTC).
    const base = start + i * step;
    clock.set(Math.floor(base));
    const li = pickLink();
    const r = rand();
    const code = variantLinks.has(li) ? (r < 0.3 ? '/a' : r < 0.5 ? '/b' : r < 0.51 ? '/zz' : '') : '';
    const headers: Record<string, string> = { 'user-agent': agent(), 'x-forwarded-for': address() };
    const ref = referrer();
    if (ref) headers.referer = ref;
    const lang = language();
    if (lang) headers['accept-language'] = lang;
    const res = await app.handle(new Request(`https://sl.bench/${slugs[li]}${code}`, { headers }));
    if (res.status !== 302) throw new Error(`seeding: ${res.status} for /${slugs[li]}${code}`);
    if (deps.clicks.buffer.length >= MAX_BATCH) {
      if (!(await deps.clicks.flusher.flush())) throw new Error('seeding: a flush failed');
    }
    if ((i + 1) % 500_000 === 0) {
      const s = (performance.now() - began) / 1000;
      console.log(
        `  seeded ${(i + 1).toLocaleString('en')} clicks in ${s.toFixed(0)} s (${Math.round((i + 1) / s).toLocaleString('en')}/s)`,
      );
    }
  }
  while (deps.clicks.buffer.length > 0) await deps.clicks.flusher.flush();
  db.$client.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.$client.exec('ANALYZE');
  db.$client.close();
  const mark: SeedMark = {
    clicks: CLICKS,
    links: LINKS,
    days: DAYS,
    end,
    busyId,
    seconds: Math.round((performance.now() - began) / 1000),
  };
  writeFileSync(MARK, JSON.stringify(mark));
  return mark;
}

function existingSeed(): SeedMark | null {
  if (args.reseed || !existsSync(MARK) || !existsSync(DB)) return null;
  const mark = JSON.parse(readFileSync(MARK, 'utf8')) as SeedMark;
  return mark.clicks === CLICKS && mark.links === LINKS && mark.days === DAYS ? mark : null;
}

// ---- measuring ------------------------------------------------------------------------

async function measure(mark: SeedMark): Promise<SqliteFigures> {
  const db = openDatabase(DB);
  migrateDatabase(db);
  const deps = createDeps({ db, config: env(DB), clock: fixedClock(mark.end - 1), log: quiet });
  const server = await servedWithReadKey(deps);
  const { base, key } = server;
  const sqlite = db.$client;
  const count = (sql: string, ...p: (string | number)[]) =>
    (sqlite.query(sql).get(...(p as never[])) as { n: number }).n;
  const total = count(
    'SELECT (SELECT count(*) FROM click_tail) + coalesce((SELECT sum(count) FROM click_segments), 0) AS n',
  );
  const busy = mark.busyId;
  const busyLink = linkValueId(sqlite, busy)!;
  const busyClicks = count(
    'SELECT (SELECT count(*) FROM click_tail WHERE link = ?) + coalesce((SELECT sum(count) FROM click_blocks WHERE link = ?), 0) AS n',
    busyLink,
    busyLink,
  );
  const fileBytes = count(
    'SELECT (SELECT page_count FROM pragma_page_count()) * (SELECT page_size FROM pragma_page_size()) AS n',
  );
  const buckets = count('SELECT count(*) AS n FROM rollups');
  const values = count('SELECT count(*) AS n FROM rollup_values');
  // A deep page: the cursor after the 500,000th newest click of the busy link (or its middle).
  // Copy-to keeps click ids and times, so the same cursor means the same page on PostgreSQL.
  const deepAt = Math.min(500_000, Math.floor(busyClicks / 2));
  const deep = readClickPage(sqlite, busy, 0, keyAbove(Number.MAX_SAFE_INTEGER), true, deepAt).at(-1);
  const deepCursor = deep ? encodeClickCursor(deep) : '';
  const calls = statCalls(busy, deepAt, deepCursor);
  console.log(
    `\n${total.toLocaleString('en')} clicks (${busyClicks.toLocaleString('en')} on the busy link), ${buckets.toLocaleString('en')} rollup buckets, ${values.toLocaleString('en')} breakdown values\n` +
      `database ${(fileBytes / 1e6).toFixed(0)} MB: ${(fileBytes / total).toFixed(1)} bytes per click (raw clicks, rollups, links, indexes)\n`,
  );

  const figures: SqliteFigures = {
    db: DB,
    clicks: total,
    busy,
    busyClicks,
    fileBytes,
    calls,
    stats: null,
    exports: null,
  };
  if (args.only !== 'export') {
    figures.stats = new Map();
    console.log('| call | p50 | p95 | body |\n|---|---|---|---|');
    for (const call of calls) {
      const r = await timeGet(base, key, call.path, RUNS);
      figures.stats.set(call.label, r);
      console.log(
        `| ${call.label} | ${r.p50.toFixed(1)} ms | ${r.p95.toFixed(1)} ms | ${(r.bytes / 1024).toFixed(0)} KB |`,
      );
    }
  }
  await server.stop();
  db.$client.close();
  if (args.only === 'stats') return figures;

  figures.exports = await measureExport({ SLINK_DB: DB }, busy, busyClicks);
  const rawRate = baselineExportRate(busy);
  console.log(
    `\nGET /links/{busy}/export.csv?range=all&bots=1, each run in a fresh server process:\n\n| run | rows | MB | rows/s | baseline: rows/s of the same paged SQLite reads, no CSV, no HTTP | rate / baseline | server RSS growth | GET /healthz p50 / p99, idle | the same during the export |\n|---|---|---|---|---|---|---|---|---|`,
  );
  figures.exports.forEach((r, i) => {
    console.log(
      `| ${i + 1} | ${int(busyClicks)} | ${mb(r.bytes).toFixed(0)} | ${int(r.rate)} | ${int(rawRate)} | ${(r.rate / rawRate).toFixed(2)}x | ${mb(r.growth).toFixed(1)} MB (${mb(r.before).toFixed(0)} -> ${mb(r.peak).toFixed(0)} MB) | ${ms(r.idle)} | ${ms(r.busy)} |`,
    );
  });
  return figures;
}

/** The export's baseline: the same keyset pages read straight from the click store (no CSV, no HTTP), same run. */
function baselineExportRate(busy: string): number {
  const sqlite = openDatabase(DB).$client;
  const pages = new ExportPages(sqlite, busy, 0, Number.MAX_SAFE_INTEGER, true);
  const t1 = performance.now();
  let raw = 0;
  for (let key = keyAbove(Number.MAX_SAFE_INTEGER); ; ) {
    const rows = pages.next(key, 5000);
    if (rows.length === 0) break;
    raw += rows.length;
    const last = rows[rows.length - 1]!;
    key = { timestamp: last[1], id: last[0] };
  }
  const rate = raw / ((performance.now() - t1) / 1000);
  sqlite.close();
  return rate;
}

async function seedOnce(): Promise<SeedMark> {
  console.log(
    `seeding ${CLICKS.toLocaleString('en')} clicks over ${DAYS} days across ${LINKS.toLocaleString('en')} links into ${DB} ...`,
  );
  return seed();
}
const mark = existingSeed() ?? (await seedOnce());
console.log(
  `seed: ${mark.clicks.toLocaleString('en')} clicks, ${mark.links.toLocaleString('en')} links, ${mark.days} days (seeded in ${mark.seconds} s)`,
);
const sqliteFigures = await measure(mark);
if (POSTGRES) {
  await postgresPart(sqliteFigures, {
    runs: RUNS,
    // SLINK_DB would only place a spill file, which this in-process server never writes.
    config: (url) => loadConfig({ ...ENV, SLINK_DB: join(DIR, 'postgres-node.db'), SLINK_DATABASE_URL: url }),
    clock: fixedClock(mark.end - 1),
    log: quiet,
  });
}
