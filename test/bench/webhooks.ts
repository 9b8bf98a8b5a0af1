/**
 * Webhooks under load (docs/performance.md, "Webhooks"): the real dist/slink twice on two
 * databases seeded with the same links, one with a webhook subscribed to `clicks` whose receiver
 * (in this process) answers 200 at once, in one run:
 *   1. redirect throughput under wrk, alternating without and with the webhook;
 *   2. from click to delivery at a steady 1,000 clicks/s on the webhook's server: each delivered
 *      click's latency is its arrival minus its own `timestamp`; p50 and p99 printed against
 *      SLINK_FLUSH_MS + 2 s.
 *
 * With --answer-mb N the receiver answers every delivery with an N MB body, streamed (a receiver
 * answering at length: the sender reads only the 2 KB it keeps, then closes the connection).
 *
 *   bun run bench:webhooks [-- --seconds 10 --links 10000 --rounds 3 --rate 1000 --answer-mb 0 --skip-build]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { OPERATOR } from '../../src/modules/access/public';
import { createWebhook } from '../../src/modules/webhooks/service';
import { type CpuUse, cpuUse } from './cpu-use';
import { benchDeps, seedLinks } from './seed-links';
import { buildBinary, ensureWrk, int, median, runWrk, waitForStatus } from './wrk';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    links: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '3' },
    rate: { type: 'string', default: '1000' },
    'flush-ms': { type: 'string', default: '1000' },
    'answer-mb': { type: 'string', default: '0' },
    'skip-build': { type: 'boolean', default: false },
  },
});
const SECONDS = Number(values.seconds);
const LINKS = Number(values.links);
const ROUNDS = Number(values.rounds);
const RATE = Number(values.rate);
const FLUSH_MS = Number(values['flush-ms']);
const ANSWER_MB = Number(values['answer-mb']);
const ANSWER_CHUNK = new Uint8Array(64 * 1024).fill(0x78);

/** An answer of ANSWER_MB MB, made as it is read (a reader that stops early stops it). */
function longAnswer(): ReadableStream<Uint8Array> {
  let left = ANSWER_MB * 16;
  return new ReadableStream({
    pull(controller) {
      if (left-- <= 0) controller.close();
      else controller.enqueue(ANSWER_CHUNK);
    },
  });
}
const CONNECTIONS = 64;
const ROOT = join(import.meta.dir, '..', '..');
const BINARY = join(ROOT, 'dist', 'slink');
const PORTS = { plain: 18_331, hooked: 18_332 } as const;
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

// The receiver: answers 200 at once. While throughput is measured it reads the body and counts
// its bytes only (its CPU is the machine's too); for latency it notes each click's.
const latencies: number[] = [];
let deliveries = 0;
let bytesReceived = 0;
let lastDeliveryAt = 0;
let noteLatency = false;
const receiver = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const raw = await req.text();
    const now = Date.now();
    deliveries++;
    bytesReceived += raw.length;
    lastDeliveryAt = now;
    if (noteLatency) {
      const body = JSON.parse(raw) as { type: string; data: { clicks: { timestamp: number }[] } };
      if (body.type === 'clicks') for (const c of body.data.clicks) latencies.push(now - c.timestamp);
    }
    return new Response(ANSWER_MB > 0 ? longAnswer() : null, { status: 200 });
  },
});

/** Until no delivery came for `quietMs`. */
async function drained(quietMs: number): Promise<void> {
  while (Date.now() - Math.max(lastDeliveryAt, 0) < quietMs) await Bun.sleep(100);
}

const quantile = (xs: number[], q: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * q))]!;

