/**
 * kill -9 with deliveries pending, on each engine, against the real server process on a real
 * database: events recorded while the receiver fails (503, tried again later) or holds every
 * request open (the sender's slots all claimed mid-attempt, the rest waiting unclaimed), then
 * SIGKILL; clicks flushed before it are recorded events too, the last ones maybe only buffered
 * (those are not expected to survive). Restarted on the same database with the receiver answering
 * 200, every event recorded before the kill is delivered at least once: the claims the dead process
 * held are taken over once their lease ends (shortened to LEASE_MS through the server's options:
 * the production 30 s proves nothing more), each attempt signed so that an independent check
 * accepts it, a repeat carrying the same webhook-id and body, the delivery log showing each one
 * delivered, and every click that was flushed in a delivered clicks event.
 */
import { afterAll, afterEach, expect, test } from 'bun:test';
import type { DatabaseAddress } from '../../../src/db/address';
import { createLinkAt, freshDb, superuserWriteKey } from '../../helpers/cli';
import { databaseEnv, forEachEngine } from '../../helpers/engines';
import { poll } from '../../helpers/full-disk';
import { BUN, cleanEnv, freePort, type RunningProcess, start, waitHealthy } from '../../helpers/proc';
import { storedClicks, storedRows } from '../../helpers/stored';
import { type ReceivedDelivery, receiverAccepts, startReceiver } from '../../helpers/webhook-receiver';

const receiver = startReceiver();
afterAll(() => receiver.stop());
let server: RunningProcess | undefined;
afterEach(() => server?.kill());

const HUMAN = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

