/**
 * Read-through under a scan (docs/behaviour.md, "Read-through"; figures in docs/performance.md):
 * a `serve` process on SQLite (or, with `--engine postgres`, on a throwaway PostgreSQL cluster the
 * seeded file is moved to by the real `slink copy-to`) whose default domain has an `upstream`
 * that never answers in time (a fake old service in this process that holds every question 5 s,
 * past the 3 s deadline), or with `--answer 404` one that answers every question "no such link"
 * at once (each question then a miss every node remembers: on PostgreSQL a read and a write).
 * wrk sends redirects of known slugs for a while alone (the baseline), then again while a second
 * wrk scans random unknown slugs as fast as it can, first of a domain without an upstream (a
 * plain 404: the scan's own cost), then of the domain with one: p50/p99 and rate of the known
 * redirects in each, their ratios, what the scans got, and the most questions the old service
 * saw at once (the bound is 16 per node). On PostgreSQL also the shared misses table
 * (`read_through_misses`): its rows and size after the scan, then, its rows made an hour old (as
 * if the hour had passed), what a further scan of other slugs leaves of them (the cleanup).
 * Run: bun run bench:readthrough [--links 2000] [--seconds 10] [--connections 32] [--scanners 32]
 *   [--engine sqlite|postgres] [--answer hold|404] [--order plain-first|upstream-first]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createDeps } from '../../src/compose/deps';
import { loadConfig } from '../../src/config';
import { openDatabase } from '../../src/db/client';
import { migrateDatabase } from '../../src/db/migrate';
import { openPostgres } from '../../src/db/postgres/client';
import { systemClock } from '../../src/lib/clock';
import { OPERATOR } from '../../src/modules/access/public';
import { createLink } from '../../src/modules/links/public';
import { BUN, cleanEnv, ROOT } from '../helpers/proc';
import { benchPostgres } from './pg-cluster';
import { ensureWrk, int, runWrk, type WrkResult, waitForStatus } from './wrk';

const { values: args } = parseArgs({
  options: {
    links: { type: 'string', default: '2000' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    scanners: { type: 'string', default: '32' },
    engine: { type: 'string', default: 'sqlite' },
    answer: { type: 'string', default: 'hold' },
    /** Which scan comes first: the phases' order (a later phase runs on a database with more clicks). */
    order: { type: 'string', default: 'plain-first' },
  },
});
if (args.engine !== 'sqlite' && args.engine !== 'postgres') throw new Error('--engine must be sqlite or postgres');
if (args.answer !== 'hold' && args.answer !== '404') throw new Error('--answer must be hold or 404');
const LINKS = Number(args.links);
const SECONDS = Number(args.seconds);
const CONNECTIONS = Number(args.connections);
const SCANNERS = Number(args.scanners);
/** How long the fake old service holds each question: longer than the 3 s deadline. */
const HOLD_MS = 5000;

ensureWrk();
const dir = mkdtempSync(join(tmpdir(), 'slink-bench-readthrough-'));
const DB = join(dir, 'rt.db');
let stopPg = () => {};
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(1));
process.on('exit', () => {
  stopPg();
  rmSync(dir, { recursive: true, force: true });
});
const ENV = {
  SLINK_TRUST_PROXY: '1',
  SLINK_SHORT_HOST: 'https://sl.bench',
  SLINK_APP_HOST: 'https://sl.bench',
  SLINK_RATE_LIMIT: '1000000',
  SLINK_DB: DB,
  SLINK_UPSTREAM_ALLOW_PRIVATE: '1',
};

// The old service: every question held past the deadline; how many at once, at most.
let held = 0;
let maxHeld = 0;
let asked = 0;
const old = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(request) {
    asked++;
    held++;
    maxHeld = Math.max(maxHeld, held);
    // Held until the deadline's end closes the connection (or HOLD_MS): only questions Slink still waits for count.
    if (args.answer === 'hold')
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, HOLD_MS);
        request.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    held--;
    return new Response('no such link', { status: 404 });
  },
});

