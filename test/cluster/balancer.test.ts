/**
 * Three `slink serve` nodes on one PostgreSQL behind HAProxy (test/helpers/cluster.ts): a link
 * created through the balancer redirects from every node, on its own port and through the
 * balancer in turn, and every redirect, whichever node answered it, is one stored click.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { type Cluster, startCluster } from '../helpers/cluster';
import { waitClicks } from '../helpers/cluster-clicks';
import { hit } from '../helpers/load';

let cluster: Cluster | undefined;
afterAll(() => cluster?.close());

const DESTINATION = 'https://example.com/cluster';

describe('three nodes behind HAProxy', () => {
  test('a link created through the balancer redirects from every node; each redirect is one stored click', async () => {
    // n1 alone when the link is made; n2 and n3 load it at their start.
    cluster = await startCluster({ nodes: 3, started: 1 });
    const link = await cluster.createLink({ destination: DESTINATION });
    expect(link.shortUrl).toBe(`${cluster.balancer.base}/${link.slug}`);
    await cluster.startAll();
    const probes = await cluster.waitKnown(link.slug);

    for (const node of cluster.nodes) {
      const health = await fetch(`${node.base}/healthz`);
      expect({ status: health.status, body: await health.json() }).toMatchObject({
        status: 200,
        body: { status: 'ok' },
      });
      const own = await hit(`${node.base}/${link.slug}`);
      expect({ status: own.status, location: own.location }).toEqual({ status: 302, location: DESTINATION });
    }
    // Round robin: six requests in a row reach each node twice.
    const through = [];
    for (let i = 0; i < 6; i++) through.push(await hit(`${cluster.balancer.base}/${link.slug}`));
    expect(through.map((a) => ({ status: a.status, location: a.location }))).toEqual(
      Array(6).fill({ status: 302, location: DESTINATION }),
    );
    expect(through.map((a) => a.servedBy).sort()).toEqual(['n1', 'n1', 'n2', 'n2', 'n3', 'n3']);

    // 3 + 6 clicks, and the HEAD each node answered while it was awaited (a bot hit each).
    const totals = await waitClicks(cluster, link.id, 9 + probes);
    expect(totals).toEqual({ clickCount: 9, botCount: probes, exported: { clicks: 9, bots: probes } });
  }, 120_000);
});
