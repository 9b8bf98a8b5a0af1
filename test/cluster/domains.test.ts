/**
 * Short domains across three nodes on one PostgreSQL behind HAProxy (the contract's "Several
 * short domains": a domain added, changed or removed applies on every node within 1 s): each
 * write goes through one node's own port, and every node's own port is polled, with the domain's
 * Host, until it answers accordingly, up to the contract's bound from the write's answer.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { type Cluster, type ClusterNode, startCluster } from '../helpers/cluster';

let cluster: Cluster;
beforeAll(async () => {
  cluster = await startCluster({ nodes: 3 });
}, 60_000);
afterAll(() => cluster?.close());

/** The contract's bound: a domain change through one node applies on every node within it. */
const WITHIN_MS = 1000;

const HOST = 'go.example.com';
const OTHER = 'other.example.com';

interface Answer {
  status: number;
  location: string | null;
}

/** What a node's own port answers to HEAD `path` sent for `host` (a bot hit: no human click). */
async function answerOf(node: ClusterNode, host: string, path: string): Promise<Answer> {
  const res = await fetch(`${node.base}${path}`, { method: 'HEAD', redirect: 'manual', headers: { host } });
  return { status: res.status, location: res.headers.get('location') };
}

/**
 * Waits until every node answers `path` for `host` as `want`, polling each, for at most WITHIN_MS
 * from the call (made right after the write answered); fails with what each node answered last.
 */
async function everyNode(host: string, path: string, want: Answer): Promise<void> {
  const last: Record<string, Answer> = {};
  const since = performance.now();
  await Promise.all(
    cluster.nodes.map(async (node) => {
      for (;;) {
        const got = await answerOf(node, host, path);
        last[node.id] = got;
        if (got.status === want.status && got.location === want.location) return;
        if (performance.now() - since > WITHIN_MS) return;
        await Bun.sleep(10);
      }
    }),
  );
  expect({ host, path, answers: last }).toEqual({
    host,
    path,
    answers: Object.fromEntries(cluster.nodes.map((n) => [n.id, want])),
  });
}

/** An API call through one node's own port; expects `status`, answers the body. */
async function through(id: string, method: string, path: string, body: unknown, status: number): Promise<any> {
  const res = await cluster.apiAt(id, path, { method, body: body === undefined ? undefined : JSON.stringify(body) });
  const answer = (await res.json()) as any;
  expect({ via: id, method, path, status: res.status, body: res.status === status ? null : answer }).toEqual({
    via: id,
    method,
    path,
    status,
    body: null,
  });
  return answer;
}

/** What every node's own /tls/ask answers for `host`. */
async function askedEverywhere(host: string): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const node of cluster.nodes) {
    const res = await fetch(`${node.base}/tls/ask?domain=${host}`);
    await res.arrayBuffer();
    out[node.id] = res.status;
  }
  return out;
}

const everywhere = (status: number) => Object.fromEntries(cluster.nodes.map((n) => [n.id, status]));

describe('short domains on three nodes', () => {
  test('added, changed, emptied by a move and deleted through one node: every node follows within a second', async () => {
    // A link of the default domain, to see a deleted domain's host answered as the default.
    const onDefault = await through('n1', 'POST', '/links', { destination: 'https://example.com/default' }, 201);

    // Added through n1, with a link on it made through n1: every node redirects it for that Host.
    await through('n1', 'POST', '/domains', { origin: `https://${HOST}` }, 201);
    const link = await through(
      'n1',
      'POST',
      '/links',
      { destination: 'https://example.com/on-domain', slug: 'spring', domain: HOST },
      201,
    );
    expect(link.shortUrl).toBe(`https://${HOST}/spring`);
    await everyNode(HOST, '/spring', { status: 302, location: 'https://example.com/on-domain' });
    expect(await askedEverywhere(HOST)).toEqual(everywhere(200));
    // A slug of one domain never answers on another, on any node.
    await everyNode(HOST, `/${onDefault.slug}`, { status: 404, location: null });
    // Through the balancer too: HAProxy passes the Host on.
    const balanced = await fetch(`${cluster.balancer.base}/spring`, {
      method: 'HEAD',
      redirect: 'manual',
      headers: { host: HOST },
    });
    expect({ status: balanced.status, location: balanced.headers.get('location') }).toEqual({
      status: 302,
      location: 'https://example.com/on-domain',
    });

    // Its rootUrl set, then changed, through n2: every node sends / there.
    await through('n2', 'PATCH', `/domains/${HOST}`, { rootUrl: 'https://example.com/root-1' }, 200);
    await everyNode(HOST, '/', { status: 302, location: 'https://example.com/root-1' });
    await through('n2', 'PATCH', `/domains/${HOST}`, { rootUrl: 'https://example.com/root-2' }, 200);
    await everyNode(HOST, '/', { status: 302, location: 'https://example.com/root-2' });

    // The link moved to another domain through n3: the old address stops answering on every
    // node, the new one answers.
    await through('n3', 'POST', '/domains', { origin: `https://${OTHER}` }, 201);
    const moved = await through('n3', 'PATCH', `/links/${link.id}`, { domain: OTHER }, 200);
    expect(moved.shortUrl).toBe(`https://${OTHER}/spring`);
    await everyNode(HOST, '/spring', { status: 404, location: null });
    await everyNode(OTHER, '/spring', { status: 302, location: 'https://example.com/on-domain' });

    // Deleted through n1 (no link is on it now): no node routes its host any more; a request
    // for it is answered as the default domain's, and /tls/ask refuses it.
    await through('n1', 'DELETE', `/domains/${HOST}`, undefined, 200);
    await everyNode(HOST, `/${onDefault.slug}`, { status: 302, location: 'https://example.com/default' });
    await everyNode(HOST, '/spring', { status: 404, location: null });
    expect(await askedEverywhere(HOST)).toEqual(everywhere(404));
  }, 60_000);
});
