/**
 * Import history benchmark: how fast an import's visits are written, and in how much memory.
 *
 * Seeds a fresh database with `--links` links, then hands `--visits` generated visits (the
 * shape of a Shlink export: a time, a user agent of six, a referrer of four, a country and city,
 * the source's bot flag on a few) to the HistoryWriter link after link, as the import engine
 * does (the links in order, each link's visits oldest first in one call, `--concurrency` links
 * in flight as an engine reading several links from its source has), the click writer
 * taking the queued history as it goes (SQLite: every 5,000 links, as the server's writer does
 * on its timer) and once more at the end, so every visit is counted when the clock stops.
 *
 * The baseline, in the same run on a second database seeded alike: the same number of clicks
 * through the redirect path's writer (the engine's ClickWriter.writeBatch, batches of
 * MAX_BATCH spread over every link, enriched with addresses hashed and looked up), folded as
 * the writer Worker folds. Reports visits/s of both, their ratio, and the process's peak RSS
 * during each phase over its RSS when the phase began (memory flat: the peak does not grow
 * with the visits).
 *
 *   bun run bench:import [-- --links 100000 --visits 1000000 --engine sqlite|postgres --concurrency 32]
 */

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Deps } from '../../src/compose/deps';
import { systemClock } from '../../src/lib/clock';
import { OPERATOR } from '../../src/modules/access/public';
import { MAX_BATCH } from '../../src/modules/clicks/capture/flusher';
import type { WireClick } from '../../src/modules/clicks/capture/record';
import { openGeo } from '../../src/modules/clicks/enrich/geo';
import type { ClickWriter } from '../../src/modules/clicks/public';
import { type SourceVisit, sourceFor, startImport } from '../../src/modules/imports/public';
import type { PageKey } from '../../src/modules/links/store';
import { startShlinkFake } from '../fakes/shlink';
import { cpuUse, treeCpuUs } from './cpu-use';
import { benchPostgres, statementsOf } from './pg-cluster';
import { benchDeps, benchDepsPostgres, NO_PARAMS, seedLinks } from './seed-links';

const { values } = parseArgs({
  options: {
    links: { type: 'string', default: '100000' },
    visits: { type: 'string', default: '1000000' },
    engine: { type: 'string', default: 'sqlite' },
    /** Links whose visits are handed over at once (an engine reading several links from the source). */
    concurrency: { type: 'string', default: '32' },
    /** Links of the whole import's run (a Shlink fake over HTTP, the engine's runner): 0 skips it. */
    'real-links': { type: 'string', default: '5000' },
    /** Only the whole import (no history writer alone, no baseline): its links are --real-links, --visits / --links a link. */
    'real-only': { type: 'boolean', default: false },
    /** PostgreSQL: the whole import's statements by the server's time they took (pg_stat_statements). */
    statements: { type: 'boolean', default: false },
  },
});
const LINKS = Number(values.links);
const VISITS = Number(values.visits);
const ENGINE = values.engine === 'postgres' ? 'postgres' : 'sqlite';
const PER_LINK = Math.max(1, Math.round(VISITS / LINKS));
const CONCURRENCY = Math.max(1, Number(values.concurrency));
const REAL_LINKS = Number(values['real-links']);
const REAL_ONLY = values['real-only'] === true;
const STATEMENTS = values.statements === true;
/** Links between two takes of the SQLite queue (the server's writer takes it on a timer). */
const TAKE_EVERY = 5000;

const AGENTS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  'curl/8.5.0',
  'Mozilla/5.0 (X11; Linux x86_64; rv:132.0) Gecko/20100101 Firefox/132.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
];
const REFERRERS = [null, 'https://www.google.com/', 'https://t.co/', 'https://news.ycombinator.com/item?id=1'];
const PLACES: [string | null, string | null][] = [
  ['DE', 'Berlin'],
  ['US', 'New York'],
  ['GB', 'London'],
  [null, null],
];
const SINCE = Date.UTC(2025, 0, 1);

/** The k-th visit of the import, for link `i`: spread over the last year, oldest first per link. */
function visitOf(i: number, k: number): SourceVisit {
  const n = i * PER_LINK + k;
  const [country, city] = PLACES[n % PLACES.length]!;
  return {
    sourceId: null,
    at: SINCE + k * 30 * 86_400_000 + (i % 86_400) * 1000,
    referrer: REFERRERS[n % REFERRERS.length]!,
    userAgent: AGENTS[n % AGENTS.length]!,
    country,
    city,
    bot: n % 97 === 0 ? true : null,
    device: null,
    os: null,
    browser: null,
  };
}

/** Samples the process's RSS every 50 ms; `stop` answers the peak. */
function rssPeak(): { start: number; stop(): number } {
  const start = process.memoryUsage.rss();
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 50);
  return {
    start,
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage.rss());
    },
  };
}

const mb = (bytes: number) => `${(bytes / 1048576).toFixed(0)} MB`;
const rate = (n: number, ms: number) => Math.round(n / (ms / 1000));

