/**
 * Read-through (docs/behaviour.md, "Read-through"): a slug unknown on a domain with an upstream
 * is asked there, against a real fake of the old service (test/helpers/fake-upstream.ts). On
 * both engines: a redirect there becomes a link, answered 302 and counted, audited as
 * read-through's; the next visit is served from the slug index. Once (the engine decides
 * nothing more): misses remembered an hour (the clock moved by hand), a failing or slow upstream
 * answered as an unknown slug (the deadline shortened), one question per slug, the bound on
 * questions in flight under a scan, known slugs never asked, private addresses refused unless
 * allowed, a Location no link may have. On two PostgreSQL nodes: the same slug asked on both
 * at once makes one link, which every node answers; a miss or a failure one node had is
 * remembered by every node (a scan of random slugs asks the old service once per slug).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { askUpstream } from '../../../src/modules/redirect/read-through/ask';
import { api, apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';
import { engineBlind, forEachEngine } from '../../helpers/engines';
import { type FakeUpstream, startFakeUpstream } from '../../helpers/fake-upstream';
import { startNodes } from '../../helpers/nodes';
import { waitUntil } from '../../helpers/wait';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const HOUR = 3_600_000;
const METRICS_TOKEN = 'read-through-metrics-token';

function visit(t: TestApp, host: string, slug: string): Promise<Response> {
  return t.app.handle(new Request(`https://${host}/${slug}`, { headers: { 'user-agent': CHROME } }));
}

async function flush(t: TestApp): Promise<void> {
  expect(await t.deps.clicks.flusher.flush()).toBe(true);
}

/** Adds a domain with this upstream (and optionally a not-found target) through the API. */
async function domainWithUpstream(t: TestApp, admin: string, host: string, upstream: string, notFoundUrl?: string) {
  await apiExpecting(t, admin, 'POST', '/domains', {
    origin: `https://${host}`,
    ...(notFoundUrl ? { notFoundUrl } : {}),
  });
  await apiExpecting(t, admin, 'PATCH', `/domains/${host}`, { upstream });
}

async function linkBySlug(t: TestApp, admin: string, host: string, slug: string) {
  const page = await apiExpecting(t, admin, 'GET', `/links?domain=${host}&q=${slug}`);
  return (page.items as { slug: string }[]).filter((l) => l.slug === slug);
}

