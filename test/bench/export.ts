/**
 * GET /export?clicks=1 benchmark (docs/behaviour.md, "Export"; figures in docs/performance.md):
 * N raw clicks seeded over a few links (through the redirect path into a SQLite file, then, with
 * `--engine postgres`, moved by the real `slink copy-to` into a throwaway cluster), then a fresh
 * `serve` process streams the whole export to this process over HTTP: lines/s and the server's
 * peak RSS growth (sampled every 20 ms from /proc). The baseline, in the same run and process:
 * each link's CSV export (GET /links/{id}/export.csv) of the same clicks, rows/s. Then the
 * redirects of the seeded links (wrk, 32 connections, `--wrk` seconds): alone, then while whole
 * exports stream one after another, p50/p99 and rate of each and their ratio.
 * `--retention N` runs the server with SLINK_RETENTION_DAYS=N (N above --days keeps every click),
 * where each link's clicks are counted before its line is written (its countedOnly).
 * Run: bun run bench:export [--clicks 1000000] [--links 4] [--days 30] [--engine sqlite|postgres] [--wrk 10] [--retention 0]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
import { MAX_BATCH } from '../../src/modules/clicks/capture/flusher';
import { createLink } from '../../src/modules/links/service';
import { BUN, cleanEnv, ROOT } from '../helpers/proc';
import { benchPostgres } from './pg-cluster';
import { ensureWrk, runWrk, type WrkResult } from './wrk';

const { values: args } = parseArgs({
  options: {
    clicks: { type: 'string', default: '1000000' },
    links: { type: 'string', default: '4' },
    engine: { type: 'string', default: 'sqlite' },
    days: { type: 'string', default: '30' },
    wrk: { type: 'string', default: '10' },
    // SLINK_RETENTION_DAYS of the server (more than --days keeps every click): each link's clicks
    // are then counted before its line (its countedOnly), a second read of them.
    retention: { type: 'string', default: '0' },
  },
});
const CLICKS = Number(args.clicks);
const LINKS = Number(args.links);
/** Days the clicks span: older clicks are stored in compacted blocks, the newest in the tail. */
const DAYS = Number(args.days);
if (args.engine !== 'sqlite' && args.engine !== 'postgres') throw new Error('--engine must be sqlite or postgres');

const ENV = {
  SLINK_TRUST_PROXY: '1',
  SLINK_SHORT_HOST: 'https://sl.bench',
  SLINK_APP_HOST: 'https://app.sl.bench',
  SLINK_RATE_LIMIT: '1000000',
};
const dir = mkdtempSync(join(tmpdir(), 'slink-bench-export-'));
const DB = join(dir, 'export.db');
let stopPg = () => {};
// Interrupted (Ctrl-C, a timeout): the cluster and the server are stopped all the same.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(1));
process.on('exit', () => {
  stopPg();
  rmSync(dir, { recursive: true, force: true });
});
const int = (n: number) => Math.round(n).toLocaleString('en');
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** Clicks through the real redirect path, spread over the last DAYS days (inside the default retention). */
async function seed(): Promise<string[]> {
  const end = Date.now() - 60_000;
  const clock = fixedClock(end - DAYS * DAY_MS);
  const db = openDatabase(DB);
  migrateDatabase(db);
  const deps = createDeps({ db, config: loadConfig({ ...ENV, SLINK_DB: DB }), clock, log: console });
  const app = createApp(deps);
  await deps.domainsReady;
  const ids: string[] = [];
  const slugs: string[] = [];
  for (let i = 0; i < LINKS; i++) {
    const params: Record<string, string> = i % 2 === 0 ? { utm_source: 'newsletter', utm_medium: 'email' } : {};
    const link = await createLink(deps, OPERATOR, { destination: `https://example.com/p/${i}`, slug: `e${i}`, params });
    ids.push(link.id);
    slugs.push(link.slug);
  }
  const agents = [
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    'curl/8.5.0',
  ];
  const step = (DAYS * DAY_MS) / CLICKS;
  const began = performance.now();
  for (let i = 0; i < CLICKS; i++) {
    clock.set(Math.floor(end - DAYS * DAY_MS + i * step));
    const headers: Record<string, string> = {
      'user-agent': agents[i % agents.length]!,
      'x-forwarded-for': `203.0.113.${i % 250}`,
      referer: i % 3 === 0 ? 'https://news.example.org/item' : '',
    };
    const res = await app.handle(new Request(`https://sl.bench/${slugs[i % LINKS]}`, { headers }));
    if (res.status !== 302) throw new Error(`seeding: ${res.status}`);
    if (deps.clicks.buffer.length >= MAX_BATCH && !(await deps.clicks.flusher.flush())) throw new Error('flush failed');
  }
  while (deps.clicks.buffer.length > 0) await deps.clicks.flusher.flush();
  db.$client.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.$client.exec('ANALYZE');
  db.$client.close();
  console.log(
    `seeded ${int(CLICKS)} clicks over ${LINKS} links in ${((performance.now() - began) / 1000).toFixed(0)} s`,
  );
  return ids;
}

