/**
 * Several nodes on one PostgreSQL database, in process: each TestApp is a node with its own slug
 * index, click pipeline and follower of the change feed. A link written through one node is
 * answered accordingly by the other (the feed: LISTEN/NOTIFY plus a poll); a node that lost the
 * notifications finds the changes by polling, and one that fell behind the changes kept reads
 * every link again. Keys and sessions are checked against the database on every request: revoked
 * on one node, refused by the other at once.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import type { LinkChangeFeed } from '../../../src/modules/links/changes';
import { LinkFollower } from '../../../src/modules/redirect/link-follower';
import { api, makeKey, type TestApp } from '../../helpers/app';
import { dash, signIn } from '../../helpers/dashboard';
import { type Nodes, startNodes } from '../../helpers/nodes';

let running: Nodes | null = null;
afterEach(async () => {
  await running?.close();
  running = null;
});

async function twoNodes(): Promise<[TestApp, TestApp]> {
  running = await startNodes(2);
  return [running.nodes[0]!, running.nodes[1]!];
}

async function visit(t: TestApp, path: string): Promise<{ status: number; location: string | null }> {
  const res = await t.app.handle(new Request(`https://sl.test${path}`, { headers: { 'user-agent': 'Mozilla/5.0' } }));
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get('location') };
}

/** Polls `check` until it holds; fails after `ms` (a missing change, not a slow one: the bound is 1 s). */
async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error('the change never arrived');
    await Bun.sleep(10);
  }
}

