/**
 * kill -9 of one of three nodes under load, through HAProxy: every request still gets its 302
 * (the balancer sends what the dead node did not answer to another node), and what is lost is
 * only what the killed node held in memory: at most the redirects it answered in its last flush
 * window before the kill. Its counters equal its raw clicks once the node is back.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { type Cluster, startCluster } from '../helpers/cluster';
import { clickTotals } from '../helpers/cluster-clicks';
import { burst, startLoad, tally } from '../helpers/load';

let cluster: Cluster | undefined;
afterAll(() => cluster?.close());

const DESTINATION = 'https://example.com/kill';
const FLUSH_MS = 200;
/**
 * What a kill can take: the clicks answered since the last batch the node committed was taken,
 * that is the buffer (at most one flush interval) and the batch being committed (taken at the
 * tick before). So two intervals, counted back from the kill.
 */
const LOSS_WINDOW_MS = 2 * FLUSH_MS;

describe('kill -9 of a node under load', () => {
  test('every request answers 302; the loss is at most its last flush window; counters equal raw clicks', async () => {
    cluster = await startCluster({ nodes: 3, started: 1, flushMs: FLUSH_MS });
    const link = await cluster.createLink({ destination: DESTINATION });
    await cluster.startAll();
    const probes = await cluster.waitKnown(link.slug);

    const load = startLoad(`${cluster.balancer.base}/${link.slug}`, { concurrency: 12, pauseMs: 10 });
    // Long enough for n2 to have flushed several times: what it answered before its last
    // window must be stored.
    await load.more(300);
    await Bun.sleep(10 * FLUSH_MS);
    // A burst as the kill lands, so that requests are on their way to n2 or in it when it dies.
    const inFlight = burst(`${cluster.balancer.base}/${link.slug}`, 60, 60);
    const killedAt = Date.now();
    await cluster.killNode('n2');
    await load.more(600);
    const answers = [...(await load.stop()), ...(await inFlight)];
    const n2 = (await cluster.balancer.stats()).get('n2')!;

    const { statuses, byNode, bots } = tally(answers);
    expect({ statuses, failures: answers.filter((a) => a.status !== 302).slice(0, 3) }).toEqual({
      statuses: { 302: answers.length },
      failures: [],
    });
    expect(answers.every((a) => a.location === DESTINATION)).toBe(true);
    // n2 took its share before the kill, and answered nothing sent after it.
    expect(byNode.n2).toBeGreaterThan(0);
    expect(answers.filter((a) => a.servedBy === 'n2' && a.sentAt > killedAt + 50)).toEqual([]);

    // n2 back (its start counts what it wrote but had not counted), n1 and n3 stopped: all they
    // held is written and counted, and what the API shows is final.
    await cluster.startNode('n2');
    expect(await cluster.stopNode('n1')).toBe(0);
    expect(await cluster.stopNode('n3')).toBe(0);
    const totals = await clickTotals(cluster, link.id);
    expect({ clickCount: totals.clickCount, botCount: totals.botCount }).toEqual({
      clickCount: totals.exported.clicks,
      botCount: totals.exported.bots,
    });

    const stored = totals.exported.clicks + totals.exported.bots - probes;
    const lost = answers.length - stored;
    const lastWindow = answers.filter((a) => a.servedBy === 'n2' && a.at >= killedAt - LOSS_WINDOW_MS).length;
    expect({ lost: lost >= 0, withinWindow: lost <= lastWindow }).toEqual({ lost: true, withinWindow: true });
    // The bound says something: n2 answered more than its last window before the kill.
    expect(lastWindow).toBeLessThan(byNode.n2!);
    // Bot hits lost are bot hits the killed node answered: never more than the load sent.
    expect(totals.exported.bots - probes).toBeLessThanOrEqual(bots);
    console.log(
      `kill -9: ${answers.length} answered 302 (${JSON.stringify(byNode)}), ${stored} stored, ${lost} lost, n2 answered ${lastWindow} in its last ${LOSS_WINDOW_MS} ms; HAProxy retried ${n2.wretr} and redispatched ${n2.wredis} of n2's`,
    );
  }, 120_000);
});
