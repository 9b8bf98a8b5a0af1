/**
 * Several nodes (docs/performance.md, "Several nodes"): what a redirect costs as the topology
 * grows, all in one run on this box, each driven by wrk with test/bench/redirect.lua (every
 * link, mixed agents with ~15% crawlers, client addresses in X-Forwarded-For):
 *
 * 1. a bare Bun.serve answering 302 from a Map of the same slugs, recording nothing (the baseline),
 *    directly and behind HAProxy (what the balancer alone costs);
 * 2. one `slink serve` on SQLite;
 * 3. one, two and three `slink serve` nodes on one PostgreSQL 15 (a throwaway cluster with durable
 *    defaults, pg-cluster.ts) behind HAProxy (round robin, test/helpers/haproxy.ts).
 *
 * For each: requests/s and p99 from wrk; the clicks stored during the run (counted after the
 * nodes' flush), as clicks/s and checked against wrk's count; the ratio to the bare server; the
 * CPU time each part spent per click stored: the nodes' event loops (every thread of the slink
 * processes but their click writer Workers: redirects, the API, GC and I/O), the writer Workers,
 * PostgreSQL (its postmaster and every backend and worker, from /proc) and HAProxy (per request).
 * These are what carry to other machines: a part's cores for a rate are its CPU per click times
 * the rate, printed for 10,000 clicks/s. Writes the same to test/bench/results-cluster.md.
 *
 *   bun run bench:cluster [-- --seconds 10 --warmup 3 --links 10000 --connections 64]
 */
import { Database } from 'bun:sqlite';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { num, openPostgres } from '../../src/db/postgres/client';
import { HIGH_WATER } from '../../src/modules/clicks/capture/buffer';
import { countClicks } from '../../src/modules/clicks/sqlite/raw-read';
import { type Balancer, startBalancer } from '../helpers/haproxy';
import { cpuUse, treeCpuUs } from './cpu-use';
import { benchPostgres } from './pg-cluster';
import { benchDeps, benchDepsPostgres, seedLinks } from './seed-links';
import { ensureWrk, runWrk, type WrkResult } from './wrk';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    links: { type: 'string', default: '10000' },
    connections: { type: 'string', default: '64' },
    out: { type: 'string', default: join(import.meta.dir, 'results-cluster.md') },
  },
});
const SECONDS = Number(values.seconds);
const WARMUP = Number(values.warmup);
const LINKS = Number(values.links);
const CONNECTIONS = Number(values.connections);
const ROOT = join(import.meta.dir, '..', '..');
// Below Linux's ephemeral range (see redirect.ts), and apart from its ports.
const BARE_PORT = 18_311;
const BALANCER_PORT = 18_312;
const STATS_PORT = 18_313;
const NODE_PORTS = [18_321, 18_322, 18_323];

const int = (n: number) => Math.round(n).toLocaleString('en-US');
const ms = (us: number) => `${(us / 1000).toFixed(1)} ms`;
const usText = (n: number) => (Number.isFinite(n) ? `${n.toFixed(1)} us` : '');

async function waitFor(url: string, status: number): Promise<void> {
  const until = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(url, { redirect: 'manual' })).status === status) return;
    } catch {}
    if (Date.now() > until) throw new Error(`${url} did not answer ${status}`);
    await Bun.sleep(20);
  }
}

async function stop(proc: Bun.Subprocess): Promise<number> {
  proc.kill('SIGTERM');
  return proc.exited;
}

// ---------------------------------------------------------------- setup

