/**
 * HAProxy (Debian's `haproxy` package) in front of several Slink nodes, as an operator would put
 * it: its configuration written to a folder, run in the foreground (`haproxy -f cfg -db`) as a
 * child process, its servers' states read from its stats page. For the multi-node tests
 * (cluster.ts) and `bun run bench:cluster`.
 *
 * The configuration is the one the contract's "Several nodes" section asks a balancer for:
 * - round robin;
 * - health checks on /healthz that take out a process that is gone but keep a node whose
 *   database is down: while PostgreSQL is unreachable a node answers /healthz 503 and keeps
 *   answering redirects from memory, so 503 counts as alive;
 * - a request that meets a node stopping or dying (connection refused, closed without an answer,
 *   no answer in time) is sent again to another node, so that costs a client nothing.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Subprocess } from 'bun';

export interface Upstream {
  /** The server's name in HAProxy: its stats, and the X-Served-By header of what it answered. */
  name: string;
  port: number;
}

export interface BalancerOptions {
  /** Where the configuration is written. */
  dir: string;
  port: number;
  statsPort: number;
  servers: readonly Upstream[];
  /** Health check interval (default 100 ms: tests want a dead node out quickly). */
  checkMs?: number;
  /** Adds `X-Served-By: <server>` to every answer (tests; the benchmark leaves it out). */
  servedBy?: boolean;
}

/** The HAProxy configuration for `options`. */
export function haproxyConfig(options: BalancerOptions): string {
  const check = options.checkMs ?? 100;
  return [
    'global',
    '  maxconn 4096',
    // One thread: the box has two cores and the nodes need them more than the balancer does.
    '  nbthread 1',
    'defaults',
    '  mode http',
    '  timeout connect 1s',
    '  timeout client 30s',
    '  timeout server 5s',
    '  timeout http-keep-alive 30s',
    `  timeout check ${Math.max(check * 5, 500)}ms`,
    // Up to three more tries, each on another server (redispatch every retry), when a node refuses
    // the connection, closes it without an answer (a stop, a kill) or does not answer in time.
    '  retries 3',
    '  option redispatch 1',
    '  retry-on conn-failure empty-response response-timeout',
    'frontend slink',
    `  bind 127.0.0.1:${options.port}`,
    '  default_backend nodes',
    'backend nodes',
    '  balance roundrobin',
    '  option forwardfor',
    // A request that may have reached a node is sent again only if it changes nothing: an API
    // write is never made twice (a refused connection is still tried elsewhere).
    '  http-request disable-l7-retry unless METH_GET',
    '  option httpchk GET /healthz',
    // 503 is a node whose database is out of reach: alive, redirecting from memory.
    '  http-check expect rstatus ^(200|503)$',
    `  default-server check inter ${check}ms fastinter ${check}ms downinter ${check}ms rise 2 fall 2`,
    ...(options.servedBy ? ['  http-response set-header X-Served-By %s'] : []),
    ...options.servers.map((s) => `  server ${s.name} 127.0.0.1:${s.port}`),
    'listen stats',
    `  bind 127.0.0.1:${options.statsPort}`,
    '  stats enable',
    '  stats uri /',
    '',
  ].join('\n');
}

/** The haproxy executable: on PATH, or where Debian puts it (/usr/sbin is not on every user's PATH). */
export function haproxyBin(): string {
  const found = Bun.which('haproxy') ?? Bun.which('haproxy', { PATH: '/usr/sbin:/usr/local/sbin' });
  if (!found) throw new Error('haproxy is not installed: run scripts/test-deps.sh (Debian package haproxy)');
  return found;
}

/** A server's state on the stats page: UP, DOWN, or a transition such as "UP 1/2", "DOWN 1/2". */
export type ServerState = string;

/** A server's line of the stats page, by column name (status, wretr, wredis, hrsp_5xx, ...). */
export type ServerStats = Record<string, string>;

export interface Balancer {
  base: string;
  proc: Subprocess<'ignore', 'pipe', 'pipe'>;
  /** Each server's line of the stats page, by name. */
  stats(): Promise<Map<string, ServerStats>>;
  /** Each server's state, by name. */
  states(): Promise<Map<string, ServerState>>;
  /** Waits until each named server is in the given state (UP or DOWN, fully). */
  waitStates(want: Record<string, 'UP' | 'DOWN'>, timeoutMs?: number): Promise<void>;
  /** What HAProxy wrote (warnings, alerts). */
  output(): string;
  stop(): Promise<void>;
}

export async function startBalancer(options: BalancerOptions): Promise<Balancer> {
  const cfg = join(options.dir, 'haproxy.cfg');
  writeFileSync(cfg, haproxyConfig(options));
  const proc = Bun.spawn([haproxyBin(), '-f', cfg, '-db'], { stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
  let written = '';
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) written += decoder.decode(chunk, { stream: true });
  };
  void collect(proc.stdout);
  void collect(proc.stderr);
  const stats = `http://127.0.0.1:${options.statsPort}/;csv`;
  const serverStats = async (): Promise<Map<string, ServerStats>> => {
    const csv = await (await fetch(stats, { signal: AbortSignal.timeout(2_000) })).text();
    const [header, ...rows] = csv.replace(/^# /, '').trim().split('\n');
    const columns = header!.split(',');
    const out = new Map<string, ServerStats>();
    for (const row of rows) {
      const line = Object.fromEntries(row.split(',').map((cell, i) => [columns[i]!, cell]));
      if (line.pxname === 'nodes' && line.svname !== 'BACKEND') out.set(line.svname!, line);
    }
    return out;
  };
  const states = async (): Promise<Map<string, ServerState>> =>
    new Map([...(await serverStats())].map(([name, line]) => [name, line.status!]));
  const balancer: Balancer = {
    base: `http://127.0.0.1:${options.port}`,
    proc,
    stats: serverStats,
    states,
    async waitStates(want, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      let seen = new Map<string, ServerState>();
      for (;;) {
        if (proc.exitCode !== null) throw new Error(`haproxy exited (${proc.exitCode}):\n${written}`);
        try {
          seen = await states();
          if (Object.entries(want).every(([name, state]) => seen.get(name) === state)) return;
        } catch {
          // not listening yet
        }
        if (Date.now() > deadline)
          throw new Error(
            `haproxy servers not ${JSON.stringify(want)} within ${timeoutMs} ms: ${JSON.stringify([...seen])}\n${written}`,
          );
        await Bun.sleep(25);
      }
    },
    output: () => written,
    async stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      await proc.exited;
    },
  };
  // Listening once the stats page answers.
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`haproxy exited (${proc.exitCode}) at start:\n${written}`);
    try {
      await states();
      return balancer;
    } catch {
      if (Date.now() > deadline) {
        proc.kill('SIGKILL');
        throw new Error(`haproxy did not start within 10 s:\n${written}`);
      }
      await Bun.sleep(20);
    }
  }
}
