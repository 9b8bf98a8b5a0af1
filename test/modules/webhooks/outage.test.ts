/**
 * A receiver's outage on each engine, with the clock the test drives: clicks arriving every
 * second through a 15 s outage disable nothing and are all delivered once it is back; a webhook
 * is disabled only once it has failed for 24 hours without a single success (its updatedAt
 * moved); the events recorded while it is disabled are delivered when it is enabled again, and
 * a redelivery asked meanwhile says that nothing is sent; a disabled webhook's events are kept
 * as long as other events, no longer.
 */
import { afterAll, afterEach, beforeEach, expect, test } from 'bun:test';
import { api, apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { expectError } from '../../helpers/schema';
import { click, flushOk } from '../clicks/support';

const HOUR = 3_600_000;

interface Received {
  body: any;
  status: number;
}
const received: Received[] = [];
let answer = 200;
const receiver = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    const status = answer;
    received.push({ body: JSON.parse(await req.text()), status });
    return new Response('noted', { status });
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
    answer = 200;
  });
  afterEach(() => disposeTestApp(t));

  const call = (method: string, path: string, body?: unknown, status?: number) =>
    apiExpecting(t, key, method, path, body, status);
  const hook = (events: string[]) =>
    call('POST', '/webhooks', { url: `http://127.0.0.1:${receiver.port}/hook`, events });
  /** Passes of the sender until one finds nothing due (16 attempts at most per pass). */
  async function sendAll() {
    for (;;) {
      const before = received.length;
      await t.deps.webhooks.pass();
      await t.deps.webhooks.settled();
      if (received.length === before) return;
    }
  }
  const delivered = (type: string) => received.filter((r) => r.status === 200 && r.body.type === type);

  test('a 15 s outage with a click every second disables nothing; every click is delivered once it is back', async () => {
    const webhook = await hook(['clicks']);
    const link = await call('POST', '/links', { destination: 'https://example.com/', slug: 'busy' });
    answer = 503;
    for (let second = 0; second < 25; second++) {
      if (second === 15) answer = 200;
      t.clock.advance(1000);
      expect(await click(t, '/busy')).toBe(302);
      await flushOk(t);
      await sendAll();
      expect(await call('GET', `/webhooks/${webhook.id}`)).toMatchObject({ active: true, disabledReason: null });
    }
    // The retries of what failed come due over the next minutes.
    for (let minute = 0; minute < 10; minute++) {
      t.clock.advance(60_000);
      await sendAll();
    }
    const clicks = (await call('GET', `/links/${link.id}/clicks?limit=100`)).items.map((c: any) => c.id);
    expect(clicks).toHaveLength(25);
    const got = delivered('clicks').flatMap((r) => r.body.data.clicks.map((c: any) => c.id));
    expect(got.sort()).toEqual([...clicks].sort());
    expect(received.some((r) => r.status === 503)).toBe(true);
    expect(await call('GET', `/webhooks/${webhook.id}`)).toMatchObject({
      active: true,
      consecutiveFailures: 0,
      failingSince: null,
      disabledReason: null,
    });
  });

  test('disabled only after 24 hours of failures; events recorded meanwhile go out once enabled; redelivery says 409', async () => {
    const webhook = await hook(['link.created']);
    const started = t.clock.now();
    answer = 500;
    const links: string[] = [];
    const newLink = async () => links.push((await call('POST', '/links', { destination: 'https://example.com/' })).id);
    await newLink();
    await sendAll();
    for (let hour = 1; hour < 24; hour++) {
      t.clock.advance(HOUR);
      await newLink();
      await sendAll();
      expect(await call('GET', `/webhooks/${webhook.id}`)).toMatchObject({
        active: true,
        failingSince: started,
        disabledReason: null,
      });
    }
    // The first event's last attempt, 24 hours after its first: the webhook is disabled.
    t.clock.advance(HOUR);
    await sendAll();
    const disabled = await call('GET', `/webhooks/${webhook.id}`);
    expect(disabled).toMatchObject({
      active: false,
      failingSince: started,
      disabledReason: 'failed for 24 hours without a success; the last: answered 500',
      updatedAt: started + 24 * HOUR,
    });
    expect(disabled.consecutiveFailures).toBeGreaterThan(24);

    // Disabled: its events are recorded, nothing is sent, a redelivery is refused saying why.
    const sent = received.length;
    await newLink();
    await newLink();
    t.clock.advance(HOUR);
    await sendAll();
    expect(received).toHaveLength(sent);
    const [last] = (await call('GET', `/webhooks/${webhook.id}/deliveries?limit=1`)).items;
    const res = await api(t, 'POST', `/webhooks/${webhook.id}/deliveries/${last.deliveryId}/retry`, { key });
    expectError(res, 409, 'conflict', 'active');
    expect(res.body.error.message).toContain('disabled');

    answer = 200;
    expect(await call('PATCH', `/webhooks/${webhook.id}`, { active: true })).toMatchObject({
      active: true,
      consecutiveFailures: 0,
      failingSince: null,
      disabledReason: null,
    });
    await sendAll();
    expect(
      delivered('link.created')
        .map((r) => r.body.data.id)
        .sort(),
    ).toEqual([...links].sort());
    expect(links).toHaveLength(26);
  });

  test("a disabled webhook's events are kept as long as other events (7 days), no longer", async () => {
    const webhook = await hook(['link.created']);
    await call('PATCH', `/webhooks/${webhook.id}`, { active: false });
    const kept = await call('POST', '/links', { destination: 'https://example.com/kept' });
    t.clock.advance(6 * 24 * HOUR);
    await t.deps.stores.outbox.prune(t.clock.now() - 7 * 24 * HOUR, t.clock.now() - HOUR);
    await call('PATCH', `/webhooks/${webhook.id}`, { active: true });
    await sendAll();
    expect(delivered('link.created').map((r) => r.body.data.id)).toEqual([kept.id]);

    await call('PATCH', `/webhooks/${webhook.id}`, { active: false });
    await call('POST', '/links', { destination: 'https://example.com/old' });
    t.clock.advance(7 * 24 * HOUR + 1);
    await t.deps.stores.outbox.prune(t.clock.now() - 7 * 24 * HOUR, t.clock.now() - HOUR);
    await call('PATCH', `/webhooks/${webhook.id}`, { active: true });
    await sendAll();
    expect(received).toHaveLength(1);
    expect(await t.deps.stores.outbox.pending()).toBe(0);
  });
});
