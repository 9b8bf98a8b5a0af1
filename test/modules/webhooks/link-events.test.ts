/**
 * Link events delivered end to end on each engine, to a real receiver on loopback (private
 * addresses allowed for it): link.created, link.updated and link.deleted with the Link (or its
 * id, slug and short URL) as data, signed so that an independent check accepts them; a receiver that fails twice
 * then succeeds (a receiver's outage and disabling: outage.test.ts); the delivery log; a
 * delivery retried by hand.
 */
import { afterAll, afterEach, beforeEach, expect, test } from 'bun:test';
import { api, apiExpecting, disposeTestApp, makeKey, makeTestApp, T0, type TestApp } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { expectError } from '../../helpers/schema';
import { receiverAccepts } from '../../helpers/webhook-receiver';

interface Received {
  headers: Record<string, string>;
  body: any;
  raw: string;
}
const received: Received[] = [];
let answer: () => number = () => 200;
const receiver = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const raw = await req.text();
    received.push({ headers: Object.fromEntries(req.headers), body: JSON.parse(raw), raw });
    return new Response('noted', { status: answer() });
  },
});
afterAll(() => receiver.stop(true));

let t: TestApp;
let key: string;

forEachEngine((engine) => {
  beforeEach(async () => {
    t = await makeTestApp({ SLINK_WEBHOOKS_ALLOW_PRIVATE: '1' }, { engine });
    key = (await makeKey(t, 'write', { superuser: true })).key;
    received.length = 0;
    answer = () => 200;
  });
  afterEach(() => disposeTestApp(t));

  const call = (method: string, path: string, body?: unknown, status?: number) =>
    apiExpecting(t, key, method, path, body, status);
  const hook = (events: string[]) =>
    call('POST', '/webhooks', { url: `http://127.0.0.1:${receiver.port}/hook`, events });
  /** One pass of the sender, and every attempt it started recorded. */
  async function send() {
    await t.deps.webhooks.pass();
    await t.deps.webhooks.settled();
  }

  test('created, updated and deleted links are delivered with their Link, signed, each event once', async () => {
    const webhook = await hook(['link.created', 'link.updated', 'link.deleted']);
    const link = await call('POST', '/links', { destination: 'https://example.com/a', slug: 'evt' });
    t.clock.advance(1000);
    const updated = await call('PATCH', `/links/${link.id}`, { title: 'Renamed' });
    t.clock.advance(1000);
    await call('DELETE', `/links/${link.id}`);
    await send();
    // Attempts run at once: they may arrive in any order; each body's timestamp orders them.
    const inOrder = [...received].sort((x, y) => x.body.timestamp.localeCompare(y.body.timestamp));
    expect(inOrder.map((r) => r.body.type)).toEqual(['link.created', 'link.updated', 'link.deleted']);
    const [created, changed, deleted] = inOrder as [Received, Received, Received];
    expect(created.body).toEqual({
      id: created.headers['webhook-id'],
      type: 'link.created',
      timestamp: new Date(T0).toISOString(),
      data: link,
    });
    expect(changed.body.data).toEqual(updated);
    expect(changed.body.timestamp).toBe(new Date(T0 + 1000).toISOString());
    // A deletion carries what identified the link: its id, slug and short URL, its domain and project.
    expect(deleted.body.data).toEqual({
      id: link.id,
      slug: 'evt',
      shortUrl: 'https://sl.test/evt',
      domain: 'sl.test',
      projectId: null,
    });
    for (const r of received) {
      expect(r.headers['webhook-id']).toMatch(/^evt_/);
      expect(r.headers['webhook-timestamp']).toBe(String(Math.floor((T0 + 2000) / 1000)));
      expect(await receiverAccepts(webhook.secret, r.headers, r.raw)).toBe(true);
    }
    expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(3);
    // Delivered: another pass sends nothing.
    await send();
    expect(received).toHaveLength(3);
  });

  test('a rotated secret is answered once; for 24 hours deliveries carry both signatures, then the new one only', async () => {
    const webhook = await hook(['link.created']);
    t.clock.advance(1000);
    const rotated = await call('POST', `/webhooks/${webhook.id}/rotate-secret`, undefined, 200);
    expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(rotated.secret).not.toBe(webhook.secret);
    const { secret: _secret, ...shown } = rotated;
    expect(shown).toEqual({
      ...webhook,
      secret: undefined,
      previousSecretUntil: T0 + 1000 + 86_400_000,
      updatedAt: T0 + 1000,
    });
    const got = JSON.stringify(await call('GET', `/webhooks/${webhook.id}`));
    expect([got.includes(rotated.secret), got.includes(webhook.secret)]).toEqual([false, false]);
    expect((await api(t, 'POST', '/webhooks/whk_none/rotate-secret', { key })).status).toBe(404);

    await call('POST', '/links', { destination: 'https://example.com/a' });
    await send();
    const [both] = received;
    expect(both!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(await receiverAccepts(rotated.secret, both!.headers, both!.raw)).toBe(true);
    expect(await receiverAccepts(webhook.secret, both!.headers, both!.raw)).toBe(true);

    t.clock.advance(86_400_000);
    expect((await call('GET', `/webhooks/${webhook.id}`)).previousSecretUntil).toBeNull();
    await call('POST', '/links', { destination: 'https://example.com/b' });
    await send();
    const newOnly = received[1]!;
    expect(newOnly.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(await receiverAccepts(rotated.secret, newOnly.headers, newOnly.raw)).toBe(true);
    expect(await receiverAccepts(webhook.secret, newOnly.headers, newOnly.raw)).toBe(false);
  });

  test('a test event: 202, delivered signed to that webhook alone, in its log, never in the live stream; 409 while disabled', async () => {
    const webhook = await hook(['link.deleted']);
    const other = await hook(['link.created']);
    const res = await api(t, 'POST', `/webhooks/${webhook.id}/test`, { key });
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(['deliveryId', 'eventId']);
    await send();
    expect(received).toHaveLength(1);
    const [test] = received;
    expect(test!.body).toEqual({
      id: res.body.eventId,
      type: 'webhook.test',
      timestamp: new Date(T0).toISOString(),
      data: { webhookId: webhook.id, message: expect.stringContaining('test event') },
    });
    expect(await receiverAccepts(webhook.secret, test!.headers, test!.raw)).toBe(true);
    expect((await call('GET', `/webhooks/${webhook.id}/deliveries`)).items).toEqual([
      expect.objectContaining({ deliveryId: res.body.deliveryId, type: 'webhook.test', statusCode: 200, attempt: 1 }),
    ]);
    expect((await call('GET', `/webhooks/${other.id}/deliveries`)).items).toEqual([]);
    expect(await t.deps.stores.outbox.since(0, 100, null)).toEqual([]);

    await call('PATCH', `/webhooks/${webhook.id}`, { active: false });
    expectError(await api(t, 'POST', `/webhooks/${webhook.id}/test`, { key }), 409, 'conflict', 'active');
    expect((await api(t, 'POST', '/webhooks/whk_none/test', { key })).status).toBe(404);
  });

  test('only subscribed types; nothing sent while paused; events before a webhook existed are not its own', async () => {
    await call('POST', '/links', { destination: 'https://example.com/before' });
    const webhook = await hook(['link.deleted']);
    const link = await call('POST', '/links', { destination: 'https://example.com/a' });
    await call('DELETE', `/links/${link.id}`);
    await send();
    expect(received.map((r) => r.body)).toEqual([
      expect.objectContaining({
        type: 'link.deleted',
        data: { id: link.id, slug: link.slug, shortUrl: link.shortUrl, domain: 'sl.test', projectId: null },
      }),
    ]);
    await call('PATCH', `/webhooks/${webhook.id}`, { active: false });
    const other = await call('POST', '/links', { destination: 'https://example.com/b' });
    await call('DELETE', `/links/${other.id}`);
    await send();
    expect(received).toHaveLength(1);
  });

  test('a receiver failing twice is tried again on the schedule, then delivered; the log holds each attempt', async () => {
    const webhook = await hook(['link.created']);
    let calls = 0;
    answer = () => (++calls <= 2 ? 503 : 204);
    await call('POST', '/links', { destination: 'https://example.com/a' });
    await send();
    expect(calls).toBe(1);
    // The log says when it is tried again: after about 5 s (±10%).
    const [waiting] = (await call('GET', `/webhooks/${webhook.id}/deliveries`)).items;
    expect({ gaveUp: waiting.gaveUp, inRange: Math.abs(waiting.nextAttemptAt - (waiting.at + 5000)) <= 500 }).toEqual({
      gaveUp: false,
      inRange: true,
    });
    // Not due yet: nothing is sent before the delay (5 s, ±10%).
    t.clock.advance(4000);
    await send();
    expect(calls).toBe(1);
    t.clock.advance(2000);
    await send();
    expect(calls).toBe(2);
    t.clock.advance(40_000);
    await send();
    expect(calls).toBe(3);
    t.clock.advance(3_600_000);
    await send();
    expect(calls).toBe(3);
    const attempts = await t.deps.stores.outbox.attempts(webhook.id, 10, null);
    expect(attempts.map((a) => [a.attempt, a.status, a.error, a.type])).toEqual([
      [3, 204, null, 'link.created'],
      [2, 503, 'answered 503', 'link.created'],
      [1, 503, 'answered 503', 'link.created'],
    ]);
    // What was sent, and the start of what came back (a 204 has no body).
    expect(attempts.map((a) => a.response)).toEqual(['', 'noted', 'noted']);
    // Delivered: no next attempt on any of them, none given up.
    expect(attempts.map((a) => [a.nextAttemptAt, a.gaveUp])).toEqual([
      [null, false],
      [null, false],
      [null, false],
    ]);
    expect(attempts.every((a) => a.request === received[0]!.raw)).toBe(true);
    expect(new Set(received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    expect(await call('GET', `/webhooks/${webhook.id}`)).toMatchObject({ active: true, consecutiveFailures: 0 });
  });

  test('events, done deliveries and the log are pruned after 7 days; a pending delivery keeps its event', async () => {
    const webhook = await hook(['link.created']);
    answer = () => 500;
    await call('POST', '/links', { destination: 'https://example.com/b' });
    await send();
    // A success since that failure: the webhook is not failing any more, whatever comes later.
    answer = () => 200;
    await call('POST', '/links', { destination: 'https://example.com/a' });
    await send();
    expect((await call('GET', `/webhooks/${webhook.id}/deliveries`)).items).toHaveLength(2);
    // Eight days on (no sender meanwhile): the failed one's last attempt fails, it is given up, so everything goes.
    answer = () => 500;
    t.clock.advance(8 * 24 * 3_600_000);
    await send();
    const log = (await call('GET', `/webhooks/${webhook.id}/deliveries`)).items;
    expect(log.map((a: any) => [a.attempt, a.gaveUp, a.nextAttemptAt])).toEqual([[2, true, null]]);
    expect(await call('GET', `/webhooks/${webhook.id}`)).toMatchObject({ active: true, consecutiveFailures: 1 });
    expect(await t.deps.stores.outbox.prune(t.clock.now(), t.clock.now())).toBe(0);
  });

  test('the delivery log through the API, in pages; a delivery made again by hand goes out with the same webhook-id', async () => {
    const webhook = await hook(['link.created']);
    const other = await hook(['link.created']);
    answer = () => 200;
    await call('POST', '/links', { destination: 'https://example.com/a' });
    t.clock.advance(10);
    await call('POST', '/links', { destination: 'https://example.com/b' });
    await send();
    expect(received).toHaveLength(4);
    const first = await call('GET', `/webhooks/${webhook.id}/deliveries?limit=1`);
    expect(first.items).toHaveLength(1);
    expect(first.cursor).not.toBeNull();
    const second = await call('GET', `/webhooks/${webhook.id}/deliveries?limit=1&cursor=${first.cursor}`);
    expect(second.cursor).toBeNull();
    const [newest, oldest] = [first.items[0], second.items[0]];
    expect(Object.keys(newest).sort()).toEqual(
      [
        'id',
        'deliveryId',
        'eventId',
        'type',
        'attempt',
        'statusCode',
        'error',
        'durationMs',
        'at',
        'request',
        'response',
        'nextAttemptAt',
        'gaveUp',
      ].sort(),
    );
    expect(oldest).toMatchObject({ type: 'link.created', attempt: 1, statusCode: 200, error: null, response: 'noted' });
    // Attempts run at once: either event may have been recorded first.
    expect([newest, oldest].map((a) => JSON.parse(a.request).data.destination).sort()).toEqual([
      'https://example.com/a',
      'https://example.com/b',
    ]);
    expect(newest.id).toBeGreaterThan(oldest.id);

    const retried = await call('POST', `/webhooks/${webhook.id}/deliveries/${oldest.deliveryId}/retry`, undefined, 200);
    expect(retried).toEqual({ deliveryId: oldest.deliveryId, retried: true });
    // Another webhook's delivery, or none: 404.
    for (const path of [
      `/webhooks/${other.id}/deliveries/${oldest.deliveryId}/retry`,
      `/webhooks/${webhook.id}/deliveries/x/retry`,
    ])
      expect((await api(t, 'POST', path, { key })).status).toBe(404);
    await send();
    expect(received).toHaveLength(5);
    expect(received[4]!.headers['webhook-id']).toBe(oldest.eventId);
    expect(received[4]!.raw).toBe(oldest.request);
    expect((await call('GET', `/webhooks/${webhook.id}/deliveries`)).items[0]).toMatchObject({
      deliveryId: oldest.deliveryId,
      attempt: 2,
    });
    expect((await api(t, 'GET', `/webhooks/${webhook.id}/deliveries?cursor=abc`, { key })).status).toBe(400);
  });
});