/** n human clicks on /slug, one after the other. */
async function click(base: string, slug: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${base}/${slug}`, { redirect: 'manual', headers: { 'user-agent': HUMAN } });
    expect(res.status).toBe(302);
  }
}

/** Deliveries in flight at once per process (docs/behaviour.md, "Webhooks"). */
const IN_FLIGHT = 16;
/** How long a claim lasts in the served process (test/fixtures/serve-options.ts). */
const LEASE_MS = 2000;

interface Served {
  env: Record<string, string>;
  address: DatabaseAddress;
  key: string;
}

async function database(engine: 'sqlite' | 'postgres'): Promise<Served> {
  const db = freshDb();
  const extra = await databaseEnv(engine);
  const key = await superuserWriteKey(db, extra);
  const address: DatabaseAddress =
    engine === 'sqlite' ? { engine, path: db } : { engine, url: extra.SLINK_DATABASE_URL! };
  return { env: { SLINK_DB: db, ...extra }, address, key };
}

function serve(served: Served): RunningProcess {
  const port = freePort();
  return start([BUN, 'run', 'test/fixtures/serve-options.ts', JSON.stringify({ webhookLeaseMs: LEASE_MS })], port, {
    env: cleanEnv({
      ...served.env,
      SLINK_PORT: String(port),
      SLINK_HOSTNAME: '127.0.0.1',
      SLINK_FLUSH_MS: '200',
      SLINK_WEBHOOKS_ALLOW_PRIVATE: '1',
    }),
  });
}

async function call(base: string, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function attempts(base: string, key: string, hookId: string): Promise<any[]> {
  const res = await call(base, key, 'GET', `/webhooks/${hookId}/deliveries?limit=100`);
  expect(res.status).toBe(200);
  expect(res.body.cursor).toBeNull();
  return res.body.items;
}

forEachEngine((engine) => {
  test('kill -9 with deliveries failed, claimed mid-attempt and unclaimed: after the restart every recorded event is delivered, repeats with the same webhook-id', async () => {
    const served = await database(engine);
    const { key } = served;
    server = serve(served);
    await waitHealthy(server);
    receiver.received.length = 0;
    const created = await call(server.base, key, 'POST', '/webhooks', {
      url: receiver.url,
      events: ['link.created', 'link.updated', 'link.deleted', 'clicks'],
    });
    expect(created.status).toBe(201);
    const { id: hookId, secret } = created.body;

    // A failing receiver: each first attempt is answered 503 and logged, to be tried again later.
    receiver.mode = 503;
    const failing: string[] = [];
    for (let i = 0; i < 3; i++) failing.push(await createLinkAt(server.base, key, `failing-${i}`));
    await click(server.base, 'failing-2', 3);
    const failed = await poll(
      'the three links and a clicks event failed in the delivery log',
      () => attempts(server!.base, key, hookId),
      (items) =>
        new Set(items.filter((a) => a.type === 'link.created').map((a) => a.eventId)).size === 3 &&
        items.some((a) => a.type === 'clicks'),
    );
    // (A second attempt, 5 s after the first, may be logged already: 503 too.)
    expect(failed.map((a) => [a.statusCode, a.error])).toEqual(failed.map(() => [503, 'answered 503']));

    // A receiver that holds every request open: the sender's slots fill with attempts under way.
    receiver.mode = 'hold';
    await click(server.base, 'failing-2', 2);
    await poll(
      'the five clicks flushed',
      async () => (await storedClicks(served.address)).length,
      (n) => n === 5,
    );
    const held: string[] = [];
    for (let i = 0; i < 18; i++) held.push(await createLinkAt(server.base, key, `held-${i}`));
    const updated = await call(server.base, key, 'PATCH', `/links/${failing[0]}`, {
      destination: 'https://example.com/changed',
    });
    expect(updated.status).toBe(200);
    expect((await call(server.base, key, 'DELETE', `/links/${failing[1]}`)).status).toBe(200);
    await poll(
      'every slot holding an attempt',
      async () => receiver.held(),
      (n) => n >= IN_FLIGHT,
    );
    // Clicks at the last moment: buffered, maybe not flushed (recorded) before the kill.
    await click(server.base, 'held-0', 4);

    server.proc.kill('SIGKILL');
    await server.proc.exited;
    const beforeKill = receiver.received.length;
    receiver.release();

    // What the killed process left: every link event and the flushed clicks' events recorded, none
    // delivered, 16 still claimed.
    const recorded = (await storedRows(
      served.address,
      'SELECT id, type, link_id AS "linkId", data FROM webhook_events ORDER BY seq',
    )) as { id: string; type: string; linkId: string | null; data: string }[];
    const expected = [
      ...[...failing, ...held].map((id) => `link.created ${id}`),
      `link.updated ${failing[0]}`,
      `link.deleted ${failing[1]}`,
    ];
    const linkEvents = recorded.filter((e) => e.type !== 'clicks');
    expect(linkEvents.map((e) => `${e.type} ${e.linkId}`).sort()).toEqual(expected.sort());
    // A flushed click is in a recorded event (the same transaction): the 5 waited for, maybe some of the last 4.
    const stored = (await storedClicks(served.address)).map((c) => c.link_id);
    const inEvents = recorded
      .filter((e) => e.type === 'clicks')
      .flatMap((e) => (JSON.parse(e.data).clicks as any[]).map((c) => c.linkId));
    expect(inEvents.sort()).toEqual(stored.sort());
    expect(stored.filter((l) => l === failing[2])).toHaveLength(5);
    expect(stored.length).toBeLessThanOrEqual(9);
    const clickIds = recorded
      .filter((e) => e.type === 'clicks')
      .flatMap((e) => (JSON.parse(e.data).clicks as any[]).map((c) => c.id));
    const pending = await storedRows(
      served.address,
      'SELECT count(*) AS n, count(claim) AS claimed FROM webhook_deliveries WHERE done_at IS NULL',
    );
    expect(pending).toEqual([{ n: recorded.length, claimed: IN_FLIGHT }]);

    // Restarted on the same database, the receiver well again.
    receiver.mode = 200;
    server = serve(served);
    await waitHealthy(server);
    const deliveredAfter = (r: ReceivedDelivery, i: number) => i >= beforeKill && r.answered === 200;
    await poll(
      'the recorded events not delivered yet after the restart',
      async () => {
        const delivered = new Set(receiver.received.filter(deliveredAfter).map((r) => r.headers['webhook-id']));
        return recorded.filter((e) => !delivered.has(e.id)).map((e) => e.id);
      },
      (missing) => missing.length === 0,
      60_000,
    );
    const log = await poll(
      'every delivery logged as delivered',
      () => attempts(server!.base, key, hookId),
      (items) => recorded.every((e) => items.some((a) => a.eventId === e.id && a.statusCode === 200)),
    );
    for (const e of recorded) {
      const success = log.find((a) => a.eventId === e.id && a.statusCode === 200);
      expect({ type: success.type, error: success.error }).toEqual({ type: e.type, error: null });
    }

    // Every attempt, before the kill and after, is signed for this webhook's secret, its body the event.
    const byEvent = new Map<string, ReceivedDelivery[]>();
    for (const r of receiver.received) {
      expect(await receiverAccepts(secret, r.headers, r.raw)).toBe(true);
      expect(r.body.id).toBe(r.headers['webhook-id']!);
      byEvent.set(r.body.id, [...(byEvent.get(r.body.id) ?? []), r]);
    }
    expect([...byEvent.keys()].sort()).toEqual(recorded.map((e) => e.id).sort());
    // A repeat is the same event: one webhook-id per event, the same body on every attempt.
    for (const e of recorded) {
      const attemptsOf = byEvent.get(e.id)!;
      expect(new Set(attemptsOf.map((r) => r.raw)).size).toBe(1);
      const { type, data } = attemptsOf[0]!.body;
      expect(type).toBe(e.type);
      if (type === 'clicks') expect(data).toEqual(JSON.parse(e.data));
      else expect(data.id).toBe(e.linkId!);
    }
    // Every flushed click delivered after the restart, once per click.
    const clicksDelivered = receiver.received
      .filter((r, i) => deliveredAfter(r, i) && r.body.type === 'clicks')
      .flatMap((r) => (r.body.data.clicks as any[]).map((c) => c.id));
    expect([...new Set(clicksDelivered)].sort()).toEqual(clickIds.sort());
    // The attempts under way at the kill (and the failed ones) came again after it.
    const repeated = [...byEvent.values()].filter((rs) => rs.length > 1);
    expect(repeated.length).toBeGreaterThanOrEqual(IN_FLIGHT);

    expect(await server.stop()).toBe(0);
  }, 90_000);
});