describe('link changes reach every node', () => {
  test('a notification alone carries a change across (no poll)', async () => {
    const [a, b] = await twoNodes();
    // B follows with a poll that never fires in this test: only NOTIFY can wake it.
    await b.deps.follower!.stop();
    const follower = new LinkFollower(b.deps.stores.changes!, b.deps.linkIndex, b.deps.log, async () => {}, 3_600_000);
    await follower.begin();
    follower.start();
    try {
      const { key } = await makeKey(a, 'write', { superuser: true });
      const created = await api(a, 'POST', '/links', {
        key,
        body: { destination: 'https://example.com/n', slug: 'n1' },
      });
      expect(created.status).toBe(201);
      await eventually(async () => (await visit(b, '/n1')).status === 302);
      expect(await visit(b, '/n1')).toEqual({ status: 302, location: 'https://example.com/n' });
    } finally {
      await follower.stop();
    }
  });

  test('a subscription that failed at first is made again after the next pass that reaches the database', async () => {
    const [a, b] = await twoNodes();
    await b.deps.follower!.stop();
    const real = b.deps.stores.changes!;
    let listens = 0;
    const feed: LinkChangeFeed = {
      head: () => real.head(),
      since: (seq, limit) => real.since(seq, limit),
      prune: (keptMs) => real.prune(keptMs),
      listen: (wake) => (++listens === 1 ? Promise.reject(new Error('connection lost')) : real.listen(wake)),
    };
    // No poll in this test: only the notification can bring the change.
    const follower = new LinkFollower(feed, b.deps.linkIndex, b.deps.log, async () => {}, 3_600_000);
    await follower.begin();
    follower.start();
    try {
      await follower.caughtUp();
      expect(listens).toBe(2);
      const { key } = await makeKey(a, 'write', { superuser: true });
      const created = await api(a, 'POST', '/links', {
        key,
        body: { destination: 'https://example.com/l', slug: 'l1' },
      });
      expect(created.status).toBe(201);
      await eventually(async () => (await visit(b, '/l1')).status === 302);
    } finally {
      await follower.stop();
    }
  });

  test('created, changed, paused, archived, a variant, deleted: the other node answers each', async () => {
    const [a, b] = await twoNodes();
    const { key } = await makeKey(a, 'write', { superuser: true });
    const caughtUp = () => b.deps.follower!.caughtUp();
    const created = await api(a, 'POST', '/links', { key, body: { destination: 'https://example.com/1', slug: 'x1' } });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await caughtUp();
    expect(await visit(b, '/x1')).toEqual({ status: 302, location: 'https://example.com/1' });

    expect(
      (await api(a, 'PATCH', `/links/${id}`, { key, body: { destination: 'https://example.com/2' } })).status,
    ).toBe(200);
    await caughtUp();
    expect(await visit(b, '/x1')).toEqual({ status: 302, location: 'https://example.com/2' });

    expect((await api(a, 'PATCH', `/links/${id}`, { key, body: { status: 'paused' } })).status).toBe(200);
    await caughtUp();
    expect((await visit(b, '/x1')).status).toBe(404);

    expect((await api(a, 'PATCH', `/links/${id}`, { key, body: { status: 'archived' } })).status).toBe(200);
    await caughtUp();
    expect(await visit(b, '/x1')).toEqual({ status: 302, location: 'https://example.com/2' });

    const variant = await api(a, 'POST', `/links/${id}/variants`, {
      key,
      body: { code: 'fb', params: { utm_source: 'fb' } },
    });
    expect(variant.status).toBe(201);
    await caughtUp();
    expect(await visit(b, '/x1/fb')).toEqual({ status: 302, location: 'https://example.com/2?utm_source=fb' });

    expect((await api(a, 'PATCH', `/links/${id}`, { key, body: { slug: 'x2' } })).status).toBe(200);
    await caughtUp();
    expect((await visit(b, '/x1')).status).toBe(404);
    expect((await visit(b, '/x2')).status).toBe(302);

    expect((await api(a, 'DELETE', `/links/${id}`, { key })).status).toBe(200);
    await caughtUp();
    expect((await visit(b, '/x2')).status).toBe(404);
    expect(b.deps.linkIndex.getById(id)).toBeUndefined();
  });

  test('lost notifications are found by the poll; a node behind the pruned changes reads every link again', async () => {
    const [a, b] = await twoNodes();
    const { key } = await makeKey(a, 'write', { superuser: true });
    const keep = await api(a, 'POST', '/links', { key, body: { destination: 'https://example.com/k', slug: 'keep' } });
    const gone = await api(a, 'POST', '/links', { key, body: { destination: 'https://example.com/g', slug: 'gone' } });
    await b.deps.follower!.caughtUp();
    expect((await visit(b, '/gone')).status).toBe(302);

    // B's database connection "goes away": the feed fails and notifications are lost.
    await b.deps.follower!.stop();
    const real = b.deps.stores.changes!;
    let offline = true;
    const feed: LinkChangeFeed = {
      head: () => real.head(),
      since: (seq, limit) => (offline ? Promise.reject(new Error('connection lost')) : real.since(seq, limit)),
      listen: (wake) => real.listen(() => (offline ? undefined : wake())),
      prune: (keptMs) => real.prune(keptMs),
    };
    const follower = new LinkFollower(feed, b.deps.linkIndex, b.deps.log, async () => {}, 20);
    await follower.begin();
    follower.start();
    try {
      expect(
        (await api(a, 'PATCH', `/links/${keep.body.id}`, { key, body: { destination: 'https://example.com/k2' } }))
          .status,
      ).toBe(200);
      await follower.caughtUp();
      expect((await visit(b, '/keep')).location).toBe('https://example.com/k');
      offline = false;
      await eventually(async () => (await visit(b, '/keep')).location === 'https://example.com/k2');

      // Offline again while a link goes, another comes, and the changes are pruned.
      offline = true;
      expect((await api(a, 'DELETE', `/links/${gone.body.id}`, { key })).status).toBe(200);
      expect(
        (await api(a, 'POST', '/links', { key, body: { destination: 'https://example.com/new', slug: 'new' } })).status,
      ).toBe(201);
      expect(
        (await api(a, 'POST', '/links', { key, body: { destination: 'https://example.com/last', slug: 'last' } }))
          .status,
      ).toBe(201);
      expect(await real.prune(-60_000)).toBeGreaterThan(0);
      offline = false;
      await follower.caughtUp();
      expect(follower.stats.resyncs).toBe(1);
      expect((await visit(b, '/gone')).status).toBe(404);
      expect(await visit(b, '/new')).toEqual({ status: 302, location: 'https://example.com/new' });
      expect(await visit(b, '/last')).toEqual({ status: 302, location: 'https://example.com/last' });
      expect(b.deps.linkIndex.size).toBe(3);
    } finally {
      await follower.stop();
      b.errors.length = 0; // the "connection lost" lines it logged, on purpose
    }
  });
});

describe('keys and sessions end on every node at once', () => {
  test('a key revoked through one node is refused by the other on its next request', async () => {
    const [a, b] = await twoNodes();
    const owner = await signIn(a, { superuser: true });
    const made = await dash(a, 'POST', '/keys', { cookie: owner.cookie, body: { scope: 'read', name: 'ci' } });
    expect(made.status).toBe(201);
    expect((await api(b, 'GET', '/links', { key: made.body.key })).status).toBe(200);
    expect((await dash(a, 'DELETE', `/keys/${made.body.item.id}`, { cookie: owner.cookie })).status).toBe(204);
    const refused = await api(b, 'GET', '/links', { key: made.body.key });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('key_revoked');
  });

  test('a session ended through one node is refused by the other', async () => {
    const [a, b] = await twoNodes();
    const person = await signIn(a);
    expect((await dash(b, 'GET', '/session', { cookie: person.cookie })).status).toBe(200);
    expect((await dash(a, 'DELETE', '/session', { cookie: person.cookie })).status).toBe(204);
    const refused = await dash(b, 'GET', '/session', { cookie: person.cookie });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('session_required');
  });
});
