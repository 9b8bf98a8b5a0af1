/**
 * bench:stats's export, on either engine: the busy link's clicks streamed as CSV from a fresh
 * `bun src/index.ts serve` process per run (its environment chooses the engine), so its RSS is
 * the server's alone and the client's reading does not share its thread. RSS is sampled every
 * 20 ms from /proc; GET /healthz round trips meanwhile show whether the event loop is held up.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DAY_MS } from '../../src/lib/time';
import { cleanEnv } from '../helpers/proc';
import { pct } from './stats-calls';

export interface Latency {
  p50: number;
  p99: number;
}

export interface ExportRun {
  rate: number;
  bytes: number;
  growth: number;
  before: number;
  peak: number;
  idle: Latency;
  busy: Latency;
}

/** Fresh server processes, one export each: RSS growth is measured from an idle, warmed-up server. */
export const EXPORT_RUNS = 3;

/** A process's resident memory in bytes, from /proc. */
export function rssOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

export const mb = (bytes: number) => bytes / 1024 / 1024;

/**
 * A process's peak resident memory in MiB, read from /proc every `everyMs` from now until
 * `stop()`; `restart()` begins a new peak from the current value (one phase after another).
 */
export function peakRss(pid: number, everyMs: number) {
  const read = () => mb(rssOf(pid));
  let peak = read();
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      peak = Math.max(peak, read());
      await Bun.sleep(everyMs);
    }
  })();
  return {
    peak: () => peak,
    restart: () => {
      peak = read();
    },
    async stop(): Promise<number> {
      sampling = false;
      await sampler;
      return peak;
    },
  };
}
export const ms = (l: Latency) => `${l.p50.toFixed(2)} / ${l.p99.toFixed(2)} ms`;
export const int = (n: number) => Math.round(n).toLocaleString('en');

/**
 * Exports `busy`'s clicks EXPORT_RUNS times, each from a fresh server started with `engineEnv`
 * (SLINK_DB, or SLINK_DATABASE_URL); fails unless every run returns `busyClicks` rows.
 */
export async function measureExport(
  engineEnv: Record<string, string>,
  busy: string,
  busyClicks: number,
): Promise<ExportRun[]> {
  const root = join(import.meta.dir, '../..');
  const entry = join(root, 'src/index.ts');
  const port = 20000 + Math.floor(Math.random() * 20000);
  const serverEnv = cleanEnv({
    ...engineEnv,
    SLINK_PORT: String(port),
    SLINK_HOSTNAME: '127.0.0.1',
    SLINK_RATE_LIMIT: '1000000',
  });
  const cli = (...argv: string[]) => {
    const r = Bun.spawnSync([process.execPath, entry, ...argv], { env: serverEnv, stdout: 'pipe', stderr: 'pipe' });
    if (r.exitCode !== 0) throw new Error(`slink ${argv.join(' ')}: ${r.stderr.toString()}`);
    return r.stdout.toString().trim();
  };
  const email = `export${Date.now()}@example.com`;
  cli('user', 'add', email, '--password', 'benchmark password');
  const key = cli('key', 'create', '--user', email, '--scope', 'read');
  const origin = `http://127.0.0.1:${port}`;
  const get = (path: string) => fetch(`${origin}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });

  /**
   * GET /healthz every 5 ms (light traffic, not a flood that would compete with the export)
   * until `until` resolves, or `count` of them: how long the event loop makes a request wait.
   */
  const probe = async (until: Promise<unknown> | null, count = 200): Promise<Latency> => {
    const times: number[] = [];
    let over = false;
    until?.then(() => (over = true));
    while (until ? !over : times.length < count) {
      const t = performance.now();
      await (await fetch(`${origin}/healthz`)).arrayBuffer();
      times.push(performance.now() - t);
      await Bun.sleep(5);
    }
    return { p50: pct(times, 50), p99: pct(times, 99) };
  };

  const runs: ExportRun[] = [];
  for (let run = 0; run < EXPORT_RUNS; run++) {
    const proc = Bun.spawn([process.execPath, entry, 'serve'], { env: serverEnv, stdout: 'pipe', stderr: 'inherit' });
    for (let i = 0; ; i++) {
      try {
        if ((await fetch(`${origin}/healthz`)).ok) break;
      } catch {}
      if (i > 200) throw new Error('the server did not start');
      await Bun.sleep(50);
    }
    // Warm-up: a small export (the code paths compiled, the export Worker started), then the baseline RSS.
    await (await get(`/links/${busy}/export.csv?range=all&bots=1&from=${Date.now() - DAY_MS}`)).text();
    const idle = await probe(null);
    await Bun.sleep(500);
    const before = rssOf(proc.pid);
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssOf(proc.pid));
    }, 20);
    const t0 = performance.now();
    const res = await get(`/links/${busy}/export.csv?range=all&bots=1`);
    if (res.status !== 200) throw new Error(`export: ${res.status} ${(await res.text()).slice(0, 200)}`);
    let lines = 0;
    let bytes = 0;
    const reading = (async () => {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.byteLength;
        const buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        for (let at = buf.indexOf(10); at !== -1; at = buf.indexOf(10, at + 1)) lines++;
      }
    })();
    // Meanwhile, health checks: the export must not hold up the event loop that serves redirects.
    const busyLoop = await probe(reading);
    await reading;
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    proc.kill('SIGTERM');
    await proc.exited;
    if (lines - 1 !== busyClicks) throw new Error(`export returned ${lines - 1} rows, the link has ${busyClicks}`);
    runs.push({ rate: busyClicks / seconds, bytes, growth: peak - before, before, peak, idle, busy: busyLoop });
  }
  return runs;
}
