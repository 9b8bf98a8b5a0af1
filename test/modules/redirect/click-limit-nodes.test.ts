/**
 * `clickLimit` across several nodes on one PostgreSQL database (docs/behaviour.md, "Humans and
 * bots"): three in-process nodes (each its own deps, slug index and click pipeline) on the same
 * database let exactly the limit through between them, bots never use it up, a raised limit lets
 * exactly the difference through, a redirect asks the database only for a human click on a link
 * with a limit, a node admitted by the shared count raises its own count to it (so it answers
 * 410 from memory once the limit is reached), and while the database is down each node decides
 * from its own count.
 *
 * A link written through one node is made known to the others with `linkIndex.refresh`, as
 * the cross-node change feed would.
 */
import { afterEach, describe, expect, spyOn, test } from 'bun:test';
import { openPostgres, type Pg } from '../../../src/db/postgres/client';
import { createRedirect } from '../../../src/modules/redirect/redirect';
import { api, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';
import { startPostgres, stopPostgres } from '../../helpers/postgres';
import { storedClicks, storedRows } from '../../helpers/stored';
import { waitUntil } from '../../helpers/wait';
import { clickRequest, flushOk, UA } from '../clicks/support';

const BOTS = [UA.googlebot, UA.curl, UA.facebook, null];
const HUMANS = [UA.chromeWin, UA.safariIphone, UA.firefoxLinux, UA.chromeAndroid];

let apps: TestApp[] = [];

afterEach(async () => {
  for (const t of apps) await disposeTestApp(t);
  apps = [];
});

/** `count` nodes on one fresh database, and a superuser's write key. */
async function nodes(count: number, wrapPostgres?: (sql: Pg) => Pg): Promise<{ nodes: TestApp[]; key: string }> {
  const first = await makeTestApp({ SLINK_TRUST_PROXY: '1' }, { engine: 'postgres', wrapPostgres });
  const address = first.deps.stores.address;
  if (address.engine !== 'postgres') throw new Error('not on PostgreSQL');
  apps = [first];
  for (let i = 1; i < count; i++)
    apps.push(
      await makeTestApp({ SLINK_TRUST_PROXY: '1' }, { engine: 'postgres', postgresUrl: address.url, wrapPostgres }),
    );
  const { key } = await makeKey(first, 'write', { superuser: true });
  return { nodes: apps, key };
}

/** Creates a link through the first node and makes every other node's slug index read it. */
async function createLink(all: TestApp[], key: string, body: Record<string, unknown>): Promise<{ id: string }> {
  const res = await api(all[0]!, 'POST', '/links', {
    key,
    body: { destination: 'https://example.com/landing', ...body },
  });
  expect(res.status).toBe(201);
  for (const t of all.slice(1)) await t.deps.linkIndex.refresh(res.body.id);
  return res.body;
}

/** PATCHes a link through `through` and makes every node's slug index read it again. */
async function patchLink(all: TestApp[], through: TestApp, key: string, id: string, body: Record<string, unknown>) {
  const res = await api(through, 'PATCH', `/links/${id}`, { key, body });
  expect(res.status).toBe(200);
  for (const t of all) await t.deps.linkIndex.refresh(id);
}

interface Shot {
  /** null: no User-Agent at all. */
  ua: string | null;
  method?: 'HEAD';
}

/**
 * Sends every shot at once, the i-th to node i mod n (round robin, as a load balancer would);
 * answers each one's status, after checking that every answer is a 302 or the 410 page.
 */
async function fire(all: TestApp[], path: string, shots: Shot[]): Promise<number[]> {
  const responses = await Promise.all(
    shots.map((s, i) =>
      all[i % all.length]!.app.handle(
        clickRequest(path, { ua: s.ua, method: s.method, ip: `198.51.${Math.floor(i / 250)}.${i % 250}` }),
      ),
    ),
  );
  const bodies = await Promise.all(responses.map((r) => r.text()));
  for (const [i, r] of responses.entries()) {
    if (r.status === 302)
      expect({ location: r.headers.get('location'), body: bodies[i] }).toEqual({
        location: 'https://example.com/landing',
        body: '',
      });
    else {
      expect(r.status).toBe(410);
      expect(bodies[i]).toContain('reached its click limit');
    }
  }
  return responses.map((r) => r.status);
}

const humans = (n: number): Shot[] => Array.from({ length: n }, (_, i) => ({ ua: HUMANS[i % HUMANS.length]! }));
const tally = (statuses: number[]) => ({
  redirected: statuses.filter((s) => s === 302).length,
  gone: statuses.filter((s) => s === 410).length,
});

/** Writes and folds every node's buffered clicks. */
async function flushAll(all: TestApp[]): Promise<void> {
  for (const t of all) await flushOk(t);
}

/** The link's clickCount as each node's API answers it. */
async function clickCounts(all: TestApp[], key: string, id: string): Promise<number[]> {
  const counts: number[] = [];
  for (const t of all) {
    const res = await api(t, 'GET', `/links/${id}`, { key });
    expect(res.status).toBe(200);
    counts.push(res.body.clickCount);
  }
  return counts;
}

/** The link's stored human and bot counters, and its stored raw clicks split the same way. */
async function stored(t: TestApp, id: string) {
  const [counters] = await storedRows(t, 'SELECT clicks, bots FROM link_counters WHERE link_id = ?', id);
  const raw = (await storedClicks(t)).filter((c) => c.link_id === id);
  return {
    clicks: Number(counters!.clicks),
    bots: Number(counters!.bots),
    rawHumans: raw.filter((c) => Number(c.bot) === 0).length,
    rawBots: raw.filter((c) => Number(c.bot) === 1).length,
  };
}

/** The link's shared click-limit count, or null when it has none yet. */
async function sharedCount(t: TestApp, id: string): Promise<number | null> {
  const [row] = await storedRows(t, 'SELECT used FROM click_limits WHERE link_id = ?', id);
  return row === undefined ? null : Number(row.used);
}

describe('clickLimit across three nodes on one PostgreSQL database', () => {
  test('500 concurrent human clicks over three nodes at clickLimit 100: exactly 100 redirect, clickCount 100', async () => {
    const { nodes: all, key } = await nodes(3);
    const link = await createLink(all, key, { slug: 'limited', clickLimit: 100 });
    const statuses = await fire(all, '/limited', humans(500));
    expect(tally(statuses)).toEqual({ redirected: 100, gone: 400 });

    await flushAll(all);
    expect(await stored(all[0]!, link.id)).toEqual({ clicks: 100, bots: 0, rawHumans: 100, rawBots: 0 });
    expect(await clickCounts(all, key, link.id)).toEqual([100, 100, 100]);
    expect(await sharedCount(all[0]!, link.id)).toBe(100);
    // Full for good, on every node.
    expect(tally(await fire(all, '/limited', humans(6)))).toEqual({ redirected: 0, gone: 6 });
  });

  test('with a fallbackUrl, every click past the limit on any node goes there (no-store), none recorded', async () => {
    const { nodes: all, key } = await nodes(3);
    const link = await createLink(all, key, { slug: 'fb', clickLimit: 20, fallbackUrl: 'https://example.com/full' });
    const responses = await Promise.all(
      humans(90).map((s, i) =>
        all[i % all.length]!.app.handle(clickRequest('/fb', { ua: s.ua, ip: `198.51.100.${i}` })),
      ),
    );
    const answers = await Promise.all(
      responses.map(async (r) => ({
        status: r.status,
        location: r.headers.get('location'),
        cacheControl: r.headers.get('cache-control'),
        body: await r.text(),
      })),
    );
    const redirect = {
      status: 302,
      location: 'https://example.com/landing',
      cacheControl: 'private, max-age=0',
      body: '',
    };
    const fallback = { status: 302, location: 'https://example.com/full', cacheControl: 'no-store', body: '' };
    expect({
      redirected: answers.filter((a) => Bun.deepEquals(a, redirect)).length,
      fallback: answers.filter((a) => Bun.deepEquals(a, fallback)).length,
    }).toEqual({ redirected: 20, fallback: 70 });

    await flushAll(all);
    expect(await stored(all[0]!, link.id)).toEqual({ clicks: 20, bots: 0, rawHumans: 20, rawBots: 0 });
    expect(await sharedCount(all[0]!, link.id)).toBe(20);
  });

  test('bots do not use the limit up: 120 bot hits, then humans mixed with bots, still exactly the limit', async () => {
    const { nodes: all, key } = await nodes(3);
    const link = await createLink(all, key, { slug: 'mixed', clickLimit: 40 });
    const botShots: Shot[] = [
      ...Array.from({ length: 90 }, (_, i) => ({ ua: BOTS[i % BOTS.length]! })),
      ...Array.from({ length: 30 }, () => ({ ua: UA.chromeWin, method: 'HEAD' as const })),
    ];
    expect(tally(await fire(all, '/mixed', botShots))).toEqual({ redirected: 120, gone: 0 });

    const shots: Shot[] = Array.from({ length: 300 }, (_, i) =>
      i % 3 === 0 ? { ua: BOTS[i % BOTS.length]! } : { ua: HUMANS[i % HUMANS.length]! },
    );
    const statuses = await fire(all, '/mixed', shots);
    const humanStatuses = statuses.filter((_, i) => i % 3 !== 0);
    const botStatuses = statuses.filter((_, i) => i % 3 === 0);
    expect(tally(humanStatuses)).toEqual({ redirected: 40, gone: 160 });
    // A bot is let through until its node knows the limit is reached, and never counted.
    const botsThrough = 120 + tally(botStatuses).redirected;

    await flushAll(all);
    expect(await stored(all[0]!, link.id)).toEqual({
      clicks: 40,
      bots: botsThrough,
      rawHumans: 40,
      rawBots: botsThrough,
    });
    expect(await clickCounts(all, key, link.id)).toEqual([40, 40, 40]);
  });

  test('a limit raised from 100 to 150 lets exactly 50 more through; removed and set again, clicks meanwhile count', async () => {
    const { nodes: all, key } = await nodes(3);
    const [a, b, c] = all as [TestApp, TestApp, TestApp];
    const link = await createLink(all, key, { slug: 'raised', clickLimit: 100 });
    expect(tally(await fire(all, '/raised', humans(150)))).toEqual({ redirected: 100, gone: 50 });

    await patchLink(all, b, key, link.id, { clickLimit: 150 });
    expect(tally(await fire(all, '/raised', humans(300)))).toEqual({ redirected: 50, gone: 250 });
    await flushAll(all);
    expect(await clickCounts(all, key, link.id)).toEqual([150, 150, 150]);

    // No limit: every click redirects, and none asks the shared count.
    await patchLink(all, c, key, link.id, { clickLimit: null });
    expect(tally(await fire(all, '/raised', humans(30)))).toEqual({ redirected: 30, gone: 0 });
    expect(await sharedCount(a, link.id)).toBe(150);
    await flushAll(all);

    // A limit again: the 180 clicks so far count, whoever let them through.
    await patchLink(all, a, key, link.id, { clickLimit: 200 });
    expect(tally(await fire(all, '/raised', humans(90)))).toEqual({ redirected: 20, gone: 70 });
    await flushAll(all);
    expect(await stored(a, link.id)).toEqual({ clicks: 200, bots: 0, rawHumans: 200, rawBots: 0 });
    expect(await clickCounts(all, key, link.id)).toEqual([200, 200, 200]);
  });

  test('a node that learns the limit from another counts it: its own count rises, and it answers 410 without asking', async () => {
    const { nodes: all, key } = await nodes(2);
    const [a, b] = all as [TestApp, TestApp];
    const link = await createLink(all, key, { slug: 'learned', clickLimit: 10 });
    expect(tally(await fire([a], '/learned', humans(10)))).toEqual({ redirected: 10, gone: 0 });
    expect(b.deps.linkIndex.getById(link.id)!.counters.humanClicks).toBe(0);
    // b still counts 0: it asks, is refused, and now knows.
    expect(tally(await fire([b], '/learned', humans(1)))).toEqual({ redirected: 0, gone: 1 });
    expect(b.deps.linkIndex.getById(link.id)!.counters.humanClicks).toBe(10);
  });
});

/**
 * Counts the statements sent through a pool: every tagged-template call and every `unsafe`
 * (fragments built inside a statement count too; a redirect builds none).
 */
function counting(counter: { statements: number }): (sql: Pg) => Pg {
  return (sql) =>
    new Proxy(sql, {
      apply(target, self, args) {
        counter.statements++;
        return Reflect.apply(target, self, args);
      },
      get(target, prop) {
        const value = Reflect.get(target, prop, target);
        if (prop === 'unsafe')
          return (...args: unknown[]) => {
            counter.statements++;
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
}

describe('the database round trip is for human clicks on limited links only', () => {
  test('statements per redirect: one for a limited human click, none for anything else', async () => {
    const counter = { statements: 0 };
    const { nodes: all, key } = await nodes(1, counting(counter));
    const t = all[0]!;
    await createLink(all, key, { slug: 'free' });
    await createLink(all, key, { slug: 'capped', clickLimit: 5 });
    /** Statements `shots` cost, sent one after another. */
    const cost = async (path: string, shots: Shot[]) => {
      const before = counter.statements;
      for (const s of shots) await fire([t], path, [s]);
      return counter.statements - before;
    };
    const bots: Shot[] = [...BOTS.map((ua) => ({ ua })), { ua: UA.chromeWin, method: 'HEAD' }];
    const buffered = t.deps.clicks.buffer.length;
    expect(await cost('/free', humans(20))).toBe(0);
    expect(await cost('/free', bots)).toBe(0);
    expect(await cost('/capped', bots)).toBe(0);
    expect(await cost('/capped', humans(5))).toBe(5);
    // At the limit, the node's own count answers.
    expect(await cost('/capped', humans(5))).toBe(0);
    expect(t.deps.clicks.buffer.length - buffered).toBe(20 + 5 + 5 + 5);
  });

  test('a link without a limit redirects synchronously, with the database stopped, and its click is buffered', async () => {
    const { nodes: all, key } = await nodes(1);
    const t = all[0]!;
    const free = await createLink(all, key, { slug: 'free' });
    await createLink(all, key, { slug: 'capped', clickLimit: 5 });
    const redirect = createRedirect(t.deps);
    let limited: Response | Promise<Response>;
    await stopPostgres();
    try {
      const answer = redirect(clickRequest('/free'), null, 'free', null);
      expect(answer).toBeInstanceOf(Response);
      expect((answer as Response).status).toBe(302);
      expect(t.deps.clicks.buffer.length).toBe(1);
      // A limited link's human click is the one that asks: a promise.
      limited = redirect(clickRequest('/capped'), null, 'capped', null);
      expect(limited).toBeInstanceOf(Promise);
      // Decided from the node's own count when the database does not answer.
      expect((await limited).status).toBe(302);
    } finally {
      await startPostgres();
    }
    await flushAfterOutage(t);
    expect((await stored(t, free.id)).rawHumans).toBe(1);
    expectOutageLogged(t);
  });

  test('a link deleted while its click awaits the shared count answers 404 and records nothing', async () => {
    const { nodes: all, key } = await nodes(1);
    const t = all[0]!;
    const link = await createLink(all, key, { slug: 'going', clickLimit: 5 });
    const answer = createRedirect(t.deps)(clickRequest('/going'), null, 'going', null);
    expect(answer).toBeInstanceOf(Promise);
    t.deps.linkIndex.remove(link.id);
    const res = await answer;
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('<p class="code">404</p>');
    expect(t.deps.clicks.buffer.length).toBe(0);
  });
});

const OUTAGE_LOG = 'click limits: the shared count cannot be reached; each node decides from its own count';

/**
 * After the database is back: writes the node's buffered clicks (a first write may meet a
 * connection closed by the restart, and is retried as the flusher's timer would).
 */
async function flushAfterOutage(t: TestApp): Promise<void> {
  for (let i = 0; i < 30 && !(await t.deps.clicks.flusher.flush()); i++);
  expect(t.deps.clicks.buffer.length).toBe(0);
}

/**
 * The node logged once that it decided alone (when it had to), and nothing else but the click
 * writes the outage failed; the errors are then cleared.
 */
function expectOutageLogged(t: TestApp, decidedAlone = true): void {
  expect(t.errors.filter((e) => e.startsWith(OUTAGE_LOG)).length).toBe(decidedAlone ? 1 : 0);
  const expected = (e: string) =>
    e.startsWith(OUTAGE_LOG) || e.startsWith('click flush failed') || e.startsWith('following link changes failed');
  expect(t.errors.filter((e) => !expected(e))).toEqual([]);
  t.errors.length = 0;
}

describe('while the database cannot be reached', () => {
  test('each node decides from its own count; once it is back, what they let through counts', async () => {
    const { nodes: all, key } = await nodes(3);
    const [a, b, c] = all as [TestApp, TestApp, TestApp];
    const link = await createLink(all, key, { slug: 'outage', clickLimit: 20 });
    expect(tally(await fire([a], '/outage', humans(5)))).toEqual({ redirected: 5, gone: 0 });

    await stopPostgres();
    try {
      // a counted 5 of its own: 15 more; b counted none: 20. Exact per node, not across them.
      expect(tally(await fire([a], '/outage', humans(40)))).toEqual({ redirected: 15, gone: 25 });
      expect(tally(await fire([b], '/outage', humans(40)))).toEqual({ redirected: 20, gone: 20 });
    } finally {
      await startPostgres();
    }
    for (const t of all) await flushAfterOutage(t);
    // c never counted a click of it, and is refused: the 40 stored clicks are past the limit.
    expect(tally(await fire([c], '/outage', humans(10)))).toEqual({ redirected: 0, gone: 10 });
    expect(await stored(a, link.id)).toEqual({ clicks: 40, bots: 0, rawHumans: 40, rawBots: 0 });
    expect(await clickCounts(all, key, link.id)).toEqual([40, 40, 40]);
    expectOutageLogged(a);
    expectOutageLogged(b);
    expectOutageLogged(c, false);
  });

  test('a shared count that does not answer in time: the node decides alone; the late answer counts that same click', async () => {
    const { nodes: all, key } = await nodes(1);
    const t = all[0]!;
    const link = await createLink(all, key, { slug: 'slow', clickLimit: 3 });
    expect(tally(await fire([t], '/slow', humans(1)))).toEqual({ redirected: 1, gone: 0 });
    const address = t.deps.stores.address;
    if (address.engine !== 'postgres') throw new Error('not on PostgreSQL');
    // Another session holds the link's row, as a stalled server would: the raise waits past REACH_TIMEOUT_MS.
    const holder = openPostgres(address.url, 1);
    try {
      await holder.begin(async (tx) => {
        await tx`SELECT used FROM click_limits WHERE link_id = ${link.id} FOR UPDATE`;
        expect(tally(await fire([t], '/slow', humans(1)))).toEqual({ redirected: 1, gone: 0 });
      });
    } finally {
      await holder.close();
    }
    // The raise goes through once the row is free (it was waiting on the lock, and commits after
    // the holder's end): the shared count and the node's then agree on 2.
    await waitUntil(async () => (await sharedCount(t, link.id)) === 2, 'the late raise to be counted');
    expect(await sharedCount(t, link.id)).toBe(2);
    expect(tally(await fire([t], '/slow', humans(5)))).toEqual({ redirected: 1, gone: 4 });
    await flushOk(t);
    expect(await stored(t, link.id)).toEqual({ clicks: 3, bots: 0, rawHumans: 3, rawBots: 0 });
    expectOutageLogged(t);
  });
});

describe("a node's own count after clicks another node let through", () => {
  test('a click admitted by the shared count raises the node to that count, so the node then answers 410 without asking', async () => {
    const { nodes: all, key } = await nodes(2);
    const [a, b] = all as [TestApp, TestApp];
    const link = await createLink(all, key, { slug: 'raised-own', clickLimit: 4 });
    const limits = a.deps.stores.clickLimits;
    if (limits === null) throw new Error('no shared click-limit count on PostgreSQL');
    const reserve = spyOn(limits, 'reserve');
    try {
      expect(tally(await fire([b], '/raised-own', humans(3)))).toEqual({ redirected: 3, gone: 0 });
      // a counts none of b's clicks yet; its one click is the fourth the shared count admits.
      expect(tally(await fire([a], '/raised-own', humans(1)))).toEqual({ redirected: 1, gone: 0 });
      expect(reserve).toHaveBeenCalledTimes(1);
      expect(await sharedCount(a, link.id)).toBe(4);
      expect(
        { ownCount: a.deps.linkIndex.getById(link.id)!.counters.humanClicks },
        'a node admitted by the shared count raises its own count to the shared count (not its own count + 1)',
      ).toEqual({ ownCount: 4 });
      // The limit is reached and a knows it: it answers 410 from memory, without asking again.
      expect(tally(await fire([a], '/raised-own', humans(3)))).toEqual({ redirected: 0, gone: 3 });
      expect(
        { reserveCallsAfterLimitKnown: reserve.mock.calls.length - 1 },
        'a node that knows the limit is reached answers 410 from memory, without asking the shared count',
      ).toEqual({ reserveCallsAfterLimitKnown: 0 });
    } finally {
      reserve.mockRestore();
    }
  });
});
