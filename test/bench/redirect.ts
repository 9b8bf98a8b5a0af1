/**
 * Redirect benchmark (docs/performance.md): the real dist/slink against the limit of this box.
 *
 * 1. Builds dist/slink and seeds a fresh database with 100,000 links (a quarter with a variant,
 *    a third with utm params).
 * 2. Starts a bare Bun.serve that answers 302 from an in-memory Map of the same slugs and
 *    locations (test/bench/bare-server.ts): what a redirect costs here when it records nothing.
 * 3. Drives both with wrk (test/bench/redirect.lua: every link, mixed user agents with ~15%
 *    crawlers, referrers, languages, client addresses in X-Forwarded-For), alternating bare,
 *    Slink, bare, Slink at 64 and then 256 connections.
 * 4. Reports requests/s, the Slink/bare ratio, p50/p99 latency, RSS idle and under load, the time
 *    from exec of dist/slink to its first 302, how far the click writer lags behind, whether
 *    every redirect wrk counted is in the database after the final flush, and the CPU time per
 *    request of wrk and of each server's threads, with what the 0.7 ratio would leave Slink on
 *    this box. Writes the same to test/bench/results.md (results-zipf.md for --distribution zipf).
 * 5. Times link rules on the main thread (rules.ts): five rules that do not match, a country
 *    rule's geo lookup, and 100,000 links a quarter of which have rules, each against no rules.
 *
 * With `--engine postgres`, a third server joins the rotation: dist/slink on PostgreSQL (a
 * throwaway cluster on this box with durable defaults), seeded with the same links; its rate,
 * latency and recorded clicks are reported beside the SQLite node's and the bare server's.
 *
 * With `--domains N` (N > 1), dist/slink on a copy of the database whose links are spread over N
 * short domains (domains.ts) joins the rotation, each request sent with its link's Host (the
 * one-domain node's with the default domain's): its rate, main-thread CPU per redirect and idle
 * RSS against the one-domain node's of the same run (written to results-domains.md). With
 * `--idle-only` as well, only the two nodes' idle RSS once every link is in memory (no wrk, links
 * seeded without variants): results-domains-idle.md.
 *
 * With `--gpc`, the main thread's cost of a redirect carrying Sec-GPC: 1 against the same one
 * without (gpc-main.ts; alone: `bun run bench:gpc`).
 *
 *   bun run bench [-- --seconds 10 --rounds 2 --links 100000 --distribution uniform|zipf --skip-build --out FILE --engine postgres --domains 20 --idle-only --gpc]
 */
import { Database } from 'bun:sqlite';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Deps } from '../../src/compose/deps';
import { num, openPostgres, type Pg } from '../../src/db/postgres/client';
import { OPERATOR } from '../../src/modules/access/public';
import { HIGH_WATER } from '../../src/modules/clicks/capture/buffer';
import { MAX_BATCH } from '../../src/modules/clicks/capture/flusher';
import { countClicks } from '../../src/modules/clicks/sqlite/raw-read';
import { createVariant } from '../../src/modules/variants/service';
import { type CpuUse, cpuUse } from './cpu-use';
import { DEFAULT_HOST, spreadOverDomains, waitForLinksInMemory, writeHostedSlugs } from './domains';
import { benchDomainsMainThread } from './domains-main';
import { benchGpcMainThread } from './gpc-main';
import { benchPostgres } from './pg-cluster';
import { benchRules } from './rules';
import { benchDeps, benchDepsPostgres, NO_PARAMS, seedLinks } from './seed-links';
import { ensureWrk, runWrk, type WrkResult } from './wrk';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    links: { type: 'string', default: '100000' },
    'skip-build': { type: 'boolean', default: false },
    /** uniform: every link once per wrk thread; zipf: the k-th link of each thread's order gets clicks in proportion to 1/k. */
    distribution: { type: 'string', default: 'uniform' },
    out: { type: 'string' },
    /** postgres: also a dist/slink node on PostgreSQL (a throwaway cluster, pg-cluster.ts), seeded with the same links. */
    engine: { type: 'string', default: 'sqlite' },
    /** N > 1: also a dist/slink node with the same links spread over N short domains (domains.ts). */
    domains: { type: 'string', default: '1' },
    /** Measured runs of each server per connection count, after the warm-up. */
    rounds: { type: 'string', default: '2' },
    /** With --domains: only the idle RSS of the one-domain and the N-domain nodes. */
    'idle-only': { type: 'boolean', default: false },
    /** Also the main thread's cost of a redirect with Sec-GPC: 1 against one without (gpc-main.ts). */
    gpc: { type: 'boolean', default: false },
  },
});
if (values.engine !== 'sqlite' && values.engine !== 'postgres') throw new Error('--engine must be sqlite or postgres');
const POSTGRES = values.engine === 'postgres';
if (values.distribution !== 'uniform' && values.distribution !== 'zipf')
  throw new Error('--distribution must be uniform or zipf');