forEachEngine((engine) => {
  const once = engineBlind(engine);
  let t: TestApp;
  let admin: string;
  let old: FakeUpstream;

  beforeAll(async () => {
    old = startFakeUpstream();
    t = await makeTestApp({ SLINK_UPSTREAM_ALLOW_PRIVATE: '1', SLINK_METRICS_TOKEN: METRICS_TOKEN }, { engine });
    admin = (await makeKey(t, 'write', { superuser: true })).key;
    await domainWithUpstream(t, admin, 'old.example', old.origin);
    await domainWithUpstream(t, admin, 'lost.example', old.origin, 'https://home.example/missing');
  });

  afterAll(async () => {
    await old.stop();
    await disposeTestApp(t);
  });

  test('a slug the upstream redirects becomes a link: 302 at once, counted, audited as read-through', async () => {
    old.replies.set('promo', { redirect: 'https://shop.example/spring?utm_source=mail' });
    const res = await visit(t, 'old.example', 'promo');
    expect([res.status, res.headers.get('location')]).toEqual([302, 'https://shop.example/spring?utm_source=mail']);
    const [link] = (await linkBySlug(t, admin, 'old.example', 'promo')) as any[];
    expect(link).toMatchObject({
      slug: 'promo',
      domain: 'old.example',
      shortUrl: 'https://old.example/promo',
      destination: 'https://shop.example/spring',
      params: { utm_source: 'mail' },
    });
    await flush(t);
    expect((await apiExpecting(t, admin, 'GET', `/links/${link.id}`)).clickCount).toBe(1);
    const audit = await apiExpecting(t, admin, 'GET', `/audit?targetId=${link.id}`);
    expect(audit.items).toEqual([
      expect.objectContaining({
        actor: { accountId: null, keyId: null },
        via: 'api',
        action: 'link.create',
        target: { type: 'link', id: link.id },
      }),
    ]);
    // The next visit is the slug index's: the upstream is not asked again.
    const again = await visit(t, 'old.example', 'promo');
    expect([again.status, again.headers.get('location')]).toEqual([302, 'https://shop.example/spring?utm_source=mail']);
    expect(old.asked.get('promo')).toBe(1);
    await flush(t);
    expect((await apiExpecting(t, admin, 'GET', `/links/${link.id}`)).clickCount).toBe(2);
  });

  test('a miss is the unknown-slug answer, remembered for an hour', async () => {
    const first = await visit(t, 'old.example', 'nothing');
    expect([first.status, first.headers.get('content-type')]).toEqual([404, 'text/html; charset=utf-8']);
    const lost = await visit(t, 'lost.example', 'nothing');
    expect([lost.status, lost.headers.get('location')]).toEqual([302, 'https://home.example/missing']);
    // Each domain asks for itself: two questions, then none within the hour.
    expect(old.asked.get('nothing')).toBe(2);
    t.clock.advance(HOUR - 1);
    expect((await visit(t, 'old.example', 'nothing')).status).toBe(404);
    expect(old.asked.get('nothing')).toBe(2);
    // An hour later the upstream is asked again, and a link made there meanwhile is found.
    old.replies.set('nothing', { redirect: 'https://later.example/', status: 302 });
    t.clock.advance(1);
    const later = await visit(t, 'old.example', 'nothing');
    expect([later.status, later.headers.get('location')]).toEqual([302, 'https://later.example/']);
    expect(old.asked.get('nothing')).toBe(3);
  });

  once('known slugs never ask the upstream, nor do slugs of a domain without one', async () => {
    const made = await apiExpecting(t, admin, 'POST', '/links', {
      destination: 'https://known.example/',
      slug: 'known1',
      domain: 'old.example',
    });
    const before = old.total;
    for (let i = 0; i < 5; i++) expect((await visit(t, 'old.example', 'known1')).status).toBe(302);
    expect((await visit(t, 'sl.test', 'unknown-here')).status).toBe(404);
    expect(old.total).toBe(before);
    expect(made.slug).toBe('known1');
  });

  once('concurrent visits of one slug wait for one question', async () => {
    old.replies.set('burst', { redirect: 'https://burst.example/' });
    const answers = await Promise.all(Array.from({ length: 8 }, () => visit(t, 'old.example', 'burst')));
    expect(answers.map((r) => [r.status, r.headers.get('location')])).toEqual(
      Array(8).fill([302, 'https://burst.example/']),
    );
    expect(old.asked.get('burst')).toBe(1);
    expect(await linkBySlug(t, admin, 'old.example', 'burst')).toHaveLength(1);
  });

  once('an upstream that is down or too slow answers as an unknown slug', async () => {
    const down = startFakeUpstream();
    await down.stop();
    await apiExpecting(t, admin, 'PATCH', '/domains/lost.example', { upstream: down.origin });
    const refused = await visit(t, 'lost.example', 'downslug');
    expect([refused.status, refused.headers.get('location')]).toEqual([302, 'https://home.example/missing']);
    // Slow: held past the deadline (shortened here; 3 s in production).
    t.deps.readThrough.limits.timeoutMs = 50;
    await apiExpecting(t, admin, 'PATCH', '/domains/lost.example', { upstream: old.origin });
    old.replies.set('slowslug', 'hold');
    const failedBefore = t.deps.readThrough.stats.failed;
    const slow = await visit(t, 'old.example', 'slowslug');
    expect(slow.status).toBe(404);
    expect(t.deps.readThrough.stats.failed).toBe(failedBefore + 1);
    t.deps.readThrough.limits.timeoutMs = 3000;
  });

  once('a scan of random slugs: at most the bound asked at once, the rest answered unknown at once', async () => {
    const scan = startFakeUpstream();
    await apiExpecting(t, admin, 'POST', '/domains', { origin: 'https://scan.example' });
    await apiExpecting(t, admin, 'PATCH', '/domains/scan.example', { upstream: scan.origin });
    const bound = t.deps.readThrough.limits.inFlight;
    const slugs = Array.from({ length: bound * 4 }, (_, i) => `scan${i}`);
    for (const slug of slugs) scan.replies.set(slug, 'hold');
    const overBefore = t.deps.readThrough.stats.overBound;
    const answers = slugs.map((slug) => visit(t, 'scan.example', slug));
    await waitUntil(() => scan.inFlight === bound, `${bound} questions held by the upstream`);
    expect(t.deps.readThrough.stats.overBound - overBefore).toBe(slugs.length - bound);
    scan.release();
    expect((await Promise.all(answers)).map((r) => r.status)).toEqual(Array(slugs.length).fill(404));
    expect([scan.maxInFlight, scan.total]).toEqual([bound, bound]);
    await scan.stop();
  });

  once(
    'an upstream answering at once: at most perSecond questions begun a second, the rest answered unknown',
    async () => {
      const fast = startFakeUpstream();
      await apiExpecting(t, admin, 'POST', '/domains', { origin: 'https://fast.example' });
      await apiExpecting(t, admin, 'PATCH', '/domains/fast.example', { upstream: fast.origin });
      const limits = t.deps.readThrough.limits;
      const perSecond = limits.perSecond;
      limits.perSecond = 3;
      try {
        // One at a time: the bound in flight is never reached, each answered 404 before the next.
        // A second of the clock refills the turns (the clock moves only by hand here).
        t.clock.advance(1000);
        const statuses: number[] = [];
        for (let i = 0; i < 10; i++) statuses.push((await visit(t, 'fast.example', `fast${i}`)).status);
        expect(statuses).toEqual(Array(10).fill(404));
        expect(fast.total).toBe(3);
        t.clock.advance(1000);
        for (let i = 10; i < 15; i++) await visit(t, 'fast.example', `fast${i}`);
        expect(fast.total).toBe(6);
      } finally {
        limits.perSecond = perSecond;
        // The turns full again for the tests after this one.
        t.clock.advance(1000);
        await fast.stop();
      }
    },
  );

  once('/metrics counts the questions by outcome, and those in flight', async () => {
    const res = await t.app.handle(
      new Request('http://localhost/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }),
    );
    const text = await res.text();
    const node = `node="${t.deps.config.nodeId}"`;
    const sample = (series: string) => {
      const named = series.endsWith('{}') ? `${series.slice(0, -1)}${node}}` : series.replace('}', `,${node}}`);
      const line = text.split('\n').find((l) => l.startsWith(`${named} `));
      return line === undefined ? null : Number(line.slice(named.length + 1));
    };
    const s = t.deps.readThrough.stats;
    expect(s.created).toBeGreaterThan(0);
    expect(s.missing).toBeGreaterThan(0);
    expect({
      created: sample('slink_read_through_total{outcome="created"}'),
      joined: sample('slink_read_through_total{outcome="joined"}'),
      missing: sample('slink_read_through_total{outcome="missing"}'),
      failed: sample('slink_read_through_total{outcome="failed"}'),
      overBound: sample('slink_read_through_total{outcome="over_bound"}'),
      recalled: sample('slink_read_through_total{outcome="recalled"}'),
      inFlight: sample('slink_read_through_in_flight{}'),
    }).toEqual({ ...s, asked: undefined, inFlight: 0 } as never);
  });

  once('a Location no link may have is a miss: another scheme, this Slink itself', async () => {
    old.replies.set('script', { redirect: 'javascript:alert(1)' });
    old.replies.set('loop', { redirect: 'https://old.example/elsewhere' });
    old.replies.set('relative', { redirect: '/landing?x=1', status: 307 });
    expect((await visit(t, 'old.example', 'script')).status).toBe(404);
    expect((await visit(t, 'old.example', 'loop')).status).toBe(404);
    expect((await visit(t, 'old.example', 'script')).status).toBe(404);
    expect([old.asked.get('script'), old.asked.get('loop')]).toEqual([1, 1]);
    // A relative Location is the old service's own page.
    const relative = await visit(t, 'old.example', 'relative');
    expect([relative.status, relative.headers.get('location')]).toEqual([302, `${old.origin}/landing?x=1`]);
  });

  once("an upstream on one of this Slink's own hosts is refused, in words about read-through", async () => {
    const res = await api(t, 'PATCH', '/domains/old.example', { key: admin, body: { upstream: 'https://sl.test' } });
    expect({ status: res.status, error: res.body.error }).toEqual({
      status: 400,
      error: {
        code: 'invalid_request',
        field: 'upstream',
        message:
          'upstream points at this Slink itself (sl.test): read-through would ask itself for the slugs it does not know',
      },
    });
  });

  once('a slug the upstream redirects to itself makes no link: a failure, asked again after a minute', async () => {
    old.replies.set('itself', { redirect: '/itself', status: 302 });
    old.replies.set('itself-again', { redirect: `${old.origin}/itself-again?from=old` });
    const failedBefore = t.deps.readThrough.stats.failed;
    for (const slug of ['itself', 'itself-again']) {
      const res = await visit(t, 'old.example', slug);
      expect({ slug, status: res.status, links: await linkBySlug(t, admin, 'old.example', slug) }).toEqual({
        slug,
        status: 404,
        links: [],
      });
    }
    expect(t.deps.readThrough.stats.failed).toBe(failedBefore + 2);
  });
});

describe('private addresses', () => {
  test('an upstream on a loopback address is refused unless SLINK_UPSTREAM_ALLOW_PRIVATE=1: at PATCH, and at each question', async () => {
    const old = startFakeUpstream();
    const t = await makeTestApp();
    try {
      const admin = (await makeKey(t, 'write', { superuser: true })).key;
      await apiExpecting(t, admin, 'POST', '/domains', { origin: 'https://old.example' });
      const res = await api(t, 'PATCH', '/domains/old.example', { key: admin, body: { upstream: old.origin } });
      expect([res.status, res.body.error.code, res.body.error.field]).toEqual([400, 'invalid_request', 'upstream']);
      expect(res.body.error.message).toContain('SLINK_UPSTREAM_ALLOW_PRIVATE=1');
      // A name that led elsewhere when it was set is checked again when asked: the same refusal.
      old.replies.set('inside', { redirect: 'https://shop.example/' });
      const asked = await askUpstream(old.origin, 'inside', { timeoutMs: 3000, allowPrivate: false });
      expect(asked).toEqual({ kind: 'failed', reason: '127.0.0.1 is an internal address, refused' });
      expect(old.total).toBe(0);
      expect(await askUpstream(old.origin, 'inside', { timeoutMs: 3000, allowPrivate: true })).toEqual({
        kind: 'found',
        location: 'https://shop.example/',
      });
    } finally {
      await old.stop();
      await disposeTestApp(t);
    }
  });
});

describe('several PostgreSQL nodes', () => {
  test('the same slug asked on two nodes at once makes one link, which every node answers', async () => {
    const old = startFakeUpstream();
    const cluster = await startNodes(3, { SLINK_UPSTREAM_ALLOW_PRIVATE: '1' });
    const [a, b, c] = cluster.nodes as [TestApp, TestApp, TestApp];
    try {
      const admin = (await makeKey(a, 'write', { superuser: true })).key;
      await domainWithUpstream(a, admin, 'old.example', old.origin);
      for (const n of [b, c]) await n.deps.follower!.caughtUp();
      for (let i = 0; i < 5; i++) old.replies.set(`race${i}`, { redirect: `https://race.example/${i}` });
      const answers = await Promise.all(
        [0, 1, 2, 3, 4].flatMap((i) => [visit(a, 'old.example', `race${i}`), visit(b, 'old.example', `race${i}`)]),
      );
      expect(answers.map((r) => [r.status, r.headers.get('location')])).toEqual(
        [0, 1, 2, 3, 4].flatMap((i) => Array(2).fill([302, `https://race.example/${i}`])),
      );
      for (let i = 0; i < 5; i++) expect(await linkBySlug(a, admin, 'old.example', `race${i}`)).toHaveLength(1);
      // Each slug: one node made the link, the other lost at the unique index and answered with it.
      const made = a.deps.readThrough.stats.created + b.deps.readThrough.stats.created;
      const joined = a.deps.readThrough.stats.joined + b.deps.readThrough.stats.joined;
      expect([made, joined]).toEqual([5, 5]);
      // The third node never asked: the links reach it through the change feed.
      await c.deps.follower!.caughtUp();
      for (let i = 0; i < 5; i++) {
        const res = await visit(c, 'old.example', `race${i}`);
        expect([res.status, res.headers.get('location')]).toEqual([302, `https://race.example/${i}`]);
        expect(old.asked.get(`race${i}`)).toBeLessThanOrEqual(2);
      }
      for (const n of [a, b, c]) await flush(n);
      const counts = await Promise.all(
        [0, 1, 2, 3, 4].map(async (i) => (await linkBySlug(a, admin, 'old.example', `race${i}`))[0] as any),
      );
      for (const link of counts)
        expect((await api(a, 'GET', `/links/${link.id}`, { key: admin })).body.clickCount).toBe(3);
    } finally {
      await old.stop();
      await cluster.close();
    }
  });

  test('a miss or a failure on one node is remembered by every node: one question per slug across them', async () => {
    const old = startFakeUpstream();
    const cluster = await startNodes(2, { SLINK_UPSTREAM_ALLOW_PRIVATE: '1' });
    const [a, b] = cluster.nodes as [TestApp, TestApp];
    try {
      const admin = (await makeKey(a, 'write', { superuser: true })).key;
      await domainWithUpstream(a, admin, 'old.example', old.origin);
      await b.deps.follower!.caughtUp();
      // A scan of random slugs through both nodes in turn: each slug asked once, on either node.
      const slugs = Array.from({ length: 6 }, (_, i) => `scan${i}`);
      old.replies.set('scan5', { status: 503 });
      for (const slug of slugs)
        for (const n of [a, b, a, b]) expect((await visit(n, 'old.example', slug)).status).toBe(404);
      expect(slugs.map((s) => old.asked.get(s))).toEqual(Array(6).fill(1));
      expect(a.deps.readThrough.stats.asked + b.deps.readThrough.stats.asked).toBe(6);
      // The other node read each answer once from the database, then from its own memory.
      expect(a.deps.readThrough.stats.recalled + b.deps.readThrough.stats.recalled).toBe(6);
      // A miss for an hour on every node, a failure for a minute: then asked again, once.
      cluster.advance(60_000);
      for (const n of [b, a]) expect((await visit(n, 'old.example', 'scan5')).status).toBe(404);
      for (const n of [b, a]) expect((await visit(n, 'old.example', 'scan0')).status).toBe(404);
      expect([old.asked.get('scan5'), old.asked.get('scan0')]).toEqual([2, 1]);
      cluster.advance(HOUR);
      old.replies.set('scan0', { redirect: 'https://later.example/' });
      const later = await visit(b, 'old.example', 'scan0');
      expect([later.status, later.headers.get('location')]).toEqual([302, 'https://later.example/']);
      expect(old.asked.get('scan0')).toBe(2);
    } finally {
      await old.stop();
      await cluster.close();
    }
  });
});
