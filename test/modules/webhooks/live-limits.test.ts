/**
 * What bounds the live streams of one process: a reader that stops reading is dropped with a
 * `gap` once it holds STREAM_BUFFER_BYTES unread (and resumes from it), at most
 * STREAMS_PER_ACCOUNT streams per account and SLINK_LIVE_STREAMS per process (429), and a
 * Last-Event-ID beyond the newest event is answered with a `gap` to resume from the newest.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createApiKey } from '../../../src/modules/auth/keys';
import { STREAM_BUFFER_BYTES, STREAMS_PER_ACCOUNT, STREAMS_PER_KEY } from '../../../src/modules/webhooks/live';
import { api, apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';
import { type FrameReader, openEvents } from '../../helpers/event-stream';
import { expectError } from '../../helpers/schema';

const NODE_STREAMS = 12;
let t: TestApp;
let admin: Awaited<ReturnType<typeof makeKey>>;

beforeAll(async () => {
  t = await makeTestApp({ SLINK_LIVE_STREAMS: String(NODE_STREAMS) });
  admin = await makeKey(t, 'write', { superuser: true });
});
afterAll(() => disposeTestApp(t));

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const byteLength = (text: string) => new TextEncoder().encode(text).byteLength;

test('a stream whose reader stops is dropped with a gap once it holds the buffer unread; resuming from the gap misses nothing', async () => {
  const { key } = await makeKey(t, 'read');
  const stalled = await openEvents(t.app, bearer(key));
  const reading = await openEvents(t.app, bearer(key));
  // 600 links of ~2 KB each: more than the buffer of events.
  let lastSeq = 0;
  for (let batch = 0; batch < 3; batch++) {
    const text = Array.from({ length: 200 }, (_, i) => `https://example.com/${batch}/${i}/${'a'.repeat(1900)}`).join(
      '\n',
    );
    await apiExpecting(t, admin.key, 'POST', '/links/bulk/create', { text });
  }
  const total = (await t.deps.stores.outbox.bounds()).newest;
  // The reading stream got them all: the stalled one was handed each of them too, or dropped.
  while (lastSeq < total) lastSeq = Number((await reading.event()).id);
  await reading.close();

  // What the stalled stream holds: events up to the buffer, then the gap, then its end.
  const frames = [];
  let bytes = 0;
  for (let frame = await stalled.next(); ; frame = await stalled.next()) {
    frames.push(frame);
    bytes += byteLength(frame.data ?? '');
    if (frame.event === 'gap' || Number(frame.id) === total) break;
  }
  const gap = frames.at(-1)!;
  expect(gap.event).toBe('gap');
  const events = frames.filter((f) => f.event === 'link.created');
  const after = Number(events.at(-1)!.id);
  expect({ id: gap.id, data: JSON.parse(gap.data!) }).toEqual({
    id: String(after),
    data: { after, reason: 'slow_reader' },
  });
  expect(after).toBeLessThan(total);
  // Held unread: the buffer and one event more at most.
  expect(bytes).toBeLessThan(STREAM_BUFFER_BYTES + 10_000);
  expect(await stalled.rest()).toEqual([]);

  // Resumed from the gap: the next event is the one after it.
  const resumed = await openEvents(t.app, { ...bearer(key), 'last-event-id': String(after) });
  expect(Number((await resumed.event()).id)).toBe(after + 1);
  await resumed.close();
});

test(`at most ${STREAMS_PER_ACCOUNT} streams per account, whatever its keys: 429`, async () => {
  const first = await makeKey(t, 'read');
  const second = await createApiKey(t.deps, { accountId: first.account.id, scope: 'read' });
  const third = await createApiKey(t.deps, { accountId: first.account.id, scope: 'read' });
  const streams: FrameReader[] = [];
  for (const key of [first.key, second.key])
    for (let i = 0; i < STREAMS_PER_KEY; i++) streams.push(await openEvents(t.app, bearer(key)));
  const refused = await api(t, 'GET', '/events', { key: third.key });
  expectError(refused, 429, 'rate_limited');
  expect(refused.body.error.message).toBe(
    `At most ${STREAMS_PER_ACCOUNT} live streams per account at once: close one first`,
  );
  expect(refused.headers.get('retry-after')).toBe('5');
  await streams.pop()!.close();
  streams.push(await openEvents(t.app, bearer(third.key)));
  for (const s of streams) await s.close();
});

test('at most SLINK_LIVE_STREAMS streams per process: 429', async () => {
  const streams: FrameReader[] = [];
  while (streams.length < NODE_STREAMS) {
    const { key } = await makeKey(t, 'read');
    for (let i = 0; i < STREAMS_PER_KEY && streams.length < NODE_STREAMS; i++)
      streams.push(await openEvents(t.app, bearer(key)));
  }
  const refused = await api(t, 'GET', '/events', { key: (await makeKey(t, 'read')).key });
  expectError(refused, 429, 'rate_limited');
  expect(refused.body.error.message).toBe(`This server holds ${NODE_STREAMS} live streams, its most: try again later`);
  await streams.pop()!.close();
  streams.push(await openEvents(t.app, bearer((await makeKey(t, 'read')).key)));
  for (const s of streams) await s.close();
});

test('a Last-Event-ID beyond the newest event: a gap says so and the stream resumes from the newest', async () => {
  const { key } = await makeKey(t, 'read');
  const { newest } = await t.deps.stores.outbox.bounds();
  const live = await openEvents(t.app, { ...bearer(key), 'last-event-id': String(newest + 1000) });
  const gap = await live.event();
  expect({ event: gap.event, id: gap.id, data: JSON.parse(gap.data!) }).toEqual({
    event: 'gap',
    id: String(newest),
    data: { after: newest + 1000, newest, reason: 'unknown_id' },
  });
  await apiExpecting(t, admin.key, 'POST', '/links', { destination: 'https://example.com/next' });
  const next = await live.event();
  expect({ event: next.event, id: Number(next.id) }).toEqual({ event: 'link.created', id: newest + 1 });
  await live.close();
});
