/**
 * The multi-node topology, for real, on loopback: the tests' PostgreSQL cluster (postgres.ts,
 * a fresh database per cluster), N `slink serve` processes on it (`bun src/index.ts serve`, each
 * with its SLINK_NODE_ID, port and SLINK_DB folder, for its spill file), and HAProxy in front
 * (haproxy.ts) adding an X-Served-By header. A superuser's write key is made with the CLI.
 *
 *   const cluster = await startCluster({ nodes: 3 });
 *   const link = await cluster.createLink({ destination: 'https://example.com/' });
 *   await cluster.waitKnown(link.slug);           // every node's own port answers it
 *   const load = startLoad(`${cluster.balancer.base}/${link.slug}`, { concurrency: 8 }); // load.ts
 *   await cluster.killNode('n2'); ...
 *   await waitClicks(cluster, link.id, n);        // cluster-clicks.ts: counters and export rows
 *   await cluster.close();                        // in afterAll
 *
 * For what every node must see: `apiAt(id, ...)` and `node(id).base` reach one node past the
 * balancer, `waitEveryNode(probe)` polls each until it holds (and says how long each took),
 * `cli([...])` runs the operator CLI on the cluster's database (`key revoke`), and load.ts's
 * `burst(url | (i) => url, n, concurrency)` fires exactly n requests, spread as it is told.
 *
 * A node learns of links at its start (and of links written through other nodes by the change
 * feed, where there is one): `startCluster({ started: 1 })` starts only n1, so that links made
 * then are in every other node's memory from its start (`startAll()`).
 */
import { expect } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { slink, superuserWriteKey, tempDir } from './cli';
import { type Balancer, startBalancer } from './haproxy';
import { freshPostgresUrl } from './postgres';
import { BUN, cleanEnv, freePort, type RunningProcess, type RunResult, start, waitHealthy } from './proc';

export interface ClusterOptions {
  /** How many nodes (default 3), named n1, n2, ... */
  nodes?: number;
  /** How many of them start now, in order (default all); startAll() starts the rest. */
  started?: number;
  /** SLINK_FLUSH_MS of every node (default 200). */
  flushMs?: number;
  /** More environment for every node (SLINK_RATE_LIMIT, SLINK_METRICS_TOKEN, ...). */
  env?: Record<string, string>;
}

export interface ClusterNode {
  readonly id: string;
  readonly port: number;
  /** http://127.0.0.1:<its own port>, past the balancer. */
  readonly base: string;
  /** Its SLINK_DB (the spill file sits beside it). */
  readonly db: string;
  /** The running process, or null while it is stopped. */
  server: RunningProcess | null;
}

export interface Link {
  id: string;
  slug: string;
  destination: string;
  [field: string]: unknown;
}

/**
 * A port below Linux's ephemeral range (32768-60999): HAProxy checks a stopped node's port every
 * interval, and a connect from an ephemeral port to a free port in that range can, by TCP
 * simultaneous open, connect to itself and hold the port.
 */
function lowFreePort(): number {
  for (let i = 0; i < 100; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    try {
      Bun.serve({ port, hostname: '127.0.0.1', fetch: () => new Response('') }).stop(true);
      return port;
    } catch {
      // taken
    }
  }
  throw new Error('no free port below 32000');
}

export class Cluster {
  readonly nodes: ClusterNode[];
  /** Everything each node logged, every run of it, for failure messages. */
  private readonly logs = new Map<string, string[]>();

  constructor(
    readonly url: string,
    readonly key: string,
    readonly balancer: Balancer,
    nodes: ClusterNode[],
    private readonly env: Record<string, string>,
    /** The CLI's SLINK_DB (on PostgreSQL only its spill-file folder matters). */
    private readonly cliDb: string,
  ) {
    this.nodes = nodes;
  }

  node(id: string): ClusterNode {
    const node = this.nodes.find((n) => n.id === id);
    if (!node) throw new Error(`no node ${id}`);
    return node;
  }

  /** The running nodes' ids. */
  running(): string[] {
    return this.nodes.filter((n) => n.server !== null).map((n) => n.id);
  }

  /** Starts a stopped node, waits for its /healthz 200 and for HAProxy to send it requests again. */
  async startNode(id: string): Promise<void> {
    const node = this.node(id);
    if (node.server) throw new Error(`${id} is running`);
    node.server = start([BUN, 'run', 'src/index.ts', 'serve'], node.port, {
      env: cleanEnv({
        ...this.env,
        SLINK_NODE_ID: id,
        SLINK_PORT: String(node.port),
        SLINK_DB: node.db,
      }),
    });
    await waitHealthy(node.server, 30_000);
    await this.balancer.waitStates({ [id]: 'UP' });
  }

  /** Starts every node not running, in parallel. */
  async startAll(): Promise<void> {
    await Promise.all(this.nodes.filter((n) => n.server === null).map((n) => this.startNode(n.id)));
  }

  /** SIGTERM; answers the exit code once it has exited (its buffered clicks written). */
  async stopNode(id: string): Promise<number> {
    const node = this.node(id);
    if (!node.server) throw new Error(`${id} is not running`);
    const code = await node.server.stop(30_000);
    await this.keepLog(node);
    return code;
  }

