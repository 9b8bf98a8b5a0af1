/**
 * Live event streams under load (docs/performance.md, "Live events"): the real dist/slink on a
 * database seeded with links, redirect throughput and p99 under wrk alternating with no stream
 * open, with one stream open and with STREAMS open (GET /api/v1/events over 40 read keys of 20
 * accounts), in one run. One stream is the baseline of the streams' own cost: while any stream is
 * open, every click batch records its `clicks` event in the outbox (the cost webhooks pay too,
 * docs/performance.md "Webhooks"), however many streams read it;
 * by default five sixths follow one link each (`?link=`, as the dashboard's link page does) and
 * read it, the rest never read a byte (their server drops them once they fall 1 MB behind). The server's RSS is read
 * after each run; then the stalled streams read what was left for them, to count those the
 * server dropped (their last event a `gap`).
 *
 *   bun run bench:events [-- --seconds 10 --links 10000 --rounds 3 --streams 200 --mix 0,5,1 --skip-build]
 *                        [--binary path/to/another/slink]
 *
 * `--mix a,l,s`: the parts of the streams that follow every event (`a`), one link (`l`), none (`s`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createAccount } from '../../src/modules/auth/accounts';
import { createApiKey } from '../../src/modules/auth/keys';
import { cpuUse } from './cpu-use';
import { benchDeps, seedLinks } from './seed-links';
import { buildBinary, ensureWrk, int, median, runWrk, waitForStatus } from './wrk';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    links: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '3' },
    streams: { type: 'string', default: '200' },
    /** How the streams divide (parts of the whole): all events, `?link=`, never reading. */
    mix: { type: 'string', default: '0,5,1' },
    'skip-build': { type: 'boolean', default: false },
    /** Another build to measure (an earlier release), instead of dist/slink; implies --skip-build. */
    binary: { type: 'string' },
  },
});
const SECONDS = Number(values.seconds);
const LINKS = Number(values.links);
const ROUNDS = Number(values.rounds);
const STREAMS = Number(values.streams);
const MIX = values.mix.split(',').map(Number) as [number, number, number];
const CONNECTIONS = 64;
const ACCOUNTS = 20;
const KEYS_PER_ACCOUNT = 2;
const ROOT = join(import.meta.dir, '..', '..');
const BINARY = values.binary ?? join(ROOT, 'dist', 'slink');
const PORT = 18_341;

type Kind = 'all' | 'link' | 'stalled';

interface OpenStream {
  kind: Kind;
  socket: Socket;
  bytes: number;
  ended: boolean;
  /** A stalled stream's tail, read at the end: whether its server dropped it with a gap. */
  tail: string;
}

/** Opens one stream on a raw socket; resolves once its status line came (200 or not). */
function openStream(key: string, kind: Kind, linkId: string): Promise<OpenStream> {
  return new Promise((resolve, reject) => {
    const socket = connect(PORT, '127.0.0.1');
    const stream: OpenStream = { kind, socket, bytes: 0, ended: false, tail: '' };
    const query = kind === 'link' ? `?link=${linkId}` : '';
    socket.once('connect', () =>
      socket.write(
        `GET /api/v1/events${query} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nAccept: text/event-stream\r\n\r\n`,
      ),
    );
    socket.once('data', (chunk: Buffer) => {
      const status = chunk.toString('latin1', 0, 12);
      if (status !== 'HTTP/1.1 200')
        return reject(new Error(`a stream was refused: ${chunk.toString().slice(0, 300)}`));
      // A stalled reader reads nothing more: what the server sends piles up on its side.
      if (kind === 'stalled') socket.pause();
      else socket.on('data', (more: Buffer) => (stream.bytes += more.length));
      resolve(stream);
    });
    socket.on('close', () => (stream.ended = true));
    socket.on('error', () => (stream.ended = true));
  });
}