const ZIPF = values.distribution === 'zipf';
const DOMAINS = Number(values.domains);
if (!Number.isInteger(DOMAINS) || DOMAINS < 1) throw new Error('--domains must be a whole number of domains');
const SPREAD = DOMAINS > 1;
const ROUNDS = Number(values.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) throw new Error('--rounds must be a whole number');
const IDLE_ONLY = values['idle-only'];
if (IDLE_ONLY && !SPREAD) throw new Error('--idle-only goes with --domains N (N > 1)');
const OUT =
  values.out ??
  join(
    import.meta.dir,
    SPREAD
      ? IDLE_ONLY
        ? 'results-domains-idle.md'
        : 'results-domains.md'
      : ZIPF
        ? 'results-zipf.md'
        : POSTGRES
          ? 'results-postgres.md'
          : 'results.md',
  );
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const LINKS = Number(values.links);
const CONNECTIONS = [64, 256];
const ROOT = join(import.meta.dir, '..', '..');
const BINARY = join(ROOT, 'dist', 'slink');
// Below Linux's ephemeral range (32768-60999): a probe polling a port in that range before the
// server binds it can connect to itself and take the port (TCP simultaneous open).
const SLINK_PORT = 18_301;
const BARE_PORT = 18_302;
const PROBE_PORT = 18_303;
const PG_PORT = 18_304;
const SPREAD_PORT = 18_305;

function sh(cmd: string[], env?: Record<string, string>): string {
  const r = Bun.spawnSync(cmd, { cwd: ROOT, env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'pipe' });
  if (r.exitCode !== 0) throw new Error(`${cmd.join(' ')} exited ${r.exitCode}: ${r.stderr.toString()}`);
  return r.stdout.toString();
}

const ms = (t: number) => `${t.toFixed(t < 10 ? 2 : 1)} ms`;
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const mb = (kb: number) => `${(kb / 1024).toFixed(0)} MB`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// ---------------------------------------------------------------- seed

interface Seeded {
  slugs: string[];
  targets: [string, string][];
}

async function seed(deps: Deps, sameSlugs?: readonly string[]): Promise<Seeded> {
  const slugs = await seedLinks(
    deps,
    LINKS,
    (i) => ({
      destination:
        i % 5 === 0
          ? `https://shop.example.com/products/${i}?color=blue&size=m`
          : `https://www.example.org/articles/${i}`,
      params:
        i % 3 === 0 ? { utm_source: 'newsletter', utm_medium: 'email', utm_campaign: `spring-${i % 40}` } : NO_PARAMS,
    }),
    sameSlugs,
  );
  // Idle memory alone compares two nodes of the same links: no variants (a million links seed in
  // minutes, not a quarter of an hour) and no targets for the bare server.
  if (IDLE_ONLY) {
    await deps.stores.close();
    return { slugs, targets: [] };
  }
  await deps.linkIndex.loadAll();
  for (const [i, slug] of slugs.entries()) {
    if (i % 4 === 0)
      await createVariant(deps, OPERATOR, (await deps.linkIndex.get(slug))!.id, {
        code: 'tw',
        params: { utm_source: 'twitter', utm_medium: 'social' },
      });
  }
  const targets: [string, string][] = [];
  for (const slug of slugs) targets.push([slug, (await deps.linkIndex.get(slug))!.base.location]);
  await deps.stores.close();
  return { slugs, targets };
}

// ---------------------------------------------------------------- processes

function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)![1]);
}

async function waitFor(url: string, status: number, timeoutMs = 30_000): Promise<void> {
  const until = performance.now() + timeoutMs;
  for (;;) {
    try {
      const r = await fetch(url, { redirect: 'manual' });
      if (r.status === status) return;
    } catch {
      // not listening yet
    }
    if (performance.now() > until) throw new Error(`${url} did not answer ${status}`);
    await Bun.sleep(5);
  }
}

function slinkEnv(dbPath: string, port: number, databaseUrl?: string): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    ...(databaseUrl ? { SLINK_DATABASE_URL: databaseUrl } : {}),
    SLINK_DB: dbPath,
    SLINK_PORT: String(port),
    SLINK_HOSTNAME: '127.0.0.1',
    SLINK_TRUST_PROXY: '1',
  };
}

async function stopProcess(proc: Bun.Subprocess): Promise<number> {
  proc.kill('SIGTERM');
  return proc.exited;
}

/** Exec of dist/slink to the first 302 it answers, polling with a raw socket every ~0.5 ms. */
async function timeToFirstRedirect(dbPath: string, slug: string): Promise<number> {
  const request = `GET /${slug} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: bench-probe\r\nConnection: close\r\n\r\n`;
  const started = performance.now();
  const proc = Bun.spawn([BINARY], { env: slinkEnv(dbPath, PROBE_PORT), stdout: 'ignore', stderr: 'ignore' });
  let elapsed = -1;
  while (elapsed < 0 && performance.now() - started < 10_000) {
    if (proc.exitCode !== null) throw new Error(`dist/slink exited ${proc.exitCode} before answering`);
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      Bun.connect({
        hostname: '127.0.0.1',
        port: PROBE_PORT,
        socket: {
          open: (s) => void s.write(request),
          data: (_s, d) => {
            text += d.toString();
          },
          close: () => resolve(text),
          error: () => resolve(''),
          connectError: () => resolve(''),
        },
      }).catch(() => resolve(''));
    });
    if (answer.startsWith('HTTP/1.1 302')) elapsed = performance.now() - started;
    else await Bun.sleep(0.5);
  }
  await stopProcess(proc);
  if (elapsed < 0) throw new Error('dist/slink gave no 302 within 10 s');
  return elapsed;
}