// Known links, made through the links service on the default domain, whose upstream is the fake.
const slugs: string[] = [];
{
  const db = openDatabase(DB);
  migrateDatabase(db);
  const deps = createDeps({ db, config: loadConfig(ENV), clock: systemClock, log: console });
  await deps.domainsReady;
  for (let i = 0; i < LINKS; i++)
    slugs.push((await createLink(deps, OPERATOR, { destination: `https://example.com/p/${i}` })).slug);
  db.$client.exec(`UPDATE domains SET upstream = 'http://127.0.0.1:${old.port}' WHERE is_default = 1`);
  // The same scan's baseline: a domain without an upstream, where an unknown slug is a plain 404.
  db.$client.exec(
    `INSERT INTO domains (host, origin, is_default, created_at) VALUES ('plain.bench', 'https://plain.bench', 0, ${Date.now()})`,
  );
  db.$client.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  db.$client.close();
}
const knownFile = join(dir, 'known.txt');
writeFileSync(knownFile, `${slugs.join('\n')}\n`);
// Random slugs of the length generated slugs have, none of them a link.
const scanFile = join(dir, 'scan.txt');
const taken = new Set(slugs);
const scan: string[] = [];
while (scan.length < 200_000) {
  const slug = `x${Math.random().toString(36).slice(2, 9)}`;
  if (!taken.has(slug)) scan.push(slug);
}
writeFileSync(scanFile, `${scan.join('\n')}\n`);
const plainFile = join(dir, 'plain.txt');
writeFileSync(plainFile, `${scan.map((slug) => `${slug} plain.bench`).join('\n')}\n`);

const engineEnv: Record<string, string> = { ...ENV };
let pgUrl: string | null = null;
if (args.engine === 'postgres') {
  const pg = await benchPostgres();
  pgUrl = pg.url;
  stopPg = pg.stop;
  const r = Bun.spawnSync([BUN, 'src/index.ts', 'copy-to', pg.url], { cwd: ROOT, env: cleanEnv({ SLINK_DB: DB }) });
  if (r.exitCode !== 0) throw new Error(`copy-to: ${r.stderr.toString()}`);
  engineEnv.SLINK_DB = join(dir, 'pg-node.db');
  engineEnv.SLINK_DATABASE_URL = pg.url;
}

const port = 20000 + Math.floor(Math.random() * 20000);
const proc = Bun.spawn([BUN, 'src/index.ts', 'serve'], {
  cwd: ROOT,
  env: cleanEnv({ ...engineEnv, SLINK_PORT: String(port), SLINK_HOSTNAME: '127.0.0.1' }),
  stdout: 'ignore',
  stderr: 'inherit',
});
process.on('exit', () => proc.kill());
await waitForStatus(`http://127.0.0.1:${port}/${slugs[0]}`, 302);

const known = (seconds: number) =>
  runWrk({ port, connections: CONNECTIONS, seconds, slugsFile: knownFile, outFile: join(dir, 'known.json') });

/** A scan of random unknown slugs (of the domain with an upstream, or of one without), for `seconds`. */
function scanFor(seconds: number, slugsFile: string) {
  return runWrk({ port, connections: SCANNERS, seconds, slugsFile, outFile: join(dir, 'scan.json') });
}