ensureWrk();
const dir = mkdtempSync(join(tmpdir(), 'slink-bench-cluster-'));
const pg = await benchPostgres();
/** Every process started here, killed at the end whatever happened. */
const started: Bun.Subprocess[] = [];
const spawn = (...args: Parameters<typeof Bun.spawn>) => {
  const proc = Bun.spawn(...args);
  started.push(proc);
  return proc;
};
try {
  const shape = (i: number) => ({ destination: `https://www.example.org/articles/${i}` });
  const sqlitePath = join(dir, 'sqlite', 'slink.db');
  mkdirSync(join(dir, 'sqlite'));
  const seedSqlite = benchDeps(sqlitePath);
  const slugs = await seedLinks(seedSqlite, LINKS, shape);
  await seedSqlite.stores.close();
  const seedPg = benchDepsPostgres(pg.url, join(dir, 'seed.db'));
  await seedLinks(seedPg, LINKS, shape, slugs);
  await seedPg.stores.close();
  const slugsFile = join(dir, 'slugs.txt');
  writeFileSync(slugsFile, `${slugs.join('\n')}\n`);
  const targetsFile = join(dir, 'targets.json');
  writeFileSync(targetsFile, JSON.stringify(slugs.map((s, i) => [s, shape(i).destination])));
  console.log(`seeded ${int(LINKS)} links in SQLite and in PostgreSQL`);

  const reader = new Database(sqlitePath, { readonly: true });
  const pgSql = openPostgres(pg.url, 1);
  const pgCount = async () =>
    num(
      (
        await pgSql`SELECT (SELECT count(*) FROM click_tail) + (SELECT coalesce(sum(count), 0) FROM click_blocks) AS n`
      )[0].n,
    );

  /** `slink serve` from the source tree, on SQLite (no url) or on the PostgreSQL cluster. */
  const node = (id: string, port: number, behindBalancer: boolean, url?: string) => {
    const db = url ? join(dir, id, 'slink.db') : sqlitePath;
    mkdirSync(join(dir, id), { recursive: true });
    return spawn([process.execPath, 'src/index.ts', 'serve'], {
      cwd: ROOT,
      env: {
        ...(process.env as Record<string, string>),
        ...(url ? { SLINK_DATABASE_URL: url } : {}),
        SLINK_DB: db,
        SLINK_PORT: String(port),
        SLINK_HOSTNAME: '127.0.0.1',
        SLINK_NODE_ID: id,
        // The client's address is wrk's X-Forwarded-For entry: HAProxy appends one more.
        SLINK_TRUST_PROXY: behindBalancer ? '2' : '1',
      },
      stdout: Bun.file(join(dir, `${id}.log`)),
      stderr: Bun.file(join(dir, `${id}.err`)),
    });
  };
  const balance = async (ports: number[]): Promise<Balancer> => {
    const servers = ports.map((port, i) => ({ name: `s${i + 1}`, port }));
    const b = await startBalancer({ dir, port: BALANCER_PORT, statsPort: STATS_PORT, servers, checkMs: 1000 });
    started.push(b.proc);
    await b.waitStates(Object.fromEntries(servers.map((s) => [s.name, 'UP'])));
    return b;
  };

  // ------------------------------------------------------------ measure

  interface Row {
    setup: string;
    result: WrkResult;
    rps: number;
    /** Clicks stored during the measured run (null: the bare server stores none). */
    stored: number | null;
    complete: boolean | null;
    slinkUs: number;
    /** Of slinkUs: the click writer Worker threads'. */
    writerUs: number;
    /** Clicks answered but not yet stored when wrk stopped (the writers' backlog). */
    backlog: number | null;
    pgUs: number;
    haproxyUs: number;
    wrkUs: number;
  }
  const rows: Row[] = [];

  /**
   * A warm-up, then the measured run: CPU of each process (trees) sampled before wrk starts and
   * once the run's clicks are stored and folded (the stored count reached wrk's, then one more
   * flush interval and a second).
   */
  const measure = async (
    setup: string,
    port: number,
    pids: { slink: number[]; haproxy?: number },
    count: (() => Promise<number>) | null,
  ): Promise<void> => {
    const sample = () => ({
      slink: pids.slink.reduce((a, pid) => a + treeCpuUs(pid), 0),
      writer: pids.slink.reduce((a, pid) => a + cpuUse(pid).worker, 0),
      pg: treeCpuUs(pg.pid),
      haproxy: pids.haproxy ? treeCpuUs(pids.haproxy) : 0,
    });
    const out = join(dir, 'wrk.json');
    const settle = async (want: number) => {
      const until = Date.now() + 60_000;
      while (count && (await count()) < want && Date.now() < until) await Bun.sleep(50);
      await Bun.sleep(2000);
    };
    const warmFrom = count ? await count() : 0;
    const warm = await runWrk({ port, connections: CONNECTIONS, seconds: WARMUP, slugsFile, outFile: out });
    // The warm-up's clicks are written before the measured run starts.
    if (count) await settle(warmFrom + warm.result.requests - warm.result.status_errors);
    const before = count ? await count() : 0;
    const cpuBefore = sample();
    const { result, cpuUs } = await runWrk({
      port,
      connections: CONNECTIONS,
      seconds: SECONDS,
      slugsFile,
      outFile: out,
    });
    const answered = result.requests - result.status_errors;
    const backlog = count ? Math.max(0, answered - ((await count()) - before)) : null;
    if (count) await settle(before + answered);
    const cpuAfter = sample();
    const stored = count ? (await count()) - before : null;
    const per = stored ?? result.requests;
    const row: Row = {
      setup,
      result,
      rps: result.requests / (result.duration_us / 1e6),
      stored,
      // wrk does not count answers in flight when it stops: at most one per connection.
      complete: stored === null ? null : stored >= answered && stored <= answered + CONNECTIONS,
      slinkUs: (cpuAfter.slink - cpuBefore.slink) / per,
      writerUs: (cpuAfter.writer - cpuBefore.writer) / per,
      backlog,
      pgUs: (cpuAfter.pg - cpuBefore.pg) / per,
      haproxyUs: (cpuAfter.haproxy - cpuBefore.haproxy) / result.requests,
      wrkUs: cpuUs / result.requests,
    };
    rows.push(row);
    const errors = result.status_errors + result.timeouts + result.connect_errors + result.read_errors;
    console.log(
      `${setup}: ${int(row.rps)} req/s, p99 ${ms(result.p99_us)}${stored === null ? '' : `, ${int(stored)} clicks stored for ${int(answered)} answers`}${errors ? `, ${errors} errors` : ''}`,
    );
  };

  // 1. The bare server, directly and behind HAProxy.
  const bare = spawn([process.execPath, join(import.meta.dir, 'bare-server.ts'), targetsFile, String(BARE_PORT)], {
    stdout: 'ignore',
    stderr: 'inherit',
  });
  await waitFor(`http://127.0.0.1:${BARE_PORT}/${slugs[0]}`, 302);
  await measure('bare Bun.serve', BARE_PORT, { slink: [bare.pid] }, null);
  let balancer = await balance([BARE_PORT]);
  await measure(
    'bare Bun.serve behind HAProxy',
    BALANCER_PORT,
    { slink: [bare.pid], haproxy: balancer.proc.pid },
    null,
  );
  await balancer.stop();
  await stop(bare);

  // 2. One node on SQLite.
  const single = node('sqlite', NODE_PORTS[0]!, false);
  await waitFor(`http://127.0.0.1:${NODE_PORTS[0]}/healthz`, 200);
  await measure('1 node, SQLite', NODE_PORTS[0]!, { slink: [single.pid] }, async () => countClicks(reader));
  const sqliteExit = await stop(single);

  // 3. One, two and three nodes on PostgreSQL behind HAProxy.
  const nodes: Bun.Subprocess[] = [];
  for (const n of [1, 2, 3]) {
    nodes.push(node(`n${n}`, NODE_PORTS[n - 1]!, true, pg.url));
    await waitFor(`http://127.0.0.1:${NODE_PORTS[n - 1]}/healthz`, 200);
    balancer = await balance(NODE_PORTS.slice(0, n));
    await measure(
      `${n} node${n > 1 ? 's' : ''}, PostgreSQL, HAProxy`,
      BALANCER_PORT,
      { slink: nodes.map((p) => p.pid), haproxy: balancer.proc.pid },
      pgCount,
    );
    await balancer.stop();
  }
  const pgExits = await Promise.all(nodes.map(stop));
  reader.close();
  await pgSql.close();

  // ------------------------------------------------------------ report

  const baseline = rows[0]!.rps;
  const lines = [
    '# Several nodes',
    '',
    `\`bun run bench:cluster\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Bun ${Bun.version}, load average ${loadavg()[0]!.toFixed(1)} at the end; wrk (2 threads, ${CONNECTIONS} connections), HAProxy, PostgreSQL 15 and every node on the same cores. ${int(LINKS)} links; ${SECONDS} s runs after a ${WARMUP} s warm-up; \`slink serve\` from the source tree with its defaults (SLINK_FLUSH_MS 1000, the bundled geo database).`,
    '',
    '| setup | requests/s | clicks stored /s | / bare | p99 | server CPU per click | event loops (nodes minus writers) | writer Workers | PostgreSQL CPU per click | HAProxy CPU per request | every part per click | wrk CPU per request | unwritten when wrk stopped | every redirect stored |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((r) => {
      const seconds = r.result.duration_us / 1e6;
      const stores = r.stored !== null;
      const pgUs = r.setup.includes('PostgreSQL') ? r.pgUs : 0;
      const haproxyUs = r.setup.includes('HAProxy') ? r.haproxyUs : 0;
      return `| ${r.setup} | ${int(r.rps)} | ${stores ? int(r.stored! / seconds) : ''} | ${(r.rps / baseline).toFixed(2)} | ${ms(r.result.p99_us)} | ${usText(r.slinkUs)} | ${stores ? usText(r.slinkUs - r.writerUs) : ''} | ${stores ? usText(r.writerUs) : ''} | ${pgUs ? usText(pgUs) : ''} | ${haproxyUs ? usText(haproxyUs) : ''} | ${usText(r.slinkUs + pgUs + haproxyUs)} | ${usText(r.wrkUs)} | ${r.backlog === null ? '' : int(r.backlog)} | ${r.complete === null ? '' : r.complete ? 'yes' : 'NO'} |`;
    }),
    '',
    'Cores each part needs for 10,000 clicks/s at these figures (CPU per click × 10,000 / 1,000,000 us):',
    '',
    '| setup | event loops | writer Workers | PostgreSQL | HAProxy |',
    '|---|---|---|---|---|',
    ...rows
      .filter((r) => r.stored !== null)
      .map((r) => {
        const cores = (us: number) => (us / 100).toFixed(2);
        const pg = r.setup.includes('PostgreSQL');
        const haproxy = r.setup.includes('HAProxy');
        return `| ${r.setup} | ${cores(r.slinkUs - r.writerUs)} | ${cores(r.writerUs)} | ${pg ? cores(r.pgUs) : ''} | ${haproxy ? cores(r.haproxyUs) : ''} |`;
      }),
    '',
    `CPU per click: utime + stime from /proc of the slink processes (every thread) and of PostgreSQL's postmaster with every backend and worker (exited ones through its cutime/cstime), sampled before the run and once its clicks were stored and folded, divided by the clicks stored in the run; server CPU is the slink nodes' together (on the bare rows, the bare server's per request), the writer Workers' share from their threads (/proc/PID/task), the event loops' the rest of the nodes' (main threads, GC, I/O). A backlog near the click buffer's backpressure mark (${int(HIGH_WATER)} a node) means redirects were held for the writer: the rate is then the writers', not the event loops'. Exit codes at the end: SQLite node ${sqliteExit}, PostgreSQL nodes ${pgExits.join(', ')}.`,
  ];
  const text = `${lines.join('\n')}\n`;
  console.log(`\n${text}`);
  writeFileSync(values.out!, text);
  console.log(`written to ${values.out}`);
} finally {
  for (const proc of started) if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  await Promise.all(started.map((p) => p.exited));
  pg.stop();
  rmSync(dir, { recursive: true, force: true });
}
