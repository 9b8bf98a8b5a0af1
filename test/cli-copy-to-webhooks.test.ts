/**
 * `slink copy-to` carries the webhooks and their outbox (docs/operations.md, "Moving to
 * PostgreSQL"): a SQLite database written through the real app (webhooks, one paused and one
 * rotated, events, deliveries delivered, failed and waiting for a retry, untried, and their
 * attempts; a deleted webhook's deliveries gone, so SQLite's counters are past the highest id
 * left) copied by the real CLI into a real PostgreSQL database, row for row, and verified; the
 * real app on PostgreSQL then answers what the SQLite one did, delivers the pending deliveries
 * signed with the copied secrets, and hands out ids after every one SQLite gave.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { SQL } from 'bun';
import { api, makeKey, makeTestApp, type TestApp } from './helpers/app';
import { inspect, slink, tempDir } from './helpers/cli';
import { freshPostgresUrl } from './helpers/postgres';
import { receiverAccepts, startReceiver } from './helpers/webhook-receiver';

const OUTBOX = ['webhooks', 'webhook_events', 'webhook_deliveries', 'webhook_attempts'];
const receiver = startReceiver();
afterAll(() => receiver.stop());

let source: string;
let key: string;
let now: number;
const secrets: Record<string, string> = {};
let hooks: { a: string; b: string };
/** The source's outbox, table by table, as SQLite holds it. */
let rows: Record<string, Record<string, unknown>[]>;
/** The highest ids SQLite ever gave (its AUTOINCREMENT counters). */
let given: Record<string, number>;
/** What the source's API answered. */
let answers: Awaited<ReturnType<typeof apiAnswers>>;

async function call(t: TestApp, method: string, path: string, body?: unknown, status = 200) {
  const r = await api(t, method, path, { key, body });
  expect({ path, status: r.status }).toEqual({ path, status });
  return r.body;
}

/** One pass of the sender, and every attempt it started recorded. */
async function send(t: TestApp): Promise<void> {
  await t.deps.webhooks.pass();
  await t.deps.webhooks.settled();
}

async function apiAnswers(t: TestApp) {
  const list = await call(t, 'GET', '/webhooks');
  const logs = await Promise.all(
    [hooks.a, hooks.b].map((id) => call(t, 'GET', `/webhooks/${id}/deliveries?limit=100`)),
  );
  return { list, logs };
}

/** Every row of a table as SQLite holds it (PostgreSQL's booleans as 0/1, its int8 as numbers). */
function normalised(row: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(row).map(([k, v]) => [
      k,
      typeof v === 'boolean' ? Number(v) : typeof v === 'bigint' || /^\d+$/.test(String(v)) ? Number(v) : v,
    ]),
  );
}

function keyOf(table: string): string {
  return table === 'webhook_events' ? 'seq' : 'id';
}

beforeAll(async () => {
  const t = await makeTestApp({ SLINK_WEBHOOKS_ALLOW_PRIVATE: '1' });
  try {
    key = (await makeKey(t, 'write', { superuser: true })).key;
    const hook = async (events: string[], description: string) => {
      const made = await call(t, 'POST', '/webhooks', { url: receiver.url, events, description }, 201);
      secrets[made.id] = made.secret;
      return made.id as string;
    };
    const a = await hook(['link.created', 'link.updated'], 'all changes');
    const b = await hook(['link.created'], 'new links');
    const c = await hook(['link.created'], 'deleted later');
    hooks = { a, b };
    // Delivered: the first link's event to each, on the first attempt.
    const first = await call(t, 'POST', '/links', { destination: 'https://example.com/one' }, 201);
    await send(t);
    // Failed twice, waiting for the next retry: the second link's, the receiver down.
    receiver.mode = 500;
    t.clock.advance(1000);
    await call(t, 'POST', '/links', { destination: 'https://example.com/two' }, 201);
    await send(t);
    t.clock.advance(10_000);
    await send(t);
    // A rotated secret (the replaced one still signing) and a paused webhook.
    const rotated = await call(t, 'POST', `/webhooks/${b}/rotate-secret`);
    secrets[b] = rotated.secret;
    await call(t, 'PATCH', `/webhooks/${b}`, { active: false });
    // Untried: an update, to a only (paused while c's is tried again, then enabled): the
    // newest attempt is c's.
    t.clock.advance(1000);
    await call(t, 'PATCH', `/links/${first.id}`, { title: 'Renamed' });
    await call(t, 'PATCH', `/webhooks/${a}`, { active: false });
    t.clock.advance(60_000);
    await send(t);
    await call(t, 'PATCH', `/webhooks/${a}`, { active: true });
    // The newest attempt gone with its webhook, and the newest delivery with another.
    await call(t, 'DELETE', `/webhooks/${c}`);
    const d = await hook(['link.deleted'], 'deleted at once');
    await call(t, 'DELETE', `/links/${first.id}`);
    await call(t, 'DELETE', `/webhooks/${d}`);
    receiver.mode = 200;
    now = t.clock.now();
    answers = await apiAnswers(t);

    const sqlite = t.deps.db.$client;
    rows = Object.fromEntries(
      OUTBOX.map((table) => [
        table,
        sqlite.query(`SELECT * FROM ${table} ORDER BY ${keyOf(table)}`).all() as Record<string, unknown>[],
      ]),
    );
    given = Object.fromEntries(
      sqlite
        .query<{ name: string; seq: number }, []>('SELECT name, seq FROM sqlite_sequence')
        .all()
        .map((r) => [r.name, r.seq]),
    );
    source = join(tempDir(), 'slink.db');
    sqlite.query('VACUUM INTO ?').run(source);
  } finally {
    await t.close();
  }
  // The source holds what a move must carry: every state of a delivery, attempts, and ids gone.
  const deliveries = rows.webhook_deliveries!;
  expect({
    delivered: deliveries.some((d) => d.delivered === 1 && d.attempts === 1),
    retrying: deliveries.some((d) => d.delivered === 0 && d.done_at === null && (d.attempts as number) >= 2),
    untried: deliveries.some((d) => d.attempts === 0 && d.done_at === null),
    paused: rows.webhooks!.some((w) => w.active === 0 && w.previous_secret !== null),
    attempts: rows.webhook_attempts!.length >= 5,
    gone: given.webhook_deliveries! > Math.max(...deliveries.map((d) => d.id as number)),
    attemptsGone: given.webhook_attempts! > Math.max(...rows.webhook_attempts!.map((d) => d.id as number)),
  }).toEqual({
    delivered: true,
    retrying: true,
    untried: true,
    paused: true,
    attempts: true,
    gone: true,
    attemptsGone: true,
  });
  expect(inspect(source, (db) => db.query('SELECT count(*) AS n FROM webhooks').get())).toEqual({ n: 2 });
}, 60_000);

