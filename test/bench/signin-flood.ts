/**
 * Sign-in flood against redirects (docs/performance.md, "Sign-in flood"): how much a flood of
 * wrong passwords slows the redirects of the same server.
 *
 * Each run seeds a fresh database (10,000 links, one account), starts the server from source,
 * warms it up with wrk (test/bench/redirect.lua, the redirect benchmark's mixed traffic), then
 * measures redirects with wrk twice: alone for a few seconds, and from half a second before to
 * the end of a flood this process sends: 10,000 sign-ins with wrong passwords (for 50 emails from
 * one client address, over 4 connections). It prints the redirect p50, p99 and max of both
 * windows, the server's CPU in each (main thread; other threads, where argon2id runs), and the
 * flood's answers: 401 ones had their password verified, 429 ones were refused.
 *
 * With `--compare DIR` (another checkout of Slink, its dependencies installed and its dashboard
 * built) every round runs that server and then this one, alternating, under the same load.
 *
 *   bun run bench:signin [-- --runs 3 --seconds 8 --requests 10000 --connections 4 --compare DIR]
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createAccount } from '../../src/modules/auth/accounts';
import { freePort } from '../helpers/proc';
import { cpuUse } from './cpu-use';
import { benchDeps, seedLinks } from './seed-links';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '8' },
    requests: { type: 'string', default: '10000' },
    connections: { type: 'string', default: '4' },
    compare: { type: 'string' },
  },
});
const RUNS = Number(values.runs);
const SECONDS = Number(values.seconds);
const REQUESTS = Number(values.requests);
const FLOOD_CONNECTIONS = Number(values.connections);
const WRK_CONNECTIONS = 64;
const LINKS = 10_000;
const ROOT = join(import.meta.dir, '..', '..');
// A free port per invocation: other benchmarks on the same machine use fixed ones.
const PORT = freePort();
const FLOOD_ADDRESS = '203.0.113.77';

interface WrkResult {
  requests: number;
  duration_us: number;
  status_errors: number;
  timeouts: number;
  p50_us: number;
  p99_us: number;
  max_us: number;
}

interface Flood {
  ms: number;
  statuses: Record<string, number>;
}

const ms = (us: number) => `${(us / 1000).toFixed(us < 10_000 ? 2 : 1)} ms`;

function seed(dbPath: string, slugsFile: string): Promise<void> {
  const deps = benchDeps(dbPath);
  const slugs = seedLinks(deps, LINKS, (i) => ({ destination: `https://www.example.org/articles/${i}` }));
  writeFileSync(slugsFile, `${slugs.join('\n')}\n`);
  return createAccount(deps, { email: 'ada@example.com', password: 'the right password' }).then(() => {
    deps.linkIndex.stopLoading();
    deps.db.$client.close();
  });
}

/** wrk's redirect load for `seconds`, or (null) until `stop` resolves (wrk reports on SIGINT). */
async function wrk(slugsFile: string, seconds: number | null, stop?: Promise<unknown>): Promise<WrkResult> {
  const out = join(tmpdir(), `slink-signin-wrk-${process.pid}.json`);
  const proc = Bun.spawn(
    [
      'wrk',
      '-t2',
      `-c${WRK_CONNECTIONS}`,
      `-d${seconds ?? 600}s`,
      '--timeout',
      '5s',
      '-s',
      join(import.meta.dir, 'redirect.lua'),
      `http://127.0.0.1:${PORT}`,
      '--',
      slugsFile,
    ],
    { env: { ...process.env, WRK_OUT: out }, stdout: 'pipe', stderr: 'pipe' },
  );
  void stop?.then(() => proc.kill('SIGINT'));
  const code = await proc.exited;
  if (code !== 0) throw new Error(`wrk exited ${code}: ${await new Response(proc.stderr).text()}`);
  const result = JSON.parse(readFileSync(out, 'utf8')) as WrkResult;
  rmSync(out, { force: true });
  return result;
}

/** REQUESTS sign-ins with wrong passwords over FLOOD_CONNECTIONS connections, from one address. */
async function flood(): Promise<Flood> {
  const statuses: Record<string, number> = {};
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    for (let i = next++; i < REQUESTS; i = next++) {
      const res = await fetch(`http://127.0.0.1:${PORT}/api/app/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': FLOOD_ADDRESS },
        body: JSON.stringify({ email: `guess${i % 50}@example.com`, password: `wrong password ${i}` }),
      });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: FLOOD_CONNECTIONS }, worker));
  return { ms: performance.now() - started, statuses };
}

async function waitForRedirect(slug: string): Promise<void> {
  const until = performance.now() + 30_000;
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${PORT}/${slug}`, { redirect: 'manual' });
      if (res.status === 302) return;
    } catch {
      // not listening yet
    }
    if (performance.now() > until) throw new Error('the server did not answer a redirect within 30 s');
    await Bun.sleep(20);
  }
}

