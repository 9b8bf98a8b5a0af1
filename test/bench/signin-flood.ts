/**
 * Sign-in flood against redirects (docs/performance.md, "Sign-in flood"): how much a flood of
 * wrong passwords slows the redirects of the same server.
 *
 * Each run seeds a fresh database (10,000 links, one account), starts the server from source,
 * warms it up with wrk (test/bench/redirect.lua, the redirect benchmark's mixed traffic), then
 * measures redirects with wrk in three windows: alone for a few seconds; while a flood this
 * process sends (sign-ins with wrong passwords for 50 emails from one client address, over 4
 * connections) has its passwords checked, until the address is refused; and while the rest of
 * the 10,000 sign-ins are refused. Each window starts half a second before its part of the flood
 * and ends with it. It prints the redirect p50, p99 and max of each, the server's CPU (main
 * thread; other threads: the click writer, the garbage collector, argon2id) and the flood's
 * answers: 401 ones had their password checked, 429 ones were refused. Last, what one refused
 * sign-in costs the server in CPU, measured in process without the network.
 *
 * With `--compare DIR` (another checkout of Slink, its dependencies installed and its dashboard
 * built) every round runs that server and then this one, alternating, under the same load.
 *
 *   bun run bench:signin [-- --runs 3 --seconds 8 --requests 10000 --connections 4 --wrk-connections 8 --compare DIR]
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
    'wrk-connections': { type: 'string', default: '8' },
    compare: { type: 'string' },
    /** Internal: measure the CPU of one refused sign-in in this process, for the tree at this root. */
    'refusal-cost': { type: 'string' },
  },
});
const RUNS = Number(values.runs);
const SECONDS = Number(values.seconds);
const REQUESTS = Number(values.requests);
const FLOOD_CONNECTIONS = Number(values.connections);
// Few connections, one wrk thread: the redirects' p99 then shows how long the event loop was kept
// from them, rather than the queue that 64 connections build on a saturated 2-core box.
const WRK_CONNECTIONS = Number(values['wrk-connections']);
const WRK_THREADS = WRK_CONNECTIONS >= 16 ? 2 : 1;
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