describe('slink copy-to with webhooks', () => {
  test('carries the webhooks and their outbox row for row, verifies them, and PostgreSQL carries on after them', async () => {
    const url = await freshPostgresUrl();
    const r = await slink(source, ['copy-to', url]);
    expect({ code: r.code, stderr: r.stderr.includes('slink:') ? r.stderr : '' }).toEqual({ code: 0, stderr: '' });
    for (const table of OUTBOX) {
      expect(r.stdout).toContain(`\n${table}: ${rows[table]!.length} rows on both sides, every row equal\n`);
    }

    const sql = new SQL(url, { max: 1 });
    const t = await makeTestApp({ SLINK_WEBHOOKS_ALLOW_PRIVATE: '1' }, { engine: 'postgres', postgresUrl: url });
    try {
      for (const table of OUTBOX) {
        const there = await sql.unsafe(`SELECT * FROM ${table} ORDER BY ${keyOf(table)}`);
        expect({ table, rows: there.map(normalised) }).toEqual({ table, rows: rows[table]!.map(normalised) });
      }
      t.clock.set(now);
      expect(await apiAnswers(t)).toEqual(answers);

      // A webhook made after the move: a new id, its test event and delivery numbered after
      // every one SQLite gave, even those whose rows were gone before the copy.
      const made = await call(t, 'POST', '/webhooks', { url: receiver.url, events: ['link.created'] }, 201);
      expect(rows.webhooks!.map((w) => w.id)).not.toContain(made.id);
      const sent = await call(t, 'POST', `/webhooks/${made.id}/test`, undefined, 202);
      expect(sent.deliveryId).toBe(given.webhook_deliveries! + 1);
      const [event] = await sql`SELECT seq FROM webhook_events WHERE id = ${sent.eventId}`;
      expect(Number(event.seq)).toBe(given.webhook_events! + 1);

      // The pending deliveries go out once due, signed with the copied secrets, numbered on.
      receiver.received.length = 0;
      t.clock.advance(24 * 3_600_000);
      await send(t);
      const pending = rows.webhook_deliveries!.filter(
        (d) => d.done_at === null && rows.webhooks!.find((w) => w.id === d.webhook_id)!.active === 1,
      );
      expect(pending.length).toBeGreaterThanOrEqual(2);
      const events = new Map(rows.webhook_events!.map((e) => [e.seq, e.id]));
      const got = receiver.received.map((d) => d.headers['webhook-id']).sort();
      expect(got).toEqual([...pending.map((d) => events.get(d.event_seq) as string), sent.eventId].sort());
      for (const d of receiver.received) {
        const secret = secrets[d.body.data?.webhookId ?? hooks.a] ?? made.secret;
        expect(await receiverAccepts(secret, d.headers, d.raw)).toBe(true);
      }
      const [attempts] = await sql`SELECT min(id) AS lo FROM webhook_attempts WHERE at > ${now}::int8`;
      expect(Number(attempts.lo)).toBe(given.webhook_attempts! + 1);
      const log = await call(t, 'GET', `/webhooks/${hooks.a}/deliveries?limit=100`);
      expect(log.items.filter((i: { statusCode: number }) => i.statusCode === 200).length).toBeGreaterThanOrEqual(
        pending.length + 1,
      );
    } finally {
      await t.close();
      await sql.close();
    }
  }, 120_000);
});
