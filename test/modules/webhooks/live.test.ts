/**
 * GET /api/v1/events on each engine, read as a browser's EventSource reads it: events as they
 * are recorded, resumed after Last-Event-ID with nothing missed or repeated, one link's only, a
 * gap said when the events asked for were pruned, bounded streams per key, and the errors.
 */
import { afterEach, beforeEach, expect, test } from 'bun:test';
import { api, apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { FrameReader } from '../../helpers/event-stream';
import { expectError } from '../../helpers/schema';
import { click, flushOk, UA } from '../clicks/support';

let t: TestApp;
let writeKey: string;
let readKey: string;

forEachEngine((engine) => {
  beforeEach(async () => {
    t = await makeTestApp({}, { engine });
    writeKey = (await makeKey(t, 'write', { superuser: true })).key;
    readKey = (await makeKey(t, 'read')).key;
  });
  afterEach(() => disposeTestApp(t));

  const call = (method: string, path: string, body?: unknown, status?: number) =>
    apiExpecting(t, writeKey, method, path, body, status);
  async function stream(query = '', lastEventId?: string): Promise<FrameReader> {
    const headers: Record<string, string> = { authorization: `Bearer ${readKey}` };
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    const res = await t.app.handle(new Request(`http://localhost/api/v1/events${query}`, { headers }));
    expect({
      status: res.status,
      type: res.headers.get('content-type'),
      cache: res.headers.get('cache-control'),
    }).toEqual({
      status: 200,
      type: 'text/event-stream; charset=utf-8',
      cache: 'no-store',
    });
    const reader = new FrameReader(res);
    expect(await reader.next()).toEqual({ retry: '2000' });
    return reader;
  }

  test('events arrive as they are recorded, with the body a webhook gets; a reconnection resumes after Last-Event-ID', async () => {
    const live = await stream();
    const link = await call('POST', '/links', { destination: 'https://example.com/a', slug: 'live' });
    const created = await live.event();
    expect(created.event).toBe('link.created');
    expect(JSON.parse(created.data!)).toMatchObject({ type: 'link.created', data: link });
    expect(JSON.parse(created.data!).id).toMatch(/^evt_/);
    await live.close();

    // While nobody listens: an update and a deletion.
    const updated = await call('PATCH', `/links/${link.id}`, { title: 'While away' });
    await call('DELETE', `/links/${link.id}`);
    const again = await stream('', created.id);
    const [first, second] = [await again.event(), await again.event()];
    expect([first.event, second.event]).toEqual(['link.updated', 'link.deleted']);
    expect(Number(first.id)).toBeGreaterThan(Number(created.id));
    expect(Number(second.id)).toBeGreaterThan(Number(first.id));
    // The Link as it was after the update (its data was filled then), and the deletion's id, slug and short URL.
    expect(JSON.parse(first.data!).data.title).toBe(updated.title);
    expect(JSON.parse(second.data!).data).toEqual({
      id: link.id,
      slug: link.slug,
      shortUrl: link.shortUrl,
      domain: link.domain,
      projectId: null,
    });
    await again.close();
  });

  test('resuming with Last-Event-ID n gives exactly the events after n, in order: none repeated, none skipped', async () => {
    const live = await stream();
    for (let i = 0; i < 6; i++) await call('POST', '/links', { destination: `https://example.com/resume-${i}` });
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await live.event()).id!);
    await live.close();

    // Resumed after the second: read up to the last one recorded, whatever came before it.
    const resumed = await stream('', ids[1]);
    const received: string[] = [];
    while (received.length === 0 || Number(received.at(-1)) < Number(ids[5]))
      received.push((await resumed.event()).id!);
    await resumed.close();
    expect(
      { resumedAfter: ids[1], received },
      'a stream resumed with Last-Event-ID n sends every event after n once, starting right after n',
    ).toEqual({ resumedAfter: ids[1], received: ids.slice(2) });
  });

  test("?link= gives one link's events only; an unknown link is 404", async () => {
    const a = await call('POST', '/links', { destination: 'https://example.com/a' });
    const live = await stream(`?link=${a.id}`);
    await call('POST', '/links', { destination: 'https://example.com/b' });
    await call('PATCH', `/links/${a.id}`, { title: 'Mine' });
    const event = await live.event();
    expect({ event: event.event, link: JSON.parse(event.data!).data.id }).toEqual({
      event: 'link.updated',
      link: a.id,
    });
    await live.close();
    const res = await api(t, 'GET', '/events?link=lnk_nope', { key: readKey });
    expectError(res, 404, 'not_found');
  });

  test("clicks arrive on the stream: one link's only with ?link=, bot hits only with bots=1", async () => {
    const a = await call('POST', '/links', { destination: 'https://example.com/a', slug: 'la' });
    await call('POST', '/links', { destination: 'https://example.com/b', slug: 'lb' });
    const all = await stream();
    const one = await stream(`?link=${a.id}`);
    const bots = await stream(`?link=${a.id}&bots=1`);
    // One batch of both links, with a bot hit.
    for (const [path, ua] of [
      ['/la', UA.chromeWin],
      ['/lb', UA.firefoxLinux],
      ['/la', UA.googlebot],
    ] as const) {
      expect(await click(t, path, { ua })).toBe(302);
    }
    await flushOk(t);
    const clicksOf = async (reader: FrameReader) => {
      for (;;) {
        const frame = await reader.event();
        if (frame.event === 'clicks') return JSON.parse(frame.data!).data.clicks.map((c: any) => [c.slug, c.bot]);
      }
    };
    expect(await clicksOf(all)).toEqual([
      ['la', false],
      ['lb', false],
    ]);
    expect(await clicksOf(one)).toEqual([['la', false]]);
    expect(await clicksOf(bots)).toEqual([
      ['la', false],
      ['la', true],
    ]);
    // A batch of the other link only is not sent to a stream of this one: its next clicks event is this link's.
    expect(await click(t, '/lb')).toBe(302);
    await flushOk(t);
    expect(await click(t, '/la')).toBe(302);
    await flushOk(t);
    expect(await clicksOf(one)).toEqual([['la', false]]);
    for (const reader of [all, one, bots]) await reader.close();
    expectError(await api(t, 'GET', '/events?bots=yes', { key: readKey }), 400, 'invalid_request', 'bots');
  });

  test('resuming after events that were pruned says so with a gap event first', async () => {
    await call('POST', '/links', { destination: 'https://example.com/a' });
    await call('POST', '/links', { destination: 'https://example.com/b' });
    await call('POST', '/links', { destination: 'https://example.com/c' });
    // The two oldest go, as after 7 days.
    const kept = await t.deps.stores.outbox.since(0, 10, null);
    expect(kept).toHaveLength(3);
    await t.deps.stores.outbox.prune(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
    expect(await t.deps.stores.outbox.since(0, 10, null)).toEqual([]);
    await call('POST', '/links', { destination: 'https://example.com/d' });
    const live = await stream('', '0');
    const gap = await live.event();
    expect(gap.event).toBe('gap');
    expect(JSON.parse(gap.data!)).toEqual({ after: 0, oldestKept: kept[2]!.seq + 1 });
    const next = await live.event();
    expect(next.event).toBe('link.created');
    expect(JSON.parse(next.data!).data.destination).toBe('https://example.com/d');
    await live.close();
  });

  test('at most 5 streams per key: 429 beyond, a closed one frees its place; bad Last-Event-ID 400; no key 401', async () => {
    const streams = [];
    for (let i = 0; i < 5; i++) streams.push(await stream());
    const refused = await api(t, 'GET', '/events', { key: readKey });
    expectError(refused, 429, 'rate_limited');
    await streams.pop()!.close();
    streams.push(await stream());
    for (const s of streams) await s.close();
    const bad = await t.app.handle(
      new Request('http://localhost/api/v1/events', {
        headers: { authorization: `Bearer ${readKey}`, 'last-event-id': 'x1' },
      }),
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { field: string } }).error.field).toBe('Last-Event-ID');
    expectError(await api(t, 'GET', '/events'), 401, 'key_missing');
  });
});