ensureWrk();
const dir = mkdtempSync(join(tmpdir(), 'slink-bench-hooks-'));
const procs: Bun.Subprocess[] = [];
try {
  if (!values['skip-build']) buildBinary(ROOT);
  const plainDb = join(dir, 'plain.db');
  const hookedDb = join(dir, 'hooked.db');
  const shape = (i: number) => ({ destination: `https://www.example.org/articles/${i}` });
  const plainDeps = benchDeps(plainDb);
  const slugs = await seedLinks(plainDeps, LINKS, shape);
  await plainDeps.stores.close();
  const hookedDeps = benchDeps(hookedDb);
  await seedLinks(hookedDeps, LINKS, shape, slugs);
  await createWebhook({ ...hookedDeps, config: { ...hookedDeps.config, webhooksAllowPrivate: true } }, OPERATOR, {
    url: `http://127.0.0.1:${receiver.port}/hook`,
    events: ['clicks'],
  });
  await hookedDeps.stores.close();
  console.log(
    `seeded ${int(LINKS)} links twice, a webhook subscribed to clicks on the second${ANSWER_MB > 0 ? `, its receiver answering ${ANSWER_MB} MB` : ''}`,
  );
  const slugsFile = join(dir, 'slugs.txt');
  writeFileSync(slugsFile, `${slugs.join('\n')}\n`);

  const env = (db: string, port: number) => ({
    ...(process.env as Record<string, string>),
    SLINK_DB: db,
    SLINK_PORT: String(port),
    SLINK_HOSTNAME: '127.0.0.1',
    SLINK_TRUST_PROXY: '1',
    SLINK_FLUSH_MS: String(FLUSH_MS),
    SLINK_WEBHOOKS_ALLOW_PRIVATE: '1',
  });
  procs.push(
    Bun.spawn([BINARY], { env: env(plainDb, PORTS.plain), stdout: 'ignore', stderr: 'inherit' }),
    Bun.spawn([BINARY], { env: env(hookedDb, PORTS.hooked), stdout: 'ignore', stderr: 'inherit' }),
  );
  await waitForStatus(`http://127.0.0.1:${PORTS.plain}/healthz`, 200);
  await waitForStatus(`http://127.0.0.1:${PORTS.hooked}/healthz`, 200);
  await Bun.sleep(2000);

  // 1. Throughput.
  const rates: Record<keyof typeof PORTS, number[]> = { plain: [], hooked: [] };
  const pids = { plain: procs[0]!.pid, hooked: procs[1]!.pid };
  // CPU per request of each server's threads (main, Worker, other), summed over the measured runs.
  const cpu: Record<keyof typeof PORTS, CpuUse & { requests: number }> = {
    plain: { main: 0, worker: 0, other: 0, requests: 0 },
    hooked: { main: 0, worker: 0, other: 0, requests: 0 },
  };
  const p99: Record<keyof typeof PORTS, number[]> = { plain: [], hooked: [] };
  for (let round = -1; round < ROUNDS; round++)
    for (const side of ['plain', 'hooked'] as const) {
      const before = cpuUse(pids[side]);
      const { result } = await runWrk({
        port: PORTS[side],
        connections: CONNECTIONS,
        seconds: round < 0 ? 3 : SECONDS,
        slugsFile,
        outFile: join(dir, `wrk-${side}-${round}.json`),
      });
      if (result.status_errors > 0 || result.timeouts > 0)
        console.log(`  ! ${side}: ${result.status_errors} non-3xx answers, ${result.timeouts} timeouts`);
      if (round < 0) continue;
      // A run's flushes end after it: its clicks' writes and deliveries are counted with them.
      await Bun.sleep(FLUSH_MS + 500);
      const after = cpuUse(pids[side]);
      cpu[side].main += after.main - before.main;
      cpu[side].worker += after.worker - before.worker;
      cpu[side].other += after.other - before.other;
      cpu[side].requests += result.requests;
      const rps = result.requests / (result.duration_us / 1e6);
      rates[side].push(rps);
      p99[side].push(result.p99_us / 1000);
      console.log(`  ${side} run ${round + 1}: ${int(rps)} req/s, p99 ${(result.p99_us / 1000).toFixed(1)} ms`);
    }
  await drained(3000);
  console.log(`  the receiver got ${int(deliveries)} deliveries, ${int(bytesReceived / 1e6)} MB`);

  // 2. Click to delivery at a steady rate, human clicks only (each is delivered).
  noteLatency = true;
  const sent = { clicks: 0, failed: 0 };
  const started = Date.now();
  const ticks = (SECONDS * 1000) / 10;
  for (let tick = 0; tick < ticks; tick++) {
    const due = started + tick * 10;
    const wait = due - Date.now();
    if (wait > 0) await Bun.sleep(wait);
    for (let i = 0; i < RATE / 100; i++) {
      const slug = slugs[(tick * 7 + i) % slugs.length]!;
      sent.clicks++;
      void fetch(`http://127.0.0.1:${PORTS.hooked}/${slug}`, {
        redirect: 'manual',
        headers: { 'user-agent': CHROME, 'x-forwarded-for': `81.2.69.${i % 250}` },
      })
        .then((r) => r.arrayBuffer())
        .catch(() => sent.failed++);
    }
  }
  const offered = (sent.clicks / (Date.now() - started)) * 1000;
  await drained(FLUSH_MS + 3000);
  const p50 = quantile(latencies, 0.5);
  const p99Latency = quantile(latencies, 0.99);
  const bound = FLUSH_MS + 2000;

  const plain = median(rates.plain);
  const hooked = median(rates.hooked);
  const perK = (side: keyof typeof PORTS, part: keyof CpuUse) => ((cpu[side][part] / cpu[side].requests) * 1000) / 1000;
  const cpuLine = (side: keyof typeof PORTS) =>
    `main ${perK(side, 'main').toFixed(1)} ms, Worker ${perK(side, 'worker').toFixed(1)} ms, other ${perK(side, 'other').toFixed(1)} ms`;
  const lines = [
    `| ${int(LINKS)} links, wrk ${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} | req/s (median) | / without | p99 (median) |`,
    '|---|---|---|---|',
    `| Slink, no webhook | ${int(plain)} | 1.00 | ${median(p99.plain).toFixed(1)} ms |`,
    `| Slink, a webhook subscribed to clicks | ${int(hooked)} | ${(hooked / plain).toFixed(3)} | ${median(p99.hooked).toFixed(1)} ms |`,
    '',
    `CPU per 1,000 redirects: without ${cpuLine('plain')}; with ${cpuLine('hooked')}`,
    '',
    `| click to delivery, ${int(offered)} clicks/s offered for ${SECONDS} s, SLINK_FLUSH_MS ${FLUSH_MS} | p50 | p99 | max | bound (flush + 2 s) |`,
    '|---|---|---|---|---|',
    `| ${int(latencies.length)} of ${int(sent.clicks)} clicks delivered (${sent.failed} requests failed) | ${int(p50)} ms | ${int(p99Latency)} ms | ${int(Math.max(...latencies))} ms | ${int(bound)} ms: p99 ${p99Latency <= bound ? 'within' : 'BEYOND'} |`,
  ];
  console.log(`\n${lines.join('\n')}`);
} finally {
  for (const p of procs) p.kill('SIGTERM');
  await Promise.all(procs.map((p) => p.exited));
  receiver.stop(true);
  rmSync(dir, { recursive: true, force: true });
}
