/**
 * Three nodes on one PostgreSQL behind HAProxy answer as one service (the contract's "Several
 * nodes"): a link created, changed, paused, archived or deleted through the balancer is answered
 * accordingly by every node's own port within a second; a revoked key is refused by every node at
 * once; the rate limit and the sign-in throttle count across nodes; one visitor seen by three
 * nodes is one unique; a click limit of 100 hit by 500 concurrent requests spread over the nodes
 * redirects exactly 100 times, and the link's clickCount is 100.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { freshDb, ok, PASSWORD, slink } from '../helpers/cli';
import { type Cluster, startCluster } from '../helpers/cluster';
import { waitClicks } from '../helpers/cluster-clicks';
import { BROWSER, burst, tally } from '../helpers/load';

let cluster: Cluster;
beforeAll(async () => {
  cluster = await startCluster({ nodes: 3, env: { SLINK_RATE_LIMIT: String(RATE_LIMIT) } });
}, 60_000);
afterAll(() => cluster?.close());

/** Requests per key per minute: above what the other tests here send with the cluster's key. */
const RATE_LIMIT = 200;

/** The contract's bound: a change committed through one node is answered by every node within it. */
const WITHIN_MS = 1000;

/** A visit, by a browser (a human click) or by HEAD (a bot hit: the link stays deletable through the API). */
async function answerOf(
  base: string,
  path: string,
  method = 'GET',
): Promise<{ status: number; location: string | null }> {
  const res = await fetch(`${base}${path}`, { method, redirect: 'manual', headers: { 'user-agent': BROWSER } });
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get('location') };
}

/**
 * How long after `since` every node's own port answered `path` as `want` (polled every 10 ms);
 * what each answered last when the bound passed.
 */
async function everyNode(path: string, want: { status: number; location?: string }, since: number) {
  const last: Record<string, unknown> = {};
  await Promise.all(
    cluster.nodes.map(async (node) => {
      for (;;) {
        const got = await answerOf(node.base, path, 'HEAD');
        const ok = got.status === want.status && (want.location === undefined || got.location === want.location);
        if (ok) return;
        last[node.id] = got;
        if (performance.now() - since > WITHIN_MS) return;
        await Bun.sleep(10);
      }
    }),
  );
  for (const node of cluster.nodes) {
    const got = await answerOf(node.base, path, 'HEAD');
    if (got.status !== want.status || (want.location !== undefined && got.location !== want.location)) return last;
  }
  return {};
}

