/**
 * WAL benchmark (docs/operations.md, "The write-ahead log"): how large the -wal file grows under
 * API writes alone (no click arrives), and what redirects wait meanwhile.
 *
 * Starts `bun src/index.ts serve` (of `--root`, default this checkout) on a fresh database with
 * a rate limit no load reaches, then:
 * 1. `--creates` creates and `--updates` updates (PATCH title) through HTTP, 8 at a time: the
 *    -wal and database sizes after them, and again after `--idle` seconds with nothing written;
 * 2. wrk with `--clients` connections for `--seconds` seconds (test/bench/api-writes.lua: half
 *    creates, half updates), the -wal file's size sampled every 50 ms (its peak), and one redirect
 *    every 10 ms on the side (an unknown slug: no click is recorded; its p50, p99 and longest wait); then the sizes after `--idle` seconds.
 * Prints the server's log lines about checkpoints at its stop.
 *
 *   bun run test/bench/wal.ts [-- --root DIR --creates 600 --updates 600 --clients 200 --seconds 30 --idle 15]
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: join(import.meta.dir, '..', '..') },
    creates: { type: 'string', default: '600' },
    updates: { type: 'string', default: '600' },
    clients: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '30' },
    idle: { type: 'string', default: '15' },
  },
});
const ROOT = values.root;
const PORT = 18_311;
const BASE = `http://127.0.0.1:${PORT}`;
const MB = 1024 * 1024;

const dir = mkdtempSync(join(tmpdir(), 'slink-bench-wal-'));
const dbPath = join(dir, 'slink.db');
const env = {
  ...process.env,
  SLINK_DB: dbPath,
  SLINK_PORT: String(PORT),
  SLINK_HOSTNAME: '127.0.0.1',
  SLINK_RATE_LIMIT: '1000000',
};
const size = (path: string) => (existsSync(path) ? statSync(path).size : 0);
const sizes = () => `-wal ${(size(`${dbPath}-wal`) / MB).toFixed(1)} MB, database ${(size(dbPath) / MB).toFixed(1)} MB`;

function cli(args: string[]): string {
  const r = Bun.spawnSync([process.execPath, 'run', 'src/index.ts', ...args], { cwd: ROOT, env, stdout: 'pipe' });
  if (r.exitCode !== 0) throw new Error(`slink ${args.join(' ')} exited ${r.exitCode}: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
}

cli(['user', 'add', 'ops@example.com', '--superuser', '--password', 'correct horse battery']);
const key = cli(['key', 'create', '--user', 'ops@example.com', '--scope', 'write']);
const server = Bun.spawn([process.execPath, 'run', 'src/index.ts', 'serve'], { cwd: ROOT, env, stdout: 'pipe' });
const log = new Response(server.stdout).text();
try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${BASE}/healthz`)).status === 200) break;
    } catch {}
    if (i > 400) throw new Error('the server did not start');
    await Bun.sleep(50);
  }
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  async function pool(n: number, each: (i: number) => Promise<void>): Promise<void> {
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < n) await each(next++);
      }),
    );
  }
  const ids: string[] = [];
  const started = performance.now();
  await pool(Number(values.creates), async (i) => {
    const res = await fetch(`${BASE}/api/v1/links`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ destination: `https://example.com/p/${i}`, title: `link ${i}` }),
    });
    if (res.status !== 201) throw new Error(`create: ${res.status} ${await res.text()}`);
    ids.push(((await res.json()) as { id: string }).id);
  });
  await pool(Number(values.updates), async (i) => {
    const res = await fetch(`${BASE}/api/v1/links/${ids[i % ids.length]}`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ title: `updated ${i}` }),
    });
    if (res.status !== 200) throw new Error(`update: ${res.status} ${await res.text()}`);
  });
  console.log(
    `${values.creates} creates + ${values.updates} updates in ${((performance.now() - started) / 1000).toFixed(1)} s: ${sizes()}`,
  );
  await Bun.sleep(Number(values.idle) * 1000);
  console.log(`  after ${values.idle} s idle: ${sizes()}`);

  const idsFile = join(dir, 'ids.txt');
  writeFileSync(idsFile, `${ids.join('\n')}\n`);
  let peak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, size(`${dbPath}-wal`));
  }, 50);
  const waits: number[] = [];
  let loading = true;
  const redirects = (async () => {
    while (loading) {
      const t = performance.now();
      // An unknown slug: the redirect path's lookup and answer on the event loop, but no click
      // (a click would make the click writer commit, and checkpoint, which this load must not).
      const res = await fetch(`${BASE}/no-such-link`, { redirect: 'manual' });
      await res.arrayBuffer();
      if (res.status !== 404) throw new Error(`redirect: ${res.status}`);
      waits.push(performance.now() - t);
      await Bun.sleep(10);
    }
  })();
  const out = join(dir, 'wrk.json');
  // Not spawnSync: the sampler and the redirects run on this thread meanwhile.
  const wrk = Bun.spawn(
    [
      'wrk',
      '-t2',
      `-c${values.clients}`,
      `-d${values.seconds}s`,
      '--timeout',
      '10s',
      '-s',
      join(import.meta.dir, 'api-writes.lua'),
      BASE,
      '--',
      idsFile,
      key,
    ],
    { env: { ...process.env, WRK_OUT: out }, stdout: 'pipe', stderr: 'pipe' },
  );
  const wrkExit = await wrk.exited;
  loading = false;
  await redirects;
  clearInterval(sampler);
  if (wrkExit !== 0) throw new Error(`wrk: ${await new Response(wrk.stderr).text()}`);
  const w = JSON.parse(readFileSync(out, 'utf8'));
  waits.sort((a, b) => a - b);
  const at = (q: number) => waits[Math.min(waits.length - 1, Math.floor(q * waits.length))]!.toFixed(1);
  console.log(
    `${values.clients} clients for ${values.seconds} s: ${Math.round(w.requests / (w.duration_us / 1e6))} writes/s (p50 ${(w.p50_us / 1000).toFixed(1)} ms, p99 ${(w.p99_us / 1000).toFixed(1)} ms, ${w.status_errors} non-2xx, ${w.timeouts} timeouts)`,
  );
  console.log(`  -wal peak ${(peak / MB).toFixed(1)} MB; at the end ${sizes()}`);
  console.log(
    `  a short-link lookup every 10 ms meanwhile: ${waits.length}, p50 ${at(0.5)} ms, p99 ${at(0.99)} ms, longest ${at(1)} ms`,
  );
  await Bun.sleep(Number(values.idle) * 1000);
  console.log(`  after ${values.idle} s idle: ${sizes()}`);
} finally {
  server.kill('SIGTERM');
  await server.exited;
  for (const line of (await log).split('\n')) if (/checkpoint|stopped/i.test(line)) console.log(`  server: ${line}`);
  rmSync(dir, { recursive: true, force: true });
}