  /** SIGKILL (kill -9): its buffered clicks die with it. */
  async killNode(id: string): Promise<void> {
    const node = this.node(id);
    if (!node.server) throw new Error(`${id} is not running`);
    node.server.proc.kill('SIGKILL');
    await node.server.proc.exited;
    await this.keepLog(node);
  }

  private async keepLog(node: ClusterNode): Promise<void> {
    const server = node.server!;
    node.server = null;
    const text = `${await server.stdout}${await server.stderr}`;
    this.logs.set(node.id, [...(this.logs.get(node.id) ?? []), text]);
  }

  /** Every node's output so far, for a failure message. */
  output(): string {
    return this.nodes
      .map((n) => {
        const runs = [...(this.logs.get(n.id) ?? []), ...(n.server ? [n.server.output()] : [])];
        return `--- ${n.id}\n${runs.join(`--- ${n.id} (next run)\n`)}`;
      })
      .join('\n');
  }

  /** A request to the API through the balancer, with the superuser's write key (unless `init` sets one). */
  api(path: string, init: RequestInit = {}): Promise<Response> {
    return this.request(this.balancer.base, path, init);
  }

  /** The same, to one node's own port, past the balancer. */
  apiAt(id: string, path: string, init: RequestInit = {}): Promise<Response> {
    return this.request(this.node(id).base, path, init);
  }

  private request(base: string, path: string, init: RequestInit): Promise<Response> {
    return fetch(`${base}/api/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/json', ...init.headers },
    });
  }

  /** The operator CLI (`bun src/index.ts <args>`) on the cluster's database: `key revoke`, `user add`, ... */
  cli(args: string[], opts: { stdin?: string } = {}): Promise<RunResult> {
    return slink(this.cliDb, args, { ...opts, env: { SLINK_DATABASE_URL: this.url } });
  }

  /** POST /links through the balancer; expects 201. */
  async createLink(body: Record<string, unknown>): Promise<Link> {
    const res = await this.api('/links', { method: 'POST', body: JSON.stringify(body) });
    const link = (await res.json()) as any;
    expect({ status: res.status, destination: link.destination }).toEqual({
      status: 201,
      destination: body.destination,
    });
    return link as Link;
  }

  /**
   * Polls `probe` on each running node (or those named) until it holds on every one; answers the
   * ms each took from the call, for tests of what every node sees (a change, a revoked key).
   */
  async waitEveryNode(
    probe: (node: ClusterNode) => Promise<boolean>,
    ids = this.running(),
    timeoutMs = 10_000,
  ): Promise<Record<string, number>> {
    const from = Date.now();
    const took: Record<string, number> = {};
    await Promise.all(
      ids.map(async (id) => {
        const node = this.node(id);
        while (!(await probe(node))) {
          if (Date.now() - from > timeoutMs) throw new Error(`${id}: not within ${timeoutMs} ms\n${this.output()}`);
          await Bun.sleep(20);
        }
        took[id] = Date.now() - from;
      }),
    );
    return took;
  }

  /**
   * Waits until each running node's own port answers `HEAD /<slug>` with a 302, for links made
   * through another node. Each node's 302 records one bot hit: answers how many (one per node).
   */
  async waitKnown(slug: string, ids = this.running(), timeoutMs = 10_000): Promise<number> {
    const answers = async (node: ClusterNode) =>
      (await fetch(`${node.base}/${slug}`, { method: 'HEAD', redirect: 'manual' })).status === 302;
    await this.waitEveryNode(answers, ids, timeoutMs);
    return ids.length;
  }

  /** Stops everything (SIGKILL: the database is thrown away) and the balancer. */
  async close(): Promise<void> {
    for (const n of this.nodes) n.server?.kill();
    await Promise.all(this.nodes.map((n) => n.server?.proc.exited));
    await this.balancer.stop();
  }
}

/** Starts PostgreSQL (a fresh database), the balancer, and the nodes; see ClusterOptions. */
export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const count = options.nodes ?? 3;
  const dir = tempDir();
  const url = await freshPostgresUrl();
  const key = await superuserWriteKey(join(dir, 'cli.db'), { SLINK_DATABASE_URL: url });
  const nodes: ClusterNode[] = Array.from({ length: count }, (_, i) => {
    const id = `n${i + 1}`;
    const port = lowFreePort();
    mkdirSync(join(dir, id));
    return { id, port, base: `http://127.0.0.1:${port}`, db: join(dir, id, 'slink.db'), server: null };
  });
  const balancer = await startBalancer({
    dir,
    port: freePort(),
    statsPort: freePort(),
    servers: nodes.map((n) => ({ name: n.id, port: n.port })),
    servedBy: true,
  });
  const env = {
    SLINK_DATABASE_URL: url,
    SLINK_HOSTNAME: '127.0.0.1',
    SLINK_FLUSH_MS: String(options.flushMs ?? 200),
    // Short links name the balancer, whichever node made them; it appends the client's address.
    SLINK_SHORT_HOST: balancer.base,
    SLINK_TRUST_PROXY: '1',
    ...options.env,
  };
  const cluster = new Cluster(url, key, balancer, nodes, env, join(dir, 'cli.db'));
  try {
    await Promise.all(nodes.slice(0, options.started ?? count).map((n) => cluster.startNode(n.id)));
  } catch (err) {
    await cluster.close();
    throw err;
  }
  return cluster;
}
