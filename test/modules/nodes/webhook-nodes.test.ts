/**
 * Webhooks across three nodes on one PostgreSQL: every event is delivered once although every
 * node's sender passes at the same moment (each delivery claimed by one node, SKIP LOCKED); a
 * node that claimed deliveries and died lets them go when its lease ends, and another delivers
 * them; clicks written on every node are one `clicks` event per node's batch, each delivered once;
 * a live stream open on one node makes the others record their clicks for it.
 */
import { afterAll, afterEach, beforeEach, expect, test } from 'bun:test';
import { apiExpecting, makeKey } from '../../helpers/app';
import { type Nodes, startNodes } from '../../helpers/nodes';
import { click, flushOk } from '../clicks/support';

let cluster: Nodes;
const received: string[] = [];
const bodies: any[] = [];
const receiver = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    received.push(req.headers.get('webhook-id')!);
    bodies.push(await req.json());
    return new Response('ok');
  },
});

afterAll(() => receiver.stop(true));

beforeEach(async () => {
  cluster = await startNodes(3, { SLINK_WEBHOOKS_ALLOW_PRIVATE: '1' });
  received.length = 0;
  bodies.length = 0;
});
afterEach(() => cluster.close());

async function keyOf(i: number) {
  return (await makeKey(cluster.nodes[i]!, 'write', { superuser: true })).key;
}

test('three senders passing at once deliver each event exactly once', async () => {
  const [a, b, c] = cluster.nodes as [any, any, any];
  const key = await keyOf(0);
  await apiExpecting(a, key, 'POST', '/webhooks', {
    url: `http://127.0.0.1:${receiver.port}/`,
    events: ['link.created'],
  });
  for (let i = 0; i < 30; i++)
    await apiExpecting(cluster.nodes[i % 3]!, key, 'POST', '/links', { destination: `https://example.com/${i}` });
  for (let round = 0; round < 3; round++) {
    await Promise.all([a, b, c].map((n) => n.deps.webhooks.pass()));
    await Promise.all([a, b, c].map((n) => n.deps.webhooks.settled()));
  }
  expect(received).toHaveLength(30);
  expect(new Set(received).size).toBe(30);
});

test("a node's claims outlive it only for the lease: another node then delivers them", async () => {
  const [a, b] = cluster.nodes as [any, any];
  const key = await keyOf(0);
  await apiExpecting(a, key, 'POST', '/webhooks', {
    url: `http://127.0.0.1:${receiver.port}/`,
    events: ['link.created'],
  });
  await apiExpecting(a, key, 'POST', '/links', { destination: 'https://example.com/a' });
  // Node a claims the delivery and dies before attempting it.
  const claimed = await a.deps.stores.outbox.claimDue(a.clock.now(), 10, 30_000);
  expect(claimed).toHaveLength(1);
  await b.deps.webhooks.pass();
  await b.deps.webhooks.settled();
  expect(received).toEqual([]);
  cluster.advance(30_000);
  await b.deps.webhooks.pass();
  await b.deps.webhooks.settled();
  expect(received).toEqual([claimed[0].eventId]);
  // Node a comes back to it late: its outcome is refused, nothing recorded twice.
  expect(
    await a.deps.stores.outbox.settle(claimed[0], {
      at: a.clock.now(),
      status: 200,
      error: null,
      durationMs: 1,
      request: '',
      response: '',
      delivered: true,
      nextAt: null,
      disableReason: '',
    }),
  ).toBe(false);
});

test("clicks written on each node: one clicks event per node's batch, each delivered once, every click in one", async () => {
  const [a, b, c] = cluster.nodes as [any, any, any];
  const key = await keyOf(0);
  await apiExpecting(a, key, 'POST', '/webhooks', { url: `http://127.0.0.1:${receiver.port}/`, events: ['clicks'] });
  await apiExpecting(a, key, 'POST', '/links', { destination: 'https://example.com/n', slug: 'nodes' });
  for (const node of [a, b, c]) await node.deps.linkIndex.loadAll();
  for (const [i, node] of [a, b, c].entries()) {
    for (let k = 0; k <= i; k++) expect(await click(node, '/nodes')).toBe(302);
    await flushOk(node);
  }
  for (let round = 0; round < 3; round++) {
    await Promise.all([a, b, c].map((n) => n.deps.webhooks.pass()));
    await Promise.all([a, b, c].map((n) => n.deps.webhooks.settled()));
  }
  expect(new Set(received).size).toBe(3);
  expect(received).toHaveLength(3);
  expect(bodies.map((x) => x.data.clicks.length).sort()).toEqual([1, 2, 3]);
  const ids = bodies.flatMap((x) => x.data.clicks.map((k: any) => k.id));
  expect(new Set(ids).size).toBe(6);
  expect(bodies.every((x) => x.data.clicks.every((k: any) => k.slug === 'nodes'))).toBe(true);
});

test("a live stream on one node gets the clicks written on another, with no webhook: the stream's node is what makes them recorded", async () => {
  const [a, b] = cluster.nodes as [any, any];
  const key = await keyOf(0);
  await apiExpecting(a, key, 'POST', '/links', { destination: 'https://example.com/s', slug: 'across' });
  await b.deps.linkIndex.loadAll();
  const res = await a.app.handle(
    new Request('http://localhost/api/v1/events', { headers: { authorization: `Bearer ${key}` } }),
  );
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  // The stream says it listens before its first read: node b's next batch records its clicks.
  expect(await click(b, '/across')).toBe(302);
  await flushOk(b);
  while (!text.includes('event: clicks\n')) {
    const { value, done } = await reader.read();
    if (done) throw new Error('the stream ended');
    text += decoder.decode(value, { stream: true });
  }
  await reader.cancel();
  const frame = text.slice(text.indexOf('event: clicks\n'));
  const data = JSON.parse(frame.slice(frame.indexOf('data: ') + 6, frame.indexOf('\n\n')));
  expect(data.data.clicks.map((c: any) => [c.slug, c.bot])).toEqual([['across', false]]);
});