await known(2); // warm-up: the redirect path compiled
// Questions before the measured phases (the start's first request, on PostgreSQL, can come
// before its links are read): left out of the check below.
const askedAtStart = asked;
const base = (await known(SECONDS)).result;
const plainPhase = async () => {
  const before = asked;
  const phase = await Promise.all([known(SECONDS), scanFor(SECONDS + 1, plainFile)]);
  if (asked !== before) throw new Error('known slugs or the domain without an upstream asked it');
  return phase;
};
const upstreamFirst = args.order === 'upstream-first';
const first = upstreamFirst ? null : await plainPhase();
const [during, scanned] = await Promise.all([known(SECONDS), scanFor(SECONDS + 1, scanFile)]);
const [plain, plainScan] = first ?? (await plainPhase());
if (asked - askedAtStart === 0 && args.answer === '404') throw new Error('the scan asked nothing');
/** The shared misses: rows, the table's and its indexes' bytes, dead rows not yet vacuumed. */
let missesReport = '';
if (pgUrl !== null) {
  const pg = openPostgres(pgUrl, 1);
  const table = async () => {
    const [r] = await pg`SELECT (SELECT count(*) FROM read_through_misses) AS n,
      pg_total_relation_size('read_through_misses') AS bytes,
      (SELECT n_dead_tup FROM pg_stat_user_tables WHERE relname = 'read_through_misses') AS dead`;
    return `${int(Number(r.n))} rows, ${(Number(r.bytes) / 1048576).toFixed(1)} MiB, ${int(Number(r.dead ?? 0))} dead`;
  };
  const afterScan = await table();
  // An hour later: every row expired; a scan of other slugs writes new misses, which prune.
  await pg`UPDATE read_through_misses SET until = 1`;
  const expired = await table();
  const later = scan.map((slug) => `y${slug.slice(1)}`);
  const laterFile = join(dir, 'later.txt');
  writeFileSync(laterFile, `${later.join('\n')}\n`);
  await scanFor(3, laterFile);
  const afterPrune = await table();
  await pg`VACUUM read_through_misses`;
  missesReport =
    `  read_through_misses after the scan: ${afterScan}\n` +
    `  its rows expired (an hour later): ${expired}; after a 3 s scan of other slugs: ${afterPrune}; after VACUUM: ${await table()}\n`;
  await pg.close();
}
proc.kill('SIGTERM');
await proc.exited;
old.stop(true);

const line = (name: string, r: WrkResult) => {
  const rate = r.requests / (r.duration_us / 1e6);
  return `  ${name.padEnd(28)} ${int(rate).padStart(8)} req/s  p50 ${(r.p50_us / 1000).toFixed(2)} ms  p99 ${(r.p99_us / 1000).toFixed(2)} ms  errors ${r.status_errors + r.timeouts}`;
};
const rateOf = (r: WrkResult) => r.requests / (r.duration_us / 1e6);
const s = scanned.result;
const ratio = (a: WrkResult, b: WrkResult) =>
  `rate ${(rateOf(a) / rateOf(b)).toFixed(2)}x, p50 ${(a.p50_us / b.p50_us).toFixed(2)}x, p99 ${(a.p99_us / b.p99_us).toFixed(2)}x`;
const scanLine = (name: string, r: WrkResult) =>
  `  ${name.padEnd(28)} ${int(rateOf(r)).padStart(8)} req/s  p50 ${(r.p50_us / 1000).toFixed(2)} ms  p99 ${(r.p99_us / 1000).toFixed(2)} ms`;
console.log(
  `\nread-through on ${args.engine}, the upstream ${args.answer === 'hold' ? 'holding every question' : 'answering 404 at once'}, ${upstreamFirst ? 'its scan before the plain one' : 'the plain scan first'}: ${int(LINKS)} known links, ${CONNECTIONS} connections on them, ${SCANNERS} scanning, ${SECONDS} s each\n` +
    `${line('known slugs alone', base)}\n` +
    `${line('known, scan without upstream', plain.result)}\n` +
    `${line('known, scan with upstream', during.result)}\n` +
    `  scan with upstream / alone: ${ratio(during.result, base)}\n` +
    `  scan with upstream / scan without: ${ratio(during.result, plain.result)}\n` +
    `${scanLine('the scan without upstream', plainScan.result)}\n` +
    `${scanLine('the scan with upstream', s)}\n` +
    `  the old service: ${int(asked - askedAtStart)} questions (${askedAtStart} more at the start), at most ${maxHeld} at once (bound 16)\n` +
    missesReport +
    `  load average: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
);
