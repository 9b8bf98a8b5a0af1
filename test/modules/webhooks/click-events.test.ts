/**
 * `clicks` events on each engine: a flushed batch is one event, recorded in the batch's
 * transaction, delivered to a real receiver as the clicks list gives the clicks (human ones only
 * unless the webhook takes bot hits), signed; none recorded while nobody takes them (no webhook
 * subscribed, no live stream open; a paused webhook's kept for it); a batch beyond the cap
 * split; the live stream's link filter.
 */
import { afterAll, afterEach, beforeEach, expect, test } from 'bun:test';
import { CLICKS_PER_EVENT } from '../../../src/modules/webhooks/outbox/click-events';
import { api, apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { expectError } from '../../helpers/schema';
import { receiverAccepts } from '../../helpers/webhook-receiver';
import { click, flushOk, UA } from '../clicks/support';

interface Received {
  url: string;
  headers: Record<string, string>;
  body: any;
  raw: string;
}
const received: Received[] = [];
const receiver = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const raw = await req.text();
    received.push({
      url: new URL(req.url).pathname,
      headers: Object.fromEntries(req.headers),
      body: JSON.parse(raw),
      raw,
    });
    return new Response('ok');
  },
});
afterAll(() => receiver.stop(true));

let t: TestApp;
let key: string;