interface Window {
  wrk: WrkResult;
  /** The server's CPU over the window, as a share of one core: main thread, other threads (argon2id runs there). */
  main: number;
  other: number;
}

/** Redirect load and the server's CPU while `during` runs (or for SECONDS without it). */
async function measure(pid: number, slugsFile: string, during?: () => Promise<Flood>) {
  const before = cpuUse(pid);
  const started = performance.now();
  let flood: Flood | null = null;
  const running = during ? Bun.sleep(500).then(during) : null;
  const result = await wrk(slugsFile, running ? null : SECONDS, running ?? undefined);
  if (running) flood = await running;
  const elapsedUs = (performance.now() - started) * 1000;
  const after = cpuUse(pid);
  const window: Window = {
    wrk: result,
    main: (after.main - before.main) / elapsedUs,
    other: (after.other + after.worker - before.other - before.worker) / elapsedUs,
  };
  return { window, flood };
}

async function run(root: string): Promise<{ quiet: Window; flooded: Window; flood: Flood }> {
  const dir = mkdtempSync(join(tmpdir(), 'slink-signin-bench-'));
  const dbPath = join(dir, 'slink.db');
  const slugsFile = join(dir, 'slugs.txt');
  await seed(dbPath, slugsFile);
  const server = Bun.spawn([process.execPath, 'run', join(root, 'src', 'index.ts'), 'serve'], {
    cwd: dir,
    env: {
      ...(process.env as Record<string, string>),
      SLINK_DB: dbPath,
      SLINK_PORT: String(PORT),
      SLINK_HOSTNAME: '127.0.0.1',
      SLINK_TRUST_PROXY: '1',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  try {
    await waitForRedirect(readFileSync(slugsFile, 'utf8').split('\n')[0]!);
    await wrk(slugsFile, 2);
    const quiet = await measure(server.pid, slugsFile);
    const flooded = await measure(server.pid, slugsFile, flood);
    return { quiet: quiet.window, flooded: flooded.window, flood: flooded.flood! };
  } finally {
    server.kill('SIGTERM');
    await server.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

const pct = (share: number) => `${Math.round(share * 100)}%`;

function describe(label: string, r: Awaited<ReturnType<typeof run>>): string {
  const line = ({ wrk: w, main, other }: Window) =>
    `${Math.round(w.requests / (w.duration_us / 1e6)).toLocaleString('en-US')} req/s, p50 ${ms(w.p50_us)}, p99 ${ms(w.p99_us)}, max ${ms(w.max_us)}${w.timeouts + w.status_errors > 0 ? `, ${w.timeouts} timeouts, ${w.status_errors} bad statuses` : ''}; server CPU: main thread ${pct(main)}, other threads ${pct(other)} of a core`;
  const answers = Object.entries(r.flood.statuses)
    .map(([status, n]) => `${n.toLocaleString('en-US')} × ${status}`)
    .join(', ');
  return [
    `${label}`,
    `  redirects alone (${SECONDS} s):     ${line(r.quiet)}`,
    `  redirects during the flood: ${line(r.flooded)}`,
    `  flood: ${REQUESTS.toLocaleString('en-US')} sign-ins in ${(r.flood.ms / 1000).toFixed(1)} s: ${answers}`,
  ].join('\n');
}

const servers: [string, string][] = values.compare
  ? [
      ['compared', values.compare],
      ['this tree', ROOT],
    ]
  : [['this tree', ROOT]];
console.log(
  `sign-in flood: ${LINKS.toLocaleString('en-US')} links, wrk -t2 -c${WRK_CONNECTIONS} for ${SECONDS} s alone, then for as long as ${REQUESTS.toLocaleString('en-US')} wrong sign-ins take over ${FLOOD_CONNECTIONS} connections; ${navigator.hardwareConcurrency} cores`,
);
for (let i = 1; i <= RUNS; i++) {
  for (const [label, root] of servers) console.log(describe(`run ${i}, ${label} (${root})`, await run(root)));
}