// ---------------------------------------------------------------- wrk

async function wrk(
  port: number,
  connections: number,
  seconds: number,
  slugsFile: string,
  outFile: string,
): Promise<{ result: WrkResult; cpuUs: number }> {
  return runWrk({ port, connections, seconds, slugsFile, outFile, scriptArgs: ZIPF ? ['zipf'] : [] });
}

// ---------------------------------------------------------------- several domains, idle

/**
 * The idle RSS of the one-domain node and of the node with the same links over DOMAINS domains,
 * each alone on the box in turn (twice, alternating), sampled every second for 5 s from 10 s
 * after its log says every link is in memory; the medians are compared.
 */
async function idleOnly(onePath: string, spreadPath: string): Promise<void> {
  const idle = { one: [] as number[], spread: [] as number[] };
  for (const round of [1, 2]) {
    for (const which of round === 1 ? (['one', 'spread'] as const) : (['spread', 'one'] as const)) {
      const path = which === 'one' ? onePath : spreadPath;
      const log = join(dir, `idle-${which}-${round}.log`);
      const started = performance.now();
      const proc = Bun.spawn([BINARY], {
        env: slinkEnv(path, which === 'one' ? SLINK_PORT : SPREAD_PORT),
        stdout: Bun.file(log),
        stderr: 'inherit',
      });
      const loaded = await waitForLinksInMemory(log);
      const loadMs = performance.now() - started;
      // The load's garbage is collected within seconds of its end (seen: 143 MB, then 114 MB).
      await Bun.sleep(10_000);
      const samples: number[] = [];
      for (let i = 0; i < 5; i++) {
        await Bun.sleep(1000);
        samples.push(rssKb(proc.pid));
      }
      const rss = median(samples);
      idle[which].push(rss);
      console.log(
        `  ${which === 'one' ? 'one domain' : `${DOMAINS} domains`} round ${round}: ${int(loaded)} links in memory after ${ms(loadMs)}, idle RSS ${mb(rss)} (samples ${samples.map(mb).join(', ')})`,
      );
      await stopProcess(proc);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
  const one = mean(idle.one);
  const spread = mean(idle.spread);
  const ratio = spread / one;
  const text = [
    '# Several short domains: idle memory',
    '',
    `\`bun run bench -- --links ${LINKS} --domains ${DOMAINS} --idle-only\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Bun ${Bun.version}. dist/slink on the seeded database (every link on the default domain) and on a copy with the same links spread over ${DOMAINS} domains, each alone in turn, two rounds alternating; RSS sampled every second for 5 s from 10 s after its log said every link was in memory (the median of each run's samples, then the mean of the rounds).`,
    '',
    `| links | one domain | rounds | ${DOMAINS} domains | rounds | ${DOMAINS} domains / one | target |`,
    '|---|---|---|---|---|---|---|',
    `| ${int(LINKS)} | ${mb(one)} | ${idle.one.map(mb).join(', ')} | ${mb(spread)} | ${idle.spread.map(mb).join(', ')} | **${ratio.toFixed(3)}** | ≤ 1.05: ${ratio <= 1.05 ? 'met' : 'NOT met'} |`,
    '',
  ].join('\n');
  console.log(`\n${text}`);
  writeFileSync(OUT, text);
  rmSync(dir, { recursive: true, force: true });
}

// ---------------------------------------------------------------- run

ensureWrk();
const dir = mkdtempSync(join(tmpdir(), 'slink-bench-redirect-'));
const dbPath = join(dir, 'slink.db');
try {
  if (!values['skip-build']) {
    console.log('building dist/slink...');
    sh(['bun', 'run', 'build.ts']);
  }
  const t = performance.now();
  const { slugs, targets } = await seed(benchDeps(dbPath));
  console.log(`seeded ${int(slugs.length)} links in ${ms(performance.now() - t)}`);
  const slugsFile = join(dir, 'slugs.txt');
  const targetsFile = join(dir, 'targets.json');
  writeFileSync(slugsFile, `${slugs.join('\n')}\n`);
  writeFileSync(targetsFile, JSON.stringify(targets));
  // Several domains: the same links spread over DOMAINS domains in a copy; the one-domain node's
  // requests carry the default domain's Host, the other's each its link's.
  const spreadPath = join(dir, 'spread.db');
  const oneHostFile = join(dir, 'slugs-one-domain.txt');
  const spreadFile = join(dir, 'slugs-domains.txt');
  if (SPREAD) {
    const hosts = spreadOverDomains(dbPath, spreadPath, slugs, DOMAINS);
    writeHostedSlugs(oneHostFile, slugs, () => DEFAULT_HOST);
    writeHostedSlugs(spreadFile, slugs, (i) => hosts[i]!);
    console.log(`the same links spread over ${DOMAINS} domains in a copy`);
  }
  if (IDLE_ONLY) {
    await idleOnly(dbPath, spreadPath);
    process.exit(0);
  }

  // Exec to first 302, five cold starts on the seeded database (each writes its one click at stop).
  const firsts: number[] = [];
  for (let i = 0; i < 5; i++) firsts.push(await timeToFirstRedirect(dbPath, slugs[i]!));
  console.log(`exec to first 302: ${firsts.map(ms).join(', ')}`);
  // The same cold starts on the copy over several domains (links on the default domain, which a
  // Host naming none is answered as): both nodes then start their measured run equally warm.
  const spreadFirsts: number[] = [];
  if (SPREAD) {
    for (let i = 0; i < 5; i++) spreadFirsts.push(await timeToFirstRedirect(spreadPath, slugs[i * DOMAINS]!));
    console.log(`exec to first 302, ${DOMAINS} domains: ${spreadFirsts.map(ms).join(', ')}`);
  }

  const reader = new Database(dbPath, { readonly: true });
  const sqliteCount = () => countClicks(reader);
  const before = sqliteCount();
  // The node on PostgreSQL, seeded with the same links, started now and driven in the rotation.
  let pg: { url: string; stop(): void; sql: Pg; proc: Bun.Subprocess; before: number } | null = null;
  if (POSTGRES) {
    const cluster = await benchPostgres();
    const seeded = await seed(benchDepsPostgres(cluster.url, join(dir, 'pg.db')), slugs);
    if (seeded.slugs.join() !== slugs.join()) throw new Error('the PostgreSQL node was seeded with other slugs');
    const sql = openPostgres(cluster.url, 1);
    const proc = Bun.spawn([BINARY], {
      env: slinkEnv(join(dir, 'pg.db'), PG_PORT, cluster.url),
      stdout: Bun.file(join(dir, 'slink-pg.log')),
      stderr: Bun.file(join(dir, 'slink-pg.err')),
    });
    pg = { ...cluster, sql, proc, before: 0 };
    await waitFor(`http://127.0.0.1:${PG_PORT}/healthz`, 200);
    console.log(`PostgreSQL node seeded with the same ${int(slugs.length)} links`);
  }
  const pgCount = async () =>
    num(
      (
        await pg!
          .sql`SELECT (SELECT count(*) FROM click_tail) + (SELECT coalesce(sum(count), 0) FROM click_blocks) AS n`
      )[0].n,
    );
  if (pg) pg.before = await pgCount();

  const bare = Bun.spawn(['bun', join(import.meta.dir, 'bare-server.ts'), targetsFile, String(BARE_PORT)], {
    stdout: 'ignore',
    stderr: 'inherit',
  });
  const slinkLog = join(dir, 'slink.log');
  const slink = Bun.spawn([BINARY], {
    env: slinkEnv(dbPath, SLINK_PORT),
    stdout: Bun.file(slinkLog),
    stderr: Bun.file(join(dir, 'slink.err')),
  });
  // The node with the links over several domains, on its copy of the database.
  const spreadLog = join(dir, 'slink-domains.log');
  const spread = SPREAD
    ? Bun.spawn([BINARY], {
        env: slinkEnv(spreadPath, SPREAD_PORT),
        stdout: Bun.file(spreadLog),
        stderr: Bun.file(join(dir, 'slink-domains.err')),
      })
    : null;
  const spreadReader = SPREAD ? new Database(spreadPath, { readonly: true }) : null;
  const spreadCount = () => countClicks(spreadReader!);
  const spreadBefore = SPREAD ? spreadCount() : 0;
  await waitFor(`http://127.0.0.1:${BARE_PORT}/${slugs[0]}`, 302);
  await waitFor(`http://127.0.0.1:${SLINK_PORT}/healthz`, 200);
  if (spread) {
    await waitFor(`http://127.0.0.1:${SPREAD_PORT}/healthz`, 200);
    await waitForLinksInMemory(slinkLog);
    await waitForLinksInMemory(spreadLog);
  }
  await Bun.sleep(2000);
  const idleRss = rssKb(slink.pid);
  const bareIdleRss = rssKb(bare.pid);
  const spreadIdleRss = spread ? rssKb(spread.pid) : 0;
  console.log(
    `idle RSS: slink ${mb(idleRss)}, bare ${mb(bareIdleRss)}${spread ? `, slink on ${DOMAINS} domains ${mb(spreadIdleRss)}` : ''}`,
  );

  interface Row {
    connections: number;
    server: 'bare' | 'slink' | 'slink-pg' | 'slink-domains';
    run: number;
    result: WrkResult;
    rps: number;
    peakRssKb: number;
    /** Slink only: clicks still unwritten when wrk stopped, and how long until they were. */
    backlog?: number;
    drainMs?: number;
    /** CPU time of wrk, and of the server until its clicks were written, in microseconds. */
    wrkCpuUs: number;
    serverCpu: CpuUse;
  }
  const rows: Row[] = [];
  let answered = 0; // 302s wrk counted from Slink, warm-ups included
  let slinkRuns = 0; // for the in-flight bound: each run can leave `connections` answers uncounted
  let inFlightBound = 0;
  // The same for the node on PostgreSQL.
  let pgAnswered = 0;
  let pgInFlightBound = 0;
  // The same for the node on several domains.
  let spreadAnswered = 0;
  let spreadInFlightBound = 0;

  const drive = async (server: Row['server'], connections: number, seconds: number, run: number): Promise<void> => {
    const port =
      server === 'bare' ? BARE_PORT : server === 'slink' ? SLINK_PORT : server === 'slink-pg' ? PG_PORT : SPREAD_PORT;
    const pid =
      server === 'bare'
        ? bare.pid
        : server === 'slink'
          ? slink.pid
          : server === 'slink-pg'
            ? pg!.proc.pid
            : spread!.pid;
    // With several domains, each Slink node's requests name their Host (the bare server's need none).
    const file = !SPREAD || server === 'bare' ? slugsFile : server === 'slink-domains' ? spreadFile : oneHostFile;
    let peak = rssKb(pid);
    const sampler = setInterval(() => (peak = Math.max(peak, rssKb(pid))), 100);
    const cpuBefore = cpuUse(pid);
    const { result, cpuUs } = await wrk(
      port,
      connections,
      seconds,
      file,
      join(dir, `wrk-${server}-${connections}-${run}.json`),
    );
    clearInterval(sampler);
    peak = Math.max(peak, rssKb(pid));
    if (result.status_errors > 0 || result.timeouts > 0)
      console.log(`  ! ${server}: ${result.status_errors} non-3xx answers, ${result.timeouts} timeouts`);
    const row: Row = {
      connections,
      server,
      run,
      result,
      rps: result.requests / (result.duration_us / 1e6),
      peakRssKb: peak,
      wrkCpuUs: cpuUs,
      serverCpu: { main: 0, worker: 0, other: 0 },
    };
    if (server !== 'bare') {
      const onPg = server === 'slink-pg';
      const onSpread = server === 'slink-domains';
      if (onPg) {
        pgAnswered += result.requests - result.status_errors;
        pgInFlightBound += connections;
      } else if (onSpread) {
        spreadAnswered += result.requests - result.status_errors;
        spreadInFlightBound += connections;
      } else {
        answered += result.requests - result.status_errors;
        inFlightBound += connections;
        slinkRuns++;
      }
      const want = onPg ? pgAnswered : onSpread ? spreadAnswered : answered;
      const recorded = async () =>
        onPg ? (await pgCount()) - pg!.before : onSpread ? spreadCount() - spreadBefore : sqliteCount() - before;
      const stoppedAt = performance.now();
      const backlog = Math.max(0, want - (await recorded()));
      while ((await recorded()) < want && performance.now() - stoppedAt < 60_000) await Bun.sleep(20);
      row.backlog = backlog;
      row.drainMs = performance.now() - stoppedAt;
    }
    // Slink's clicks of this run are all written by now: its CPU covers answering and recording
    // (wrk's cost per request is its own rusage, the same for both servers' rows).
    const cpuAfter = cpuUse(pid);
    row.serverCpu = {
      main: cpuAfter.main - cpuBefore.main,
      worker: cpuAfter.worker - cpuBefore.worker,
      other: cpuAfter.other - cpuBefore.other,
    };
    if (run > 0) {
      rows.push(row);
      const extra =
        row.drainMs === undefined ? '' : `, backlog ${int(row.backlog!)} clicks written in ${ms(row.drainMs)}`;
      console.log(
        `  ${server.padEnd(5)} c=${connections} run ${run}: ${int(row.rps)} req/s, p50 ${ms(result.p50_us / 1000)}, p99 ${ms(result.p99_us / 1000)}, peak RSS ${mb(peak)}${extra}`,
      );
    }
  };

  for (const connections of CONNECTIONS) {
    console.log(`\n${connections} connections (${SECONDS} s per run, after a ${WARMUP} s warm-up of each):`);
    await drive('bare', connections, WARMUP, 0);
    await drive('slink', connections, WARMUP, 0);
    if (pg) await drive('slink-pg', connections, WARMUP, 0);
    if (spread) await drive('slink-domains', connections, WARMUP, 0);
    for (let run = 1; run <= ROUNDS; run++) {
      await drive('bare', connections, SECONDS, run);
      // One domain and several take turns going first: neither always follows the other.
      if (spread && run % 2 === 0) await drive('slink-domains', connections, SECONDS, run);
      await drive('slink', connections, SECONDS, run);
      if (pg) await drive('slink-pg', connections, SECONDS, run);
      if (spread && run % 2 === 1) await drive('slink-domains', connections, SECONDS, run);
    }
  }

  const exit = await stopProcess(slink);
  await stopProcess(bare);
  let spreadSummary: string[] = [];
  if (spread) {
    const spreadExit = await stopProcess(spread);
    const spreadRecorded = spreadCount() - spreadBefore;
    spreadReader!.close();
    const spreadComplete =
      spreadExit === 0 && spreadRecorded >= spreadAnswered && spreadRecorded <= spreadAnswered + spreadInFlightBound;
    const of = (c: number, s: Row['server']) => rows.filter((r) => r.connections === c && r.server === s);
    const mean = (rs: Row[]) => rs.reduce((a, r) => a + r.rps, 0) / rs.length;
    const mainUs = (rs: Row[]) =>
      rs.reduce((a, r) => a + r.serverCpu.main, 0) / rs.reduce((a, r) => a + r.result.requests, 0);
    const idleRatio = spreadIdleRss / idleRss;
    spreadSummary = [
      '',
      `## Several short domains`,
      '',
      `The same ${int(LINKS)} links spread over ${DOMAINS} domains (the i-th on domain i mod ${DOMAINS}) in a copy of the database, served by a second dist/slink in the same rotation; each of its requests names its link's domain in Host, each of the one-domain node's the default domain's.`,
      '',
      `| connections | one domain requests/s | ${DOMAINS} domains requests/s | ${DOMAINS} domains / one | main thread per redirect, one domain | ${DOMAINS} domains | difference | target |`,
      '|---|---|---|---|---|---|---|---|',
      ...CONNECTIONS.map((c) => {
        const ratio = mean(of(c, 'slink-domains')) / mean(of(c, 'slink'));
        const one = mainUs(of(c, 'slink'));
        const many = mainUs(of(c, 'slink-domains'));
        const met = ratio >= 0.97 && many - one <= 1;
        return `| ${c} | ${int(mean(of(c, 'slink')))} | ${int(mean(of(c, 'slink-domains')))} | **${ratio.toFixed(3)}** | ${one.toFixed(2)} us | ${many.toFixed(2)} us | ${(many - one).toFixed(2)} us | ratio ≥ 0.97, difference ≤ 1 us: ${met ? 'met' : 'NOT met'} |`;
      }),
      '',
      `- **Idle RSS**: one domain ${mb(idleRss)}, ${DOMAINS} domains ${mb(spreadIdleRss)} (ratio ${idleRatio.toFixed(3)}), one sample each 2 s after every link was in memory (\`--idle-only\` compares them alone, sampled later).`,
      `- **Exec to first 302**: one domain median ${ms(median(firsts))}, ${DOMAINS} domains ${ms(median(spreadFirsts))} (5 cold starts each).`,
      `- **Every redirect recorded (${DOMAINS} domains)**: wrk counted ${int(spreadAnswered)} redirects; its database gained ${int(spreadRecorded)} clicks after the final flush (exit ${spreadExit}); ${int(spreadAnswered)} ≤ recorded ≤ ${int(spreadAnswered + spreadInFlightBound)}: ${spreadComplete ? 'met' : 'NOT met'}.`,
    ];
  }
  const recorded = sqliteCount() - before;
  reader.close();
  let pgSummary: string[] = [];
  if (pg) {
    const pgExit = await stopProcess(pg.proc);
    const pgRecorded = (await pgCount()) - pg.before;
    await pg.sql.close();
    pg.stop();
    const pgComplete = pgExit === 0 && pgRecorded >= pgAnswered && pgRecorded <= pgAnswered + pgInFlightBound;
    const mean = (c: number, s: Row['server']) => {
      const rs = rows.filter((r) => r.connections === c && r.server === s);
      return rs.reduce((a, r) => a + r.rps, 0) / rs.length;
    };
    pgSummary = [
      '',
      '## The node on PostgreSQL',
      '',
      'dist/slink with SLINK_DATABASE_URL, on a PostgreSQL 15 cluster on the same box (durable defaults, shared_buffers 512 MB), seeded with the same links, driven in the same rotation.',
      '',
      '| connections | bare requests/s | SQLite node | PostgreSQL node | PostgreSQL / SQLite | PostgreSQL p99 (worst run) | clicks written within |',
      '|---|---|---|---|---|---|---|',
      ...CONNECTIONS.map((c) => {
        const pgRows = rows.filter((r) => r.connections === c && r.server === 'slink-pg');
        return `| ${c} | ${int(mean(c, 'bare'))} | ${int(mean(c, 'slink'))} | ${int(mean(c, 'slink-pg'))} | **${(mean(c, 'slink-pg') / mean(c, 'slink')).toFixed(2)}** | ${ms(Math.max(...pgRows.map((r) => r.result.p99_us / 1000)))} | ${ms(Math.max(...pgRows.map((r) => r.drainMs!)))} |`;
      }),
      '',
      `- **Every redirect recorded (PostgreSQL)**: wrk counted ${int(pgAnswered)} redirects from the PostgreSQL node; its database gained ${int(pgRecorded)} raw clicks after the final flush (exit ${pgExit}); ${int(pgAnswered)} ≤ recorded ≤ ${int(pgAnswered + pgInFlightBound)}: ${pgComplete ? 'met' : 'NOT met'}.`,
    ];
  }
  const log = readFileSync(slinkLog, 'utf8') + readFileSync(join(dir, 'slink.err'), 'utf8');
  const dropped = /(\d+) clicks dropped/.exec(log);
  const complete = exit === 0 && recorded >= answered && recorded <= answered + inFlightBound && !dropped;

  // ------------------------------------------------------------ report
  const lines: string[] = [];
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  lines.push(`# Redirect benchmark`, '');
  lines.push(
    `\`bun run bench\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpu}, Bun ${Bun.version}, wrk 2 threads on the same cores.`,
  );
  const order = ZIPF
    ? "every run draws each request from a Zipf distribution (s = 1) over each wrk thread's shuffled order of the links, the k-th link in proportion to 1/k"
    : 'every run requests every link once per wrk thread in a shuffled order';
  lines.push(
    `${int(LINKS)} links; ${order} (5% with a variant code, 5% an unknown code), ~15% crawler agents, client addresses in X-Forwarded-For (SLINK_TRUST_PROXY=1). Runs of ${SECONDS} s after a ${WARMUP} s warm-up, alternating bare and Slink.`,
    '',
  );
  lines.push(
    '| connections | server | run | requests/s | p50 | p99 | max | peak RSS | clicks unwritten when wrk stopped | written within |',
  );
  lines.push('|---|---|---|---|---|---|---|---|---|---|');
  for (const r of rows) {
    lines.push(
      `| ${r.connections} | ${r.server === 'bare' ? 'bare Bun.serve + Map' : r.server === 'slink' ? 'dist/slink' : r.server === 'slink-pg' ? 'dist/slink on PostgreSQL' : `dist/slink, ${DOMAINS} domains`} | ${r.run} | ${int(r.rps)} | ${ms(r.result.p50_us / 1000)} | ${ms(r.result.p99_us / 1000)} | ${ms(r.result.max_us / 1000)} | ${mb(r.peakRssKb)} | ${r.backlog === undefined ? '' : int(r.backlog)} | ${r.drainMs === undefined ? '' : ms(r.drainMs)} |`,
    );
  }
  lines.push(
    '',
    '| connections | bare requests/s | Slink requests/s | Slink / bare | Slink p50 | Slink p99 (worst run) | target |',
    '|---|---|---|---|---|---|---|',
  );
  let ratiosMet = true;
  let p99Met = true;
  for (const c of CONNECTIONS) {
    const of = (s: Row['server']) => rows.filter((r) => r.connections === c && r.server === s);
    const mean = (rs: Row[]) => rs.reduce((a, r) => a + r.rps, 0) / rs.length;
    const ratio = mean(of('slink')) / mean(of('bare'));
    const p99 = Math.max(...of('slink').map((r) => r.result.p99_us / 1000));
    const p50 = Math.max(...of('slink').map((r) => r.result.p50_us / 1000));
    ratiosMet &&= ratio >= 0.7;
    p99Met &&= p99 <= 5;
    lines.push(
      `| ${c} | ${int(mean(of('bare')))} | ${int(mean(of('slink')))} | **${ratio.toFixed(2)}** | ${ms(p50)} | ${ms(p99)} | ratio ≥ 0.70, p99 ≤ 5 ms: ${ratio >= 0.7 && p99 <= 5 ? 'met' : 'NOT met'} |`,
    );
  }
  // Where the CPU goes, per answered request, over both runs of each server and connection count.
  const us = (n: number) => `${n.toFixed(1)} us`;
  const perRequest = (rs: Row[], part: (r: Row) => number) =>
    rs.reduce((a, r) => a + part(r), 0) / rs.reduce((a, r) => a + r.result.requests, 0);
  const cores = cpus().length;
  lines.push(
    '',
    '| connections | server | wrk CPU per request | server CPU per request | main thread | Worker threads | other threads (GC, JIT, I/O) |',
    '|---|---|---|---|---|---|---|',
  );
  const budgets: string[] = [];
  for (const c of CONNECTIONS) {
    const of = (s: Row['server']) => rows.filter((r) => r.connections === c && r.server === s);
    const cost = (s: Row['server']) => ({
      wrk: perRequest(of(s), (r) => r.wrkCpuUs),
      main: perRequest(of(s), (r) => r.serverCpu.main),
      worker: perRequest(of(s), (r) => r.serverCpu.worker),
      other: perRequest(of(s), (r) => r.serverCpu.other),
    });
    const b = cost('bare');
    const k = cost('slink');
    for (const [name, x] of [
      ['bare Bun.serve + Map', b],
      ['dist/slink', k],
    ] as const) {
      lines.push(
        `| ${c} | ${name} | ${us(x.wrk)} | ${us(x.main + x.worker + x.other)} | ${us(x.main)} | ${us(x.worker)} | ${us(x.other)} |`,
      );
    }
    // What 0.7 leaves Slink: the box's CPU time per second, less what wrk needs at that rate
    // (wrk's cost per request as measured against the bare server), per redirect.
    const target = 0.7 * (of('bare').reduce((a, r) => a + r.rps, 0) / of('bare').length);
    const budget = (cores * 1e6 - target * b.wrk) / target;
    const slinkUs = k.main + k.worker + k.other;
    budgets.push(
      `at ${c} connections 0.7 × bare is ${int(target)} requests/s; wrk takes ${us(b.wrk)} per request, which leaves (${cores} × 1,000,000 − ${int(target)} × ${b.wrk.toFixed(1)}) / ${int(target)} = **${us(budget)}** of CPU per redirect for Slink. ` +
        `The bare server spends ${us(b.main + b.worker + b.other)}; Slink spends ${us(slinkUs)} (main thread ${us(k.main)}, writer Worker ${us(k.worker)}, other threads ${us(k.other)}). ` +
        `Ceilings at that cost: ${int((cores * 1e6) / (slinkUs + k.wrk))} requests/s with all ${cores} cores busy, ${int(1e6 / k.worker)} clicks/s for the one writer thread.`,
    );
  }
  lines.push(
    '',
    `CPU time from \`/proc/PID/task/*/stat\` (the server's threads, sampled when wrk started and once the run's clicks were written) and wrk's own rusage, divided by the requests wrk counted. The CPU budget for 0.7:`,
    '',
  );
  for (const line of budgets) lines.push(`- ${line}`);
  const peakRss = Math.max(...rows.filter((r) => r.server === 'slink').map((r) => r.peakRssKb));
  const maxDrain = Math.max(...rows.filter((r) => r.server === 'slink').map((r) => r.drainMs!));
  const firstMedian = median(firsts);
  lines.push('');
  lines.push(
    `- **RSS**: idle ${mb(idleRss)} with ${int(LINKS)} links and the geo database loaded (bare server: ${mb(bareIdleRss)}); peak under load ${mb(peakRss)} (target < 150 MB: ${peakRss < 150 * 1024 ? 'met' : 'NOT met'}).`,
  );
  lines.push(
    `- **Exec to first 302**: median ${ms(firstMedian)} over 5 cold starts (${firsts.map(ms).join(', ')}; target < 100 ms: ${firstMedian < 100 ? 'met' : 'NOT met'}).`,
  );
  // Bounded: what was unwritten when wrk stopped never exceeds twice the backpressure mark (past
  // it, answers are let go only as the buffer empties), plus one click per connection (each
  // waiting connection holds one recorded click), plus the two batches the writer holds (the one
  // it commits and the next, handed over meanwhile).
  const maxBacklog = Math.max(...rows.filter((r) => r.server === 'slink').map((r) => r.backlog! - r.connections));
  const bounded = maxBacklog <= 2 * HIGH_WATER + 2 * MAX_BATCH;
  const drainRate = Math.min(
    ...rows.filter((r) => r.server === 'slink' && r.backlog! > 0).map((r) => r.backlog! / (r.drainMs! / 1000)),
  );
  lines.push(
    `- **Click buffer at saturation**: when wrk stopped, at most ${int(maxBacklog)} clicks beyond one per connection were unwritten (backpressure starts at ${int(HIGH_WATER)} and holds every answer past ${int(2 * HIGH_WATER)}, plus the two batches of ${int(MAX_BATCH)} the writer holds: bounded: ${bounded ? 'met' : 'NOT met'}); every run's clicks were in the database within ${ms(maxDrain)} of its end (the flush interval is 1,000 ms; the writer drained ${int(drainRate)} clicks/s at worst, counted from when wrk stopped).`,
  );
  lines.push(
    `- **Every redirect recorded**: wrk counted ${int(answered)} redirects from Slink over ${slinkRuns} runs (warm-ups included); the database gained ${int(recorded)} clicks after the final flush (exit ${exit}${dropped ? `, log: "${dropped[0]}"` : ', no drops logged'}). wrk does not count answers still in flight when a run ends, at most one per connection (${int(inFlightBound)} in all), so ${int(answered)} ≤ recorded ≤ ${int(answered + inFlightBound)} is the check: ${complete ? 'met' : 'NOT met'}.`,
  );
  lines.push(...pgSummary);
  lines.push(...spreadSummary);
  // The same comparison without sockets or other threads: the handler alone (domains-main.ts).
  if (SPREAD)
    lines.push('', '### The handler alone (main thread)', '', ...(await benchDomainsMainThread(LINKS, DOMAINS)));
  // Link rules' cost on the main thread, beside the same run's figures (rules.ts).
  // (Not with several domains: that run compares the two Slink nodes, and stays short.)
  if (!SPREAD)
    lines.push('', '### Link rules (main thread, the redirect function alone)', '', ...(await benchRules(LINKS)).lines);
  if (values.gpc) lines.push('', '### Sec-GPC (main thread)', '', ...(await benchGpcMainThread(LINKS)));
  const text = `${lines.join('\n')}\n`;
  console.log(`\n${text}`);
  writeFileSync(OUT, text);
  console.log(`written to ${OUT}`);
  const met = ratiosMet && p99Met && bounded && peakRss < 150 * 1024 && firstMedian < 100 && complete;
  console.log(met ? 'all targets met' : 'some targets NOT met');
} finally {
  rmSync(dir, { recursive: true, force: true });
}