async function seed(dbPath: string, slugsFile: string): Promise<void> {
  const deps = benchDeps(dbPath);
  const slugs = await seedLinks(deps, LINKS, (i) => ({ destination: `https://www.example.org/articles/${i}` }));
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
      `-t${WRK_THREADS}`,
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

/**
 * Sign-ins with wrong passwords over FLOOD_CONNECTIONS connections, from one address, numbered
 * from `from` up to `to` (exclusive); with `untilRefused` each connection stops at its first 429
 * (the address has reached its limit: every password check the flood gets is behind it).
 */
async function flood(from: number, to: number, untilRefused: boolean): Promise<Flood> {
  const statuses: Record<string, number> = {};
  let next = from;
  let refused = false;
  const started = performance.now();
  const worker = async () => {
    for (let i = next++; i < to && !(untilRefused && refused); i = next++) {
      const res = await fetch(`http://127.0.0.1:${PORT}/api/app/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': FLOOD_ADDRESS },
        body: JSON.stringify({ email: `guess${i % 50}@example.com`, password: `wrong password ${i}` }),
      });
      await res.arrayBuffer();
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      if (res.status === 429) refused = true;
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
  flood: Flood | null;
}

/** Redirect load and the server's CPU while `during` runs (from half a second into wrk), or for SECONDS. */
async function measure(pid: number, slugsFile: string, during?: () => Promise<Flood>) {
  const before = cpuUse(pid);
  const started = performance.now();
  const running = during ? Bun.sleep(500).then(during) : null;
  const result = await wrk(slugsFile, running ? null : SECONDS, running ?? undefined);
  const flood = running ? await running : null;
  const elapsedUs = (performance.now() - started) * 1000;
  const after = cpuUse(pid);
  const window: Window = {
    wrk: result,
    main: (after.main - before.main) / elapsedUs,
    other: (after.other + after.worker - before.other - before.worker) / elapsedUs,
    flood,
  };
  return window;
}

interface Run {
  quiet: Window;
  /** While the flood's first sign-ins are checked, until the address is refused. */
  checking: Window;
  /** While the rest of the flood is refused. */
  refused: Window;
}

async function run(root: string): Promise<Run> {
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
    let sent = 0;
    const checking = await measure(server.pid, slugsFile, async () => {
      const f = await flood(0, REQUESTS, true);
      sent = Object.values(f.statuses).reduce((a, b) => a + b, 0);
      return f;
    });
    const refused = await measure(server.pid, slugsFile, () => flood(sent, REQUESTS, false));
    return { quiet, checking, refused };
  } finally {
    server.kill('SIGTERM');
    await server.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

const pct = (share: number) => `${Math.round(share * 100)}%`;

function describe(label: string, r: Run): string {
  const line = ({ wrk: w, main, other, flood: f }: Window) => {
    const rate = Math.round(w.requests / (w.duration_us / 1e6)).toLocaleString('en-US');
    const errors = w.timeouts + w.status_errors > 0 ? `, ${w.timeouts} timeouts, ${w.status_errors} bad statuses` : '';
    const answers = f
      ? `; ${(f.ms / 1000).toFixed(1)} s of sign-ins: ${Object.entries(f.statuses)
          .map(([status, n]) => `${n.toLocaleString('en-US')} × ${status}`)
          .join(', ')}`
      : '';
    return `p50 ${ms(w.p50_us)}, p99 ${ms(w.p99_us)}, max ${ms(w.max_us)}, ${rate} req/s${errors}; server CPU: main thread ${pct(main)}, other threads ${pct(other)}${answers}`;
  };
  return [
    label,
    `  redirects alone:                 ${line(r.quiet)}`,
    `  while passwords are checked:     ${line(r.checking)}`,
    `  while the rest is refused:       ${line(r.refused)}`,
  ].join('\n');
}

/**
 * The CPU one refused sign-in costs the server, in process (no network, no load generator): the
 * real app of the tree at `root`, its address past its limit, 5 batches of 5,000 refused
 * sign-ins through app.handle; the median batch, per sign-in.
 */
async function refusalCost(root: string): Promise<void> {
  const { makeTestApp } = await import(join(root, 'test/helpers/app'));
  const t = await makeTestApp({ SLINK_TRUST_PROXY: '1' });
  t.deps.verifyPassword = async () => false;
  const signIn = (i: number) =>
    t.app.handle(
      new Request('http://localhost/api/app/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': FLOOD_ADDRESS },
        body: JSON.stringify({ email: `guess${i % 50}@example.com`, password: `wrong password ${i}` }),
      }),
    );
  for (let i = 0; i < 30; i++) await (await signIn(i)).arrayBuffer();
  const batches: number[] = [];
  for (let b = 0; b < 5; b++) {
    const before = process.cpuUsage();
    for (let i = 0; i < 5_000; i++) {
      const res = await signIn(i);
      await res.arrayBuffer();
      if (res.status !== 429) throw new Error(`expected 429, got ${res.status}`);
    }
    const used = process.cpuUsage(before);
    batches.push((used.user + used.system) / 5_000);
  }
  const median = [...batches].sort((a, b) => a - b)[2]!;
  console.log(
    `  ${root}: ${median.toFixed(1)} us of CPU per refused sign-in (in process, median of 5 batches of 5,000)`,
  );
  t.close();
}

async function refusalCostIn(root: string): Promise<void> {
  const proc = Bun.spawn([process.execPath, import.meta.path, '--refusal-cost', root], {
    stdout: 'inherit',
    stderr: 'inherit',
  });
  if ((await proc.exited) !== 0) throw new Error(`measuring ${root} failed`);
}

if (values['refusal-cost']) {
  await refusalCost(values['refusal-cost']);
  process.exit(0);
}
const servers: [string, string][] = values.compare
  ? [
      ['compared', values.compare],
      ['this tree', ROOT],
    ]
  : [['this tree', ROOT]];
console.log(
  `sign-in flood: ${LINKS.toLocaleString('en-US')} links; redirects under wrk -t${WRK_THREADS} -c${WRK_CONNECTIONS}, alone for ${SECONDS} s, then while ${REQUESTS.toLocaleString('en-US')} wrong sign-ins from one address arrive over ${FLOOD_CONNECTIONS} connections (first until the address is refused, then the rest); ${navigator.hardwareConcurrency} cores`,
);
for (let i = 1; i <= RUNS; i++) {
  for (const [label, root] of servers) console.log(describe(`run ${i}, ${label} (${root})`, await run(root)));
}
console.log('refused sign-ins:');
for (const [, root] of servers) await refusalCostIn(root);