describe('three nodes behind HAProxy answer as one', () => {
  test('every change through the balancer is answered by every node within a second', async () => {
    let since = performance.now();
    const link = await cluster.createLink({ destination: 'https://example.com/one' });
    expect(await everyNode(`/${link.slug}`, { status: 302, location: 'https://example.com/one' }, since)).toEqual({});

    const patch = async (body: Record<string, unknown>) => {
      since = performance.now();
      const res = await cluster.api(`/links/${link.id}`, { method: 'PATCH', body: JSON.stringify(body) });
      expect(res.status).toBe(200);
    };
    await patch({ destination: 'https://example.com/two' });
    expect(await everyNode(`/${link.slug}`, { status: 302, location: 'https://example.com/two' }, since)).toEqual({});
    await patch({ status: 'paused' });
    expect(await everyNode(`/${link.slug}`, { status: 404 }, since)).toEqual({});
    await patch({ status: 'archived' });
    expect(await everyNode(`/${link.slug}`, { status: 302, location: 'https://example.com/two' }, since)).toEqual({});
    await patch({ expiresAt: Date.now() - 1000 });
    expect(await everyNode(`/${link.slug}`, { status: 410 }, since)).toEqual({});
    await patch({ expiresAt: null });

    since = performance.now();
    const variant = await cluster.api(`/links/${link.id}/variants`, {
      method: 'POST',
      body: JSON.stringify({ code: 'mail', params: { utm_source: 'mail' } }),
    });
    expect(variant.status).toBe(201);
    expect(
      await everyNode(
        `/${link.slug}/mail`,
        { status: 302, location: 'https://example.com/two?utm_source=mail' },
        since,
      ),
    ).toEqual({});

    since = performance.now();
    const deleted = await cluster.api(`/links/${link.id}`, { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect(await everyNode(`/${link.slug}`, { status: 404 }, since)).toEqual({});
  }, 120_000);

  test('a key revoked (slink key revoke) is refused by every node on its next request', async () => {
    const env = { env: { SLINK_DATABASE_URL: cluster.url } };
    const made = JSON.parse(
      await ok(slink(freshDb(), ['key', 'create', '--user', 'ops@example.com', '--scope', 'read', '--json'], env)),
    ) as { id: string; key: string };
    const asKey = (base: string) => fetch(`${base}/api/v1/links`, { headers: { authorization: `Bearer ${made.key}` } });
    for (const node of cluster.nodes) expect((await asKey(node.base)).status).toBe(200);
    await ok(slink(freshDb(), ['key', 'revoke', made.id], env));
    for (const node of cluster.nodes) {
      const res = await asKey(node.base);
      expect({ node: node.id, status: res.status, code: ((await res.json()) as any).error.code }).toEqual({
        node: node.id,
        status: 401,
        code: 'key_revoked',
      });
    }
  }, 60_000);

  test('the rate limit holds across nodes: a key gets exactly SLINK_RATE_LIMIT answers, then 429 on every node', async () => {
    const env = { env: { SLINK_DATABASE_URL: cluster.url } };
    const key = (
      await ok(slink(freshDb(), ['key', 'create', '--user', 'ops@example.com', '--scope', 'read'], env))
    ).trim();
    const remaining: number[] = [];
    const refused: string[] = [];
    for (let i = 0; i < RATE_LIMIT + 6; i++) {
      const node = cluster.nodes[i % 3]!;
      const res = await fetch(`${node.base}/api/v1/links?limit=1`, { headers: { authorization: `Bearer ${key}` } });
      const body = (await res.json()) as any;
      if (res.status === 200) remaining.push(Number(res.headers.get('x-ratelimit-remaining')));
      else refused.push(`${node.id} ${res.status} ${body.error.code} ${res.headers.get('retry-after') !== null}`);
    }
    // Every answer counted once, whichever node took it: 199, 198, ... 0, then refusals everywhere.
    expect(remaining).toEqual(Array.from({ length: RATE_LIMIT }, (_, i) => RATE_LIMIT - 1 - i));
    const after = Array.from({ length: 6 }, (_, i) => cluster.nodes[(RATE_LIMIT + i) % 3]!.id);
    expect(refused).toEqual(after.map((n) => `${n} 429 rate_limited true`));
  }, 60_000);

  test('the sign-in throttle holds across nodes: five failures spread over them refuse the right password', async () => {
    const signIn = (node: number, password: string) =>
      fetch(`${cluster.nodes[node % 3]!.base}/api/app/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
        body: JSON.stringify({ email: 'ops@example.com', password }),
      });
    for (let i = 0; i < 5; i++) expect((await signIn(i, 'not the password')).status).toBe(401);
    for (let node = 0; node < 3; node++) {
      const res = await signIn(node, PASSWORD);
      expect({ status: res.status, code: ((await res.json()) as any).error.code }).toEqual({
        status: 429,
        code: 'rate_limited',
      });
    }
  }, 60_000);

  test('one visitor seen by three nodes is one unique; their clicks all count', async () => {
    const link = await cluster.createLink({ destination: 'https://example.com/uniq' });
    await cluster.waitKnown(link.slug);
    for (const node of cluster.nodes) expect((await answerOf(node.base, `/${link.slug}`)).status).toBe(302);
    const totals = await waitClicks(cluster, link.id, 3 + 3);
    const res = await cluster.api(`/links/${link.id}`);
    const body = (await res.json()) as any;
    // waitKnown's three HEAD probes are bot hits; the three visits one human visitor.
    expect({ clicks: totals.clickCount, bots: totals.botCount, uniques: body.uniqueCount }).toEqual({
      clicks: 3,
      bots: 3,
      uniques: 1,
    });
  }, 60_000);

  test('a click limit of 100 under 500 concurrent requests over three nodes: exactly 100 redirects', async () => {
    const link = await cluster.createLink({ destination: 'https://example.com/limit', clickLimit: 100 });
    await cluster.waitKnown(link.slug);
    const answers = await burst(`${cluster.balancer.base}/${link.slug}`, 500, 500);
    // A quarter are bot hits (burst sends curl's agent on every fourth): not counted against the
    // limit, let through until the link is at it, then answered 410 as everyone is.
    const humans = tally(answers.filter((a) => !a.bot)).statuses;
    const bots = tally(answers.filter((a) => a.bot)).statuses;
    expect(humans).toEqual({ 302: 100, 410: 275 });
    expect((bots[302] ?? 0) + (bots[410] ?? 0)).toBe(125);
    // The balancer spread them: every node let some through.
    expect(Object.keys(tally(answers.filter((a) => a.status === 302)).byNode).sort()).toEqual(['n1', 'n2', 'n3']);
    const botHits = (bots[302] ?? 0) + 3;
    const totals = await waitClicks(cluster, link.id, 100 + botHits);
    expect({ clickCount: totals.clickCount, exported: totals.exported, bots: totals.botCount }).toEqual({
      clickCount: 100,
      exported: { clicks: 100, bots: botHits },
      bots: botHits,
    });
  }, 120_000);
});