async function seed(deps: Deps): Promise<{ id: string; destination: string; params: string }[]> {
  await seedLinks(deps, LINKS, (i) => ({
    destination: `https://www.example.org/articles/${i}`,
    params: i % 3 === 0 ? { utm_source: 'newsletter', utm_medium: 'email', utm_campaign: `s${i % 40}` } : NO_PARAMS,
  }));
  const links: { id: string; destination: string; params: string }[] = [];
  let after: PageKey | null = null;
  for (;;) {
    const page = await deps.stores.links.page({ now: Date.now() }, 'oldest', 1000, after);
    for (const r of page.rows) links.push({ id: r.id, destination: r.destination, params: JSON.stringify(r.params) });
    if (!page.more) break;
    after = page.last;
  }
  return links;
}

/** The import: every link's visits through deps.history, taken and counted by the end. */
async function runImport(deps: Deps, links: { id: string }[]): Promise<{ ms: number; peak: number; start: number }> {
  Bun.gc(true);
  const rss = rssPeak();
  const started = performance.now();
  let written = 0;
  const inFlight = new Set<Promise<void>>();
  for (let i = 0; i < links.length; i++) {
    const visits = Array.from({ length: PER_LINK }, (_, k) => visitOf(i, k));
    const call = deps.history.visits(links[i]!.id, 'shlink', visits).then((n) => {
      written += n;
    });
    inFlight.add(call);
    void call.finally(() => inFlight.delete(call));
    if (inFlight.size >= CONCURRENCY) await Promise.race(inFlight);
    if (i % TAKE_EVERY === TAKE_EVERY - 1) {
      await Promise.all(inFlight);
      await deps.history.flush?.();
    }
  }
  await Promise.all(inFlight);
  await deps.history.flush?.();
  const ms = performance.now() - started;
  if (written !== links.length * PER_LINK) throw new Error(`wrote ${written} visits`);
  return { ms, peak: rss.stop(), start: rss.start };
}