/** Reads what the stalled streams hold until each ends (at most 10 s); answers how many ended with a gap. */
async function readTails(stalled: OpenStream[]): Promise<number> {
  await Promise.all(
    stalled.map(
      (s) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, 10_000);
          s.socket.on('data', (chunk: Buffer) => {
            s.tail = (s.tail + chunk.toString('latin1')).slice(-300);
            // The end of the chunked body: the server closed the stream (the connection stays).
            if (s.tail.endsWith('0\r\n\r\n')) {
              clearTimeout(timer);
              resolve();
            }
          });
          s.socket.once('close', () => {
            clearTimeout(timer);
            resolve();
          });
          s.socket.resume();
        }),
    ),
  );
  return stalled.filter((s) => s.tail.includes('event: gap')).length;
}

function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

ensureWrk();
const dir = mkdtempSync(join(tmpdir(), 'slink-bench-events-'));
let server: Bun.Subprocess | null = null;
try {
  if (!values['skip-build'] && values.binary === undefined) buildBinary(ROOT);
  const db = join(dir, 'events.db');
  const deps = benchDeps(db);
  const slugs = await seedLinks(deps, LINKS, (i) => ({ destination: `https://www.example.org/articles/${i}` }));
  const keys: string[] = [];
  for (let a = 0; a < ACCOUNTS; a++) {
    const account = await createAccount(deps, { email: `reader${a}@example.com`, password: 'correct horse battery' });
    for (let k = 0; k < KEYS_PER_ACCOUNT; k++)
      keys.push((await createApiKey(deps, { accountId: account.id, scope: 'read' })).key);
  }
  await deps.stores.close();
  const slugsFile = join(dir, 'slugs.txt');
  writeFileSync(slugsFile, `${slugs.join('\n')}\n`);
  console.log(`seeded ${int(LINKS)} links, ${keys.length} read keys of ${ACCOUNTS} accounts`);

  server = Bun.spawn([BINARY], {
    env: {
      ...(process.env as Record<string, string>),
      SLINK_DB: db,
      SLINK_PORT: String(PORT),
      SLINK_HOSTNAME: '127.0.0.1',
      SLINK_TRUST_PROXY: '1',
      SLINK_RATE_LIMIT: '100000',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  await waitForStatus(`http://127.0.0.1:${PORT}/healthz`, 200);
  const listed = (await (
    await fetch(`http://127.0.0.1:${PORT}/api/v1/links?limit=100`, { headers: { authorization: `Bearer ${keys[0]}` } })
  ).json()) as { items: { id: string }[] };
  const linkIds = listed.items.map((l) => l.id);

  const share = MIX[0] + MIX[1] + MIX[2];
  const kindOf = (i: number): Kind => (i % share < MIX[0] ? 'all' : i % share < MIX[0] + MIX[1] ? 'link' : 'stalled');
  type Side = 'none' | 'one' | 'streams';
  const openAll = async (count: number) => {
    const streams: OpenStream[] = [];
    // Five streams per key, the keys of one account used in turn.
    for (let i = 0; i < count; i++)
      streams.push(await openStream(keys[Math.floor(i / 5) % keys.length]!, kindOf(i), linkIds[i % linkIds.length]!));
    return streams;
  };

  const rates = { none: [] as number[], one: [] as number[], streams: [] as number[] };
  const p99 = { none: [] as number[], one: [] as number[], streams: [] as number[] };
  const rss = { none: [] as number[], one: [] as number[], streams: [] as number[] };
  // CPU of the server's threads and of this process (the streams' readers) per 1,000 redirects.
  const serverCpu = { none: [] as number[], one: [] as number[], streams: [] as number[] };
  const readerCpu = { none: [] as number[], one: [] as number[], streams: [] as number[] };
  const dropped: number[] = [];
  const readMb: number[] = [];
  for (let round = -1; round < ROUNDS; round++)
    for (const side of ['none', 'one', 'streams'] as Side[]) {
      const streams = await openAll(side === 'streams' ? STREAMS : side === 'one' ? 1 : 0);
      if (streams.length > 0) await Bun.sleep(1000);
      const cpuBefore = cpuUse(server.pid);
      const ownBefore = process.cpuUsage();
      const { result } = await runWrk({
        port: PORT,
        connections: CONNECTIONS,
        seconds: round < 0 ? 3 : SECONDS,
        slugsFile,
        outFile: join(dir, `wrk-${side}-${round}.json`),
      });
      if (result.status_errors > 0 || result.timeouts > 0)
        console.log(`  ! ${side}: ${result.status_errors} non-3xx answers, ${result.timeouts} timeouts`);
      // The run's last clicks are written and sent out.
      await Bun.sleep(2000);
      const cpuAfter = cpuUse(server.pid);
      const own = process.cpuUsage(ownBefore);
      const memory = rssMb(server.pid);
      const stalled = streams.filter((s) => s.kind === 'stalled');
      const droppedNow = await readTails(stalled);
      for (const s of streams) s.socket.destroy();
      if (round < 0) continue;
      const rps = result.requests / (result.duration_us / 1e6);
      rates[side].push(rps);
      p99[side].push(result.p99_us / 1000);
      rss[side].push(memory);
      const perK = (us: number) => us / result.requests;
      serverCpu[side].push(
        perK(cpuAfter.main + cpuAfter.worker + cpuAfter.other - cpuBefore.main - cpuBefore.worker - cpuBefore.other),
      );
      readerCpu[side].push(perK(own.user + own.system));
      let note = '';
      if (side === 'streams') {
        dropped.push(droppedNow);
        readMb.push(streams.reduce((sum, s) => sum + s.bytes, 0) / 1e6);
        note = `, ${dropped.at(-1)} of ${stalled.length} stalled streams dropped, ${readMb.at(-1)!.toFixed(0)} MB read by the others`;
      }
      console.log(
        `  ${side} run ${round + 1}: ${int(rps)} req/s, p99 ${(result.p99_us / 1000).toFixed(1)} ms, RSS ${int(memory)} MB, CPU per 1,000 redirects: server ${serverCpu[side].at(-1)!.toFixed(1)} ms, readers ${readerCpu[side].at(-1)!.toFixed(1)} ms${note}`,
      );
      await Bun.sleep(1000);
    }

  const none = median(rates.none);
  const one = median(rates.one);
  const withStreams = median(rates.streams);
  const kinds = (k: Kind) => Array.from({ length: STREAMS }, (_, i) => kindOf(i)).filter((x) => x === k).length;
  const lines = [
    `| ${int(LINKS)} links, wrk ${CONNECTIONS} connections, ${SECONDS} s x ${ROUNDS} | req/s (median) | / none | / one stream | p99 (median) | server RSS (median) | CPU per 1,000 redirects: server, readers (median) |`,
    '|---|---|---|---|---|---|---|',
    `| no live stream | ${int(none)} | 1.00 | - | ${median(p99.none).toFixed(1)} ms | ${int(median(rss.none))} MB | ${median(serverCpu.none).toFixed(1)} ms, - |`,
    `| one live stream (\`?link=\`) | ${int(one)} | ${(one / none).toFixed(3)} | 1.00 | ${median(p99.one).toFixed(1)} ms | ${int(median(rss.one))} MB | ${median(serverCpu.one).toFixed(1)} ms, ${median(readerCpu.one).toFixed(1)} ms |`,
    `| ${STREAMS} live streams: ${kinds('all')} all events, ${kinds('link')} \`?link=\`, ${kinds('stalled')} never reading | ${int(withStreams)} | ${(withStreams / none).toFixed(3)} | ${(withStreams / one).toFixed(3)} | ${median(p99.streams).toFixed(1)} ms | ${int(median(rss.streams))} MB | ${median(serverCpu.streams).toFixed(1)} ms, ${median(readerCpu.streams).toFixed(1)} ms |`,
    '',
    `Stalled streams dropped per run: ${dropped.join(', ')}; MB read by the reading streams per run: ${readMb.map((m) => m.toFixed(0)).join(', ')}`,
  ];
  console.log(`\n${lines.join('\n')}`);
} finally {
  if (server !== null) {
    server.kill('SIGTERM');
    await server.exited;
  }
  rmSync(dir, { recursive: true, force: true });
}
