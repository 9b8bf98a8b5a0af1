/**
 * PostgreSQL stopped and started again under load, with three nodes behind HAProxy: no node
 * exits, redirects keep answering 302 from memory throughout, every node's /healthz is 503
 * degraded during the outage (and HAProxy keeps them all in rotation: 503 is alive) and 200
 * after, and once the database is back every redirect answered is a stored click.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { type Cluster, startCluster } from '../helpers/cluster';
import { waitClicks } from '../helpers/cluster-clicks';
import { startLoad, tally } from '../helpers/load';
import { startPostgres, stopPostgres } from '../helpers/postgres';
import { waitHealthy } from '../helpers/proc';

let cluster: Cluster | undefined;
let stopped = false;
afterAll(async () => {
  // The other test files of this process use the same PostgreSQL server.
  if (stopped) await startPostgres();
  await cluster?.close();
});

const DESTINATION = 'https://example.com/outage';

/** Polls a node's /healthz until it answers `status`; answers its body. */
async function healthUntil(base: string, status: number): Promise<unknown> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await fetch(`${base}/healthz`);
    const body = await res.json();
    if (res.status === status || Date.now() > deadline) return { status: res.status, body };
    await Bun.sleep(50);
  }
}

describe('PostgreSQL restarted under load', () => {
  test('no node exits, redirects answer 302 throughout, /healthz says so, and nothing is lost', async () => {
    cluster = await startCluster({ nodes: 3, started: 1 });
    const link = await cluster.createLink({ destination: DESTINATION });
    await cluster.startAll();
    const probes = await cluster.waitKnown(link.slug);

    const load = startLoad(`${cluster.balancer.base}/${link.slug}`, { concurrency: 12, pauseMs: 10 });
    await load.more(300);

    await stopPostgres();
    stopped = true;
    const outageFrom = Date.now();
    for (const node of cluster.nodes) {
      expect(await healthUntil(node.base, 503)).toEqual({
        status: 503,
        body: expect.objectContaining({ status: 'degraded', reason: expect.stringContaining('database unreachable') }),
      });
    }
    // Every node stays in rotation: a 503 from /healthz is a node answering from memory.
    expect(Object.fromEntries(await cluster.balancer.states())).toEqual({ n1: 'UP', n2: 'UP', n3: 'UP' });
    // Several flush intervals: the nodes' writes fail and their clicks wait in memory.
    await load.more(1500);
    const write = await cluster.api('/links', {
      method: 'POST',
      body: JSON.stringify({ destination: 'https://example.com/later' }),
    });
    expect({ status: write.status, code: ((await write.json()) as any).error.code }).toEqual({
      status: 503,
      code: 'storage_unavailable',
    });
    const outageTo = Date.now();
    await startPostgres();
    stopped = false;

    for (const node of cluster.nodes) {
      const health = await waitHealthy(node.server!, 30_000);
      expect(await health.json()).toMatchObject({ status: 'ok' });
    }
    await load.more(300);
    const answers = await load.stop();

    expect(cluster.nodes.map((n) => ({ node: n.id, exited: n.server!.proc.exitCode }))).toEqual(
      cluster.nodes.map((n) => ({ node: n.id, exited: null })),
    );
    const { statuses, byNode, bots } = tally(answers);
    expect({ statuses, failures: answers.filter((a) => a.status !== 302).slice(0, 3) }).toEqual({
      statuses: { 302: answers.length },
      failures: [],
    });
    expect(answers.every((a) => a.location === DESTINATION)).toBe(true);
    // Answered during the outage, by every node.
    const during = answers.filter((a) => a.sentAt > outageFrom && a.at < outageTo);
    expect(new Set(during.map((a) => a.servedBy))).toEqual(new Set(['n1', 'n2', 'n3']));

    const totals = await waitClicks(cluster, link.id, answers.length + probes);
    expect(totals).toEqual({
      clickCount: answers.length - bots,
      botCount: bots + probes,
      exported: { clicks: answers.length - bots, bots: bots + probes },
    });
    console.log(
      `PostgreSQL restart: ${answers.length} answered 302 (${JSON.stringify(byNode)}), ${during.length} during the outage, all stored`,
    );
  }, 120_000);
});