forEachEngine((engine) => {
  beforeEach(async () => {
    t = await makeTestApp({ SLINK_WEBHOOKS_ALLOW_PRIVATE: '1', SLINK_TRUST_PROXY: '1' }, { engine });
    key = (await makeKey(t, 'write', { superuser: true })).key;
    received.length = 0;
  });
  afterEach(() => disposeTestApp(t));

  const call = (method: string, path: string, body?: unknown, status?: number) =>
    apiExpecting(t, key, method, path, body, status);
  const hook = (path: string, events: string[], bots = false) =>
    call('POST', '/webhooks', { url: `http://127.0.0.1:${receiver.port}${path}`, events, bots });
  async function send() {
    await t.deps.webhooks.pass();
    await t.deps.webhooks.settled();
  }
  const at = (path: string) => received.filter((r) => r.url === path);
  /** The clicks list of a link, oldest first, with bot hits or not. */
  async function listed(linkId: string, bots: boolean): Promise<any[]> {
    const page = await call('GET', `/links/${linkId}/clicks?limit=100${bots ? '&bots=1' : ''}`);
    return page.items.reverse();
  }
  const clickEventsRecorded = async () =>
    (await t.deps.stores.outbox.since(0, 1000, null)).filter((e) => e.type === 'clicks').length;

  test('a flushed batch is one delivery per webhook: the clicks as the list gives them, bot hits only where taken', async () => {
    const humans = await hook('/humans', ['clicks']);
    const everyone = await hook('/all', ['clicks'], true);
    await hook('/links', ['link.created']);
    const link = await call('POST', '/links', {
      destination: 'https://example.com/sale',
      slug: 'sale',
      params: { utm_source: 'x' },
    });
    await call('POST', `/links/${link.id}/variants`, { code: 'fb', params: { utm_source: 'facebook' } });
    const other = await call('POST', '/links', { destination: 'https://example.org/', slug: 'other' });
    expect(
      await click(t, '/sale', { ip: '81.2.69.142', referer: 'https://news.ycombinator.com/item', lang: 'en-GB' }),
    ).toBe(302);
    expect(await click(t, '/sale/fb', { ua: UA.safariIphone, ip: '8.8.8.8' })).toBe(302);
    expect(await click(t, '/sale', { ua: UA.googlebot, ip: '1.1.1.1' })).toBe(302);
    expect(await click(t, '/other', { ua: UA.firefoxLinux })).toBe(302);
    await flushOk(t);
    await send();

    const [toHumans] = at('/humans');
    expect(at('/humans').length).toBe(1);
    expect(await receiverAccepts(humans.secret, toHumans!.headers, toHumans!.raw)).toBe(true);
    expect(toHumans!.body.type).toBe('clicks');
    expect(toHumans!.body.id).toBe(toHumans!.headers['webhook-id']);
    const sale = await listed(link.id, false);
    const others = await listed(other.id, false);
    expect(sale.map((c) => c.variantCode)).toEqual([null, 'fb']);
    expect(sale[0]).toMatchObject({
      slug: 'sale',
      country: 'GB',
      city: 'London',
      referrer: 'news.ycombinator.com',
      bot: false,
    });
    expect(sale[1]).toMatchObject({ variantKnown: true, params: { utm_source: 'facebook' }, device: 'mobile' });
    // Exactly the records of the clicks list, written order.
    expect(toHumans!.body.data).toEqual({ clicks: [...sale, ...others].sort((a, b) => a.id - b.id) });

    const [toAll] = at('/all');
    expect(at('/all').length).toBe(1);
    expect(await receiverAccepts(everyone.secret, toAll!.headers, toAll!.raw)).toBe(true);
    const byId = (a: any, b: any) => a.id - b.id;
    const withBots = [...(await listed(link.id, true)), ...others].sort(byId);
    expect(withBots.filter((c) => c.bot).map((c) => c.browser)).toEqual(['Googlebot']);
    // The human clicks, then the bot hits.
    expect(toAll!.body.data).toEqual({
      clicks: [...withBots.filter((c) => !c.bot), ...withBots.filter((c) => c.bot)],
    });
    // Both carry the one event: the same id.
    expect(toAll!.body.id).toBe(toHumans!.body.id);
    expect(at('/links').map((r) => r.body.type)).toEqual(['link.created', 'link.created']);
  });

  test('an opted-out click (Sec-GPC) is delivered counted, never profiled: every dimension empty', async () => {
    await hook('/humans', ['clicks']);
    const link = await call('POST', '/links', { destination: 'https://example.com/gpc', slug: 'gpc' });
    const headers = {
      'user-agent': UA.chromeWin,
      'x-forwarded-for': '81.2.69.142',
      referer: 'https://news.ycombinator.com/item',
      'accept-language': 'en-GB',
      'sec-gpc': '1',
    };
    const res = await t.app.handle(new Request('https://sl.test/gpc', { headers }));
    expect(res.status).toBe(302);
    await flushOk(t);
    await send();
    const [delivery] = at('/humans');
    expect(delivery!.body.data.clicks).toHaveLength(1);
    expect(delivery!.body.data.clicks[0]).toMatchObject({
      linkId: link.id,
      country: null,
      city: null,
      device: null,
      os: null,
      browser: null,
      referrer: null,
      language: null,
      bot: false,
    });
    for (const secret of ['81.2.69.142', 'news.ycombinator.com', 'en-GB', 'Chrome', 'London'])
      expect(delivery!.raw).not.toContain(secret);
  });

  test('a batch of bot hits only is delivered to the webhooks that take them, and to no other', async () => {
    const humans = await hook('/humans', ['clicks']);
    await hook('/all', ['clicks'], true);
    await call('POST', '/links', { destination: 'https://example.com/', slug: 'b' });
    expect(await click(t, '/b', { ua: UA.googlebot })).toBe(302);
    expect(await click(t, '/b', { ua: UA.curl })).toBe(302);
    await flushOk(t);
    await send();
    expect(at('/humans')).toEqual([]);
    expect(at('/all').map((r) => r.body.data.clicks.map((c: any) => c.bot))).toEqual([[true, true]]);
    expect((await call('GET', `/webhooks/${humans.id}/deliveries`)).items).toEqual([]);
  });

  test('nobody taking clicks events records none; a webhook subscribing, or a live stream open, makes them recorded', async () => {
    await call('POST', '/links', { destination: 'https://example.com/', slug: 'n' });
    await hook('/links', ['link.created', 'link.updated']);
    expect(await click(t, '/n')).toBe(302);
    await flushOk(t);
    expect(await clickEventsRecorded()).toBe(0);

    // A live stream open somewhere: recorded even without a webhook.
    const stream = await t.app.handle(
      new Request('https://app.sl.test/api/v1/events', { headers: { authorization: `Bearer ${key}` } }),
    );
    expect(stream.status).toBe(200);
    expect(await click(t, '/n')).toBe(302);
    await flushOk(t);
    expect(await clickEventsRecorded()).toBe(1);
    await stream.body!.cancel();

    // A paused webhook takes them too (kept for when it is enabled again), and gets them then.
    t.clock.advance(61_000); // the stream's word that it listens has run out
    expect(await click(t, '/n')).toBe(302);
    await flushOk(t);
    expect(await clickEventsRecorded()).toBe(1);
    const paused = await hook('/paused', ['clicks']);
    await call('PATCH', `/webhooks/${paused.id}`, { active: false });
    expect(await click(t, '/n')).toBe(302);
    await flushOk(t);
    expect(await clickEventsRecorded()).toBe(2);
    await send();
    expect(at('/paused')).toEqual([]);
    await call('PATCH', `/webhooks/${paused.id}`, { active: true });
    expect(await click(t, '/n')).toBe(302);
    await flushOk(t);
    expect(await clickEventsRecorded()).toBe(3);
    await send();
    expect(at('/paused').map((r) => r.body.data.clicks.length)).toEqual([1, 1]);
  });

  test(`a batch beyond ${CLICKS_PER_EVENT} clicks is split into events of at most ${CLICKS_PER_EVENT}`, async () => {
    await hook('/humans', ['clicks']);
    await call('POST', '/links', { destination: 'https://example.com/', slug: 'many' });
    for (let i = 0; i < CLICKS_PER_EVENT + 5; i++) await click(t, '/many', { ip: `81.2.69.${i % 250}` });
    await flushOk(t);
    await send();
    const sizes = at('/humans').map((r) => r.body.data.clicks.length);
    expect(sizes.sort((a, b) => b - a)).toEqual([CLICKS_PER_EVENT, 5]);
    const ids = at('/humans').flatMap((r) => r.body.data.clicks.map((c: any) => c.id));
    expect(new Set(ids).size).toBe(CLICKS_PER_EVENT + 5);
  });

  test('delivered clicks are dropped after an hour (the event stays in the log; redelivery says 409); pending ones are kept', async () => {
    const ok = await hook('/humans', ['clicks']);
    const failing = await call('POST', '/webhooks', {
      url: `http://127.0.0.1:${receiver.port}/fail`,
      events: ['clicks'],
    });
    await call('POST', '/links', { destination: 'https://example.com/', slug: 'p' });
    expect(await click(t, '/p')).toBe(302);
    await flushOk(t);
    // The failing one never got it: its receiver is a closed port now.
    await call('PATCH', `/webhooks/${failing.id}`, { url: 'http://127.0.0.1:9/closed' });
    await send();
    t.clock.advance(3_600_001);
    const prune = () => t.deps.stores.outbox.prune(t.clock.now() - 7 * 86_400_000, t.clock.now() - 3_600_000);
    await prune();
    // Still pending for the failing webhook: kept whole.
    const [kept] = (await t.deps.stores.outbox.since(0, 10, null)).filter((e) => e.type === 'clicks');
    expect(JSON.parse(kept!.data!).clicks.length).toBe(1);
    // Given up on (deleted webhook): nothing pending any more, the clicks go.
    await call('DELETE', `/webhooks/${failing.id}`);
    await prune();
    const [dropped] = (await t.deps.stores.outbox.since(0, 10, null)).filter((e) => e.type === 'clicks');
    expect({ data: dropped!.data, botData: dropped!.botData, id: dropped!.id }).toEqual({
      data: null,
      botData: null,
      id: kept!.id,
    });
    const log = await call('GET', `/webhooks/${ok.id}/deliveries`);
    expect(log.items.map((a: any) => [a.eventId, a.type, a.statusCode])).toEqual([[kept!.id, 'clicks', 200]]);
    const res = await api(t, 'POST', `/webhooks/${ok.id}/deliveries/${log.items[0].deliveryId}/retry`, { key });
    expectError(res, 409, 'conflict', 'deliveryId');
  });

  test('the sender is woken by the flush that recorded clicks events, not left to its poll', async () => {
    await hook('/humans', ['clicks']);
    await call('POST', '/links', { destination: 'https://example.com/', slug: 'w' });
    let woken = 0;
    const wake = t.deps.webhooks.wake.bind(t.deps.webhooks);
    t.deps.webhooks.wake = () => {
      woken++;
      wake();
    };
    expect(await click(t, '/w')).toBe(302);
    await flushOk(t);
    expect(woken).toBe(1);
  });
});