function rssOf(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

const ids = await seed();
const engineEnv: Record<string, string> = { ...ENV, SLINK_DB: DB };
if (args.engine === 'postgres') {
  const pg = await benchPostgres();
  stopPg = pg.stop;
  const r = Bun.spawnSync([BUN, 'src/index.ts', 'copy-to', pg.url], { cwd: ROOT, env: cleanEnv({ SLINK_DB: DB }) });
  if (r.exitCode !== 0) throw new Error(`copy-to: ${r.stderr.toString()}`);
  engineEnv.SLINK_DB = join(dir, 'pg-node.db');
  engineEnv.SLINK_DATABASE_URL = pg.url;
}

const port = 20000 + Math.floor(Math.random() * 20000);
const serverEnv = cleanEnv({
  ...engineEnv,
  SLINK_PORT: String(port),
  SLINK_HOSTNAME: '127.0.0.1',
  SLINK_RETENTION_DAYS: args.retention,
});
const cli = (...argv: string[]) => {
  const r = Bun.spawnSync([BUN, 'src/index.ts', ...argv], { cwd: ROOT, env: serverEnv });
  if (r.exitCode !== 0) throw new Error(`slink ${argv.join(' ')}: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
};
cli('user', 'add', 'export@example.com', '--role', 'admin', '--password', 'benchmark password');
const key = cli('key', 'create', '--user', 'export@example.com', '--scope', 'read');
const origin = `http://127.0.0.1:${port}`;
const proc = Bun.spawn([BUN, 'src/index.ts', 'serve'], {
  cwd: ROOT,
  env: serverEnv,
  stdout: 'ignore',
  stderr: 'inherit',
});
process.on('exit', () => proc.kill());
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${origin}/healthz`)).ok) break;
  } catch {}
  if (i > 1200) throw new Error('the server did not start');
  await Bun.sleep(50);
}

/** Streams `path`, counting lines; the server's peak RSS over its baseline meanwhile. */
async function stream(path: string, settle = false): Promise<{ lines: number; seconds: number; growth: number }> {
  // Before a measured run: the garbage of the one before collected, so the baseline RSS is idle.
  if (settle) await Bun.sleep(300);
  const before = rssOf(proc.pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssOf(proc.pid));
  }, 20);
  const t0 = performance.now();
  const res = await fetch(`${origin}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  let lines = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (let at = buf.indexOf(10); at !== -1; at = buf.indexOf(10, at + 1)) lines++;
  }
  const seconds = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  return { lines, seconds, growth: peak - before };
}

// Warm-up: both paths compiled, the export Worker started.
await stream(`/links/${ids[0]}/export.csv?range=all&bots=1&from=${Date.now() - 60_000}`);
await stream('/export');

let csvRows = 0;
let csvSeconds = 0;
let csvGrowth = 0;
for (const [i, id] of ids.entries()) {
  const r = await stream(`/links/${id}/export.csv?range=all&bots=1`, i === 0);
  csvRows += r.lines - 1;
  csvSeconds += r.seconds;
  csvGrowth = Math.max(csvGrowth, r.growth);
}
const full = await stream('/export?clicks=1', true);
const clickLines = full.lines - 2 - LINKS; // the header, the default domain, the links

// Redirects of the seeded links alone, then while whole exports stream one after another.
const WRK_SECONDS = Number(args.wrk);
let alone: WrkResult | null = null;
let during: WrkResult | null = null;
let exportsDuring = 0;
if (WRK_SECONDS > 0) {
  ensureWrk();
  const slugsFile = join(dir, 'slugs.txt');
  writeFileSync(slugsFile, `${Array.from({ length: LINKS }, (_, i) => `e${i}`).join('\n')}\n`);
  const wrk = () => runWrk({ port, connections: 32, seconds: WRK_SECONDS, slugsFile, outFile: join(dir, 'wrk.json') });
  await runWrk({ port, connections: 32, seconds: 2, slugsFile, outFile: join(dir, 'wrk.json') });
  alone = (await wrk()).result;
  let exporting = true;
  const exportsRunning = (async () => {
    while (exporting) {
      await stream('/export?clicks=1');
      exportsDuring++;
    }
  })();
  during = (await wrk()).result;
  exporting = false;
  await exportsRunning;
}
proc.kill('SIGTERM');
await proc.exited;
if (csvRows !== CLICKS) throw new Error(`the CSV exports returned ${csvRows} rows, ${CLICKS} were seeded`);
if (clickLines !== CLICKS) throw new Error(`the export returned ${clickLines} click lines, ${CLICKS} were seeded`);

const exportRate = full.lines / full.seconds;
const csvRate = csvRows / csvSeconds;
console.log(
  `\n${args.engine}: ${int(CLICKS)} clicks over ${LINKS} links and ${DAYS} days, SLINK_RETENTION_DAYS=${args.retention}\n` +
    `  GET /export?clicks=1     ${int(full.lines)} lines in ${full.seconds.toFixed(2)} s: ${int(exportRate)} lines/s, peak RSS growth ${mb(full.growth)} MB\n` +
    `  GET /links/{id}/export.csv (baseline) ${int(csvRows)} rows in ${csvSeconds.toFixed(2)} s: ${int(csvRate)} rows/s, peak RSS growth ${mb(csvGrowth)} MB\n` +
    `  export / CSV: ${(exportRate / csvRate).toFixed(2)}x; target 100,000 lines/s: ${exportRate >= 100_000 ? 'met' : 'NOT met'}`,
);
if (alone !== null && during !== null) {
  const rate = (r: WrkResult) => r.requests / (r.duration_us / 1e6);
  const row = (name: string, r: WrkResult) =>
    `  ${name.padEnd(34)} ${int(rate(r)).padStart(7)} req/s  p50 ${(r.p50_us / 1000).toFixed(2)} ms  p99 ${(r.p99_us / 1000).toFixed(2)} ms`;
  console.log(
    `redirects of the seeded links, 32 connections, ${WRK_SECONDS} s each\n` +
      `${row('alone', alone)}\n` +
      `${row(`during exports (${exportsDuring} whole ones)`, during)}\n` +
      `  during / alone: rate ${(rate(during) / rate(alone)).toFixed(2)}x, p50 ${(during.p50_us / alone.p50_us).toFixed(2)}x, p99 ${(during.p99_us / alone.p99_us).toFixed(2)}x`,
  );
}