/** The baseline: as many clicks through the redirect path's writer, batches spread over every link. */
async function runBaseline(
  store: ClickWriter,
  links: { id: string; destination: string; params: string }[],
): Promise<{ ms: number; peak: number; start: number }> {
  const total = links.length * PER_LINK;
  Bun.gc(true);
  const rss = rssPeak();
  const started = performance.now();
  for (let from = 0; from < total; from += MAX_BATCH) {
    const batch: WireClick[] = [];
    for (let n = from; n < Math.min(total, from + MAX_BATCH); n++) {
      const link = links[n % links.length]!;
      batch.push({
        time: SINCE + n,
        linkId: link.id,
        variantId: null,
        code: null,
        location: link.destination,
        paramsJson: link.params,
        address: `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
        userAgent: AGENTS[n % AGENTS.length]!,
        referrer: REFERRERS[n % REFERRERS.length]!,
        acceptLanguage: 'en-GB,en;q=0.9',
        bot: n % AGENTS.length === 2 || n % AGENTS.length === 3,
      });
    }
    await store.writeBatch(batch);
  }
  await store.fold();
  const ms = performance.now() - started;
  return { ms, peak: rss.stop(), start: rss.start };
}

/**
 * The whole import as `slink import shlink` runs it (startImport, as the CLI calls it), from a
 * Shlink fake over HTTP holding REAL_LINKS links of PER_LINK visits each, into a fresh database:
 * links read and made, visits read and written, and counted by the end.
 */
async function runRealImport(
  deps: Deps,
  pgPid: number | null = null,
): Promise<{ ms: number; peak: number; start: number; visits: number; nodeUs: number; pgUs: number | null }> {
  const fake = startShlinkFake({ generated: { links: REAL_LINKS, visitsPerLink: PER_LINK } });
  try {
    // The fake listens on this machine: a private address the sources refuse by default.
    deps.sources = (name, options) => sourceFor(name, { ...options, allowPrivate: true });
    Bun.gc(true);
    const rss = rssPeak();
    const cpu = () => {
      const use = cpuUse(process.pid);
      return use.main + use.worker + use.other;
    };
    const node0 = cpu();
    const pg0 = pgPid === null ? null : treeCpuUs(pgPid);
    const started = performance.now();
    const { done } = await startImport(deps, OPERATOR, {
      source: 'shlink',
      url: fake.url,
      token: fake.apiKey,
      file: null,
      domain: null,
      projectId: null,
      history: 'clicks',
      onConflict: 'skip',
      dryRun: false,
    });
    const end = await done;
    const ms = performance.now() - started;
    const nodeUs = cpu() - node0;
    const pgUs = pg0 === null ? null : treeCpuUs(pgPid!) - pg0;
    if (end.status !== 'done')
      throw new Error(`the import ended ${end.status}: ${JSON.stringify(end.progress.errors)}`);
    return { ms, peak: rss.stop(), start: rss.start, visits: end.progress.clicksImported, nodeUs, pgUs };
  } finally {
    fake.stop();
  }
}

/** The whole import's CPU per visit: this process (the runner, the fake, the writer) and PostgreSQL's. */
function reportCpu(e: { visits: number; nodeUs: number; pgUs: number | null }): void {
  const per = (us: number) => `${(us / Math.max(1, e.visits)).toFixed(1)} us`;
  console.log(
    `    CPU a visit: this process (runner, Shlink fake, writer) ${per(e.nodeUs)}${e.pgUs === null ? '' : `, PostgreSQL ${per(e.pgUs)}`}; load average ${loadAverage()}`,
  );
}

const loadAverage = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

function report(name: string, r: { ms: number; peak: number; start: number }, n: number): void {
  console.log(
    `  ${name}: ${rate(n, r.ms).toLocaleString('en-US')} visits/s (${(r.ms / 1000).toFixed(1)} s), RSS ${mb(r.start)} at its start, peak ${mb(r.peak)} (+${mb(r.peak - r.start)})`,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'slink-bench-import-'));
const total = LINKS * PER_LINK;
console.log(
  `${ENGINE}: ${LINKS.toLocaleString('en-US')} links, ${total.toLocaleString('en-US')} visits (${PER_LINK} a link)`,
);
try {
  if (ENGINE === 'sqlite' && !REAL_ONLY) {
    const base = benchDeps(join(dir, 'baseline.db'));
    const baseLinks = await seed(base);
    const store = base.stores.openClickWriter({
      geo: openGeo(null),
      ownHosts: ['localhost'],
      clock: systemClock,
      retentionDays: 0,
    });
    const b = await runBaseline(store, baseLinks);
    await base.follower?.stop();
    base.db.$client.close();
    const deps = benchDeps(join(dir, 'import.db'));
    const links = await seed(deps);
    const r = await runImport(deps, links);
    report('redirect path writer (baseline)', b, total);
    report('import (HistoryWriter: queued, taken by the click writer, counted)', r, total);
    console.log(`  import / baseline: ${(b.ms / r.ms).toFixed(2)}`);
    await deps.follower?.stop();
    deps.db.$client.close();
  }
  if (ENGINE === 'sqlite' && REAL_LINKS > 0) {
    const real = benchDeps(join(dir, 'real.db'));
    const e = await runRealImport(real);
    report(`the whole import (Shlink fake over HTTP, ${REAL_LINKS.toLocaleString('en-US')} links)`, e, e.visits);
    reportCpu(e);
    await real.follower?.stop();
    real.db.$client.close();
  }
  if (ENGINE === 'postgres') {
    const cluster = await benchPostgres({ statements: STATEMENTS });
    try {
      const { openPostgres } = await import('../../src/db/postgres/client');
      const { migratePostgres } = await import('../../src/db/postgres/migrate');
      if (!REAL_ONLY) {
        const base = benchDepsPostgres(cluster.url, join(dir, 'unused.db'));
        const baseLinks = await seed(base);
        const store = base.stores.openClickWriter({
          geo: openGeo(null),
          ownHosts: ['localhost'],
          clock: systemClock,
          retentionDays: 0,
        });
        const b = await runBaseline(store, baseLinks);
        await base.stores.close();
        // A second database of the same cluster for the import, seeded alike.
        const admin = openPostgres(cluster.url, 1);
        await admin`CREATE DATABASE import_bench`;
        await admin.close();
        const url = cluster.url.replace(/\/[^/?]+(\?|$)/, '/import_bench$1');
        const migrator = openPostgres(url, 1);
        await migratePostgres(migrator);
        await migrator.close();
        const deps = benchDepsPostgres(url, join(dir, 'unused.db'));
        const links = await seed(deps);
        const r = await runImport(deps, links);
        report('redirect path writer (baseline)', b, total);
        report('import (HistoryWriter: written on the pool, folded)', r, total);
        console.log(`  import / baseline: ${(b.ms / r.ms).toFixed(2)}`);
        await deps.stores.close();
      }
      if (REAL_LINKS > 0) {
        const admin2 = openPostgres(cluster.url, 1);
        await admin2`CREATE DATABASE real_bench`;
        await admin2.close();
        const realUrl = cluster.url.replace(/\/[^/?]+(\?|$)/, '/real_bench$1');
        const m2 = openPostgres(realUrl, 1);
        await migratePostgres(m2);
        if (STATEMENTS) {
          await m2`CREATE EXTENSION pg_stat_statements`;
          await m2`SELECT pg_stat_statements_reset()`;
        }
        await m2.close();
        const real = benchDepsPostgres(realUrl, join(dir, 'unused.db'));
        const e = await runRealImport(real, cluster.pid);
        report(`the whole import (Shlink fake over HTTP, ${REAL_LINKS.toLocaleString('en-US')} links)`, e, e.visits);
        reportCpu(e);
        await real.stores.close();
        if (STATEMENTS) {
          console.log('    the statements by the server time they took (pg_stat_statements):');
          for (const line of await statementsOf(realUrl, 20)) console.log(`      ${line}`);
        }
      }
    } finally {
      cluster.stop();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
