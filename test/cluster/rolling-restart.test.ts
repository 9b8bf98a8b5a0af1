/**
 * A rolling restart under load: the three nodes behind HAProxy stopped with SIGTERM one after
 * the other, each started again (and back in rotation) before the next goes. No request fails
 * at the balancer, and every redirect answered is a stored click: a stopping node finishes what
 * it accepted and writes every click it holds before it exits.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { type Cluster, startCluster } from '../helpers/cluster';
import { waitClicks } from '../helpers/cluster-clicks';
import { type Answer, burst, startLoad, tally } from '../helpers/load';

let cluster: Cluster | undefined;
afterAll(() => cluster?.close());

const DESTINATION = 'https://example.com/rolling';

describe('rolling restart under load', () => {
  test('SIGTERM to each node in turn: no request fails, every redirect is a stored click', async () => {
    cluster = await startCluster({ nodes: 3, started: 1 });
    const link = await cluster.createLink({ destination: DESTINATION });
    await cluster.startAll();
    const probes = await cluster.waitKnown(link.slug);

    const url = `${cluster.balancer.base}/${link.slug}`;
    const load = startLoad(url, { concurrency: 12, pauseMs: 10 });
    await load.more(300);
    const exits: Record<string, number> = {};
    const bursts: Promise<Answer[]>[] = [];
    for (const node of cluster.nodes) {
      // A burst as the signal lands, so that requests are on their way to the node or in it.
      bursts.push(burst(url, 60, 60));
      exits[node.id] = await cluster.stopNode(node.id);
      await load.more(200);
      await cluster.startNode(node.id);
      await load.more(200);
    }
    const answers = [...(await load.stop()), ...(await Promise.all(bursts)).flat()];

    expect(exits).toEqual({ n1: 0, n2: 0, n3: 0 });
    const { statuses, byNode, bots } = tally(answers);
    expect({ statuses, failures: answers.filter((a) => a.status !== 302).slice(0, 3) }).toEqual({
      statuses: { 302: answers.length },
      failures: [],
    });
    expect(answers.every((a) => a.location === DESTINATION)).toBe(true);

    // Each restarted node loaded the link at its start: the restarts' own HEADs are not needed.
    const totals = await waitClicks(cluster, link.id, answers.length + probes);
    expect(totals).toEqual({
      clickCount: answers.length - bots,
      botCount: bots + probes,
      exported: { clicks: answers.length - bots, bots: bots + probes },
    });
    console.log(`rolling restart: ${answers.length} answered 302 (${JSON.stringify(byNode)}), all stored`);
  }, 120_000);
});
