/**
 * Project and domain limits on the live stream (GET /events), read as an EventSource reads it: a
 * limited caller receives only the events of the links it sees (a link event by where the event
 * says the link is, a `clicks` batch cut to its links' clicks), nothing of a link moved out of
 * its limits from that change on, and `?link=` of another link is 404 as one that does not
 * exist. What was not sent is shown by the next event read being a later one (events come in
 * commit order). SQLite only: the outbox is read alike on both engines, and the filtering is
 * the stream's.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApiKey } from '../../../src/modules/auth/keys';
import { api, disposeTestApp, makeAccount, makeTestApp, type TestApp } from '../../helpers/app';
import { type FrameReader, openEvents } from '../../helpers/event-stream';
import { expectError } from '../../helpers/schema';
import { clickRequest, flushOk, UA } from '../clicks/support';

describe('project and domain limits on live events', () => {
  let t: TestApp;
  let admin: string;
  let keyA: string;
  let goKey: string;
  let projectA: string;
  let projectB: string;

  const call = async (method: string, path: string, body?: unknown) => {
    const res = await api(t, method, path, { key: admin, body });
    expect({ path, status: res.status }).toEqual({ path, status: method === 'POST' ? 201 : 200 });
    return res.body;
  };
  /** The next event: its type and data. */
  const next = async (reader: FrameReader) => {
    const frame = await reader.event();
    return { type: frame.event, data: JSON.parse(frame.data!).data };
  };

  beforeAll(async () => {
    t = await makeTestApp({ SLINK_TRUST_PROXY: '1' });
    const adminAccount = await makeAccount(t, { role: 'admin' });
    admin = (await createApiKey(t.deps, { accountId: adminAccount.id, scope: 'write' })).key;
    await call('POST', '/domains', { origin: 'https://go.test' });
    projectA = (await call('POST', '/projects', { name: 'A' })).id;
    projectB = (await call('POST', '/projects', { name: 'B' })).id;
    const accountA = await makeAccount(t, { role: 'viewer', projects: [projectA] });
    keyA = (await createApiKey(t.deps, { accountId: accountA.id, scope: 'read' })).key;
    const editor = await makeAccount(t, { role: 'editor' });
    goKey = (await createApiKey(t.deps, { accountId: editor.id, scope: 'read', domains: ['go.test'] })).key;
  });
  afterAll(() => disposeTestApp(t));

  test("a limited stream gets only its links' events and clicks; a link moved out goes silent", async () => {
    const streamA = await openEvents(t.app, { authorization: `Bearer ${keyA}` });
    const streamGo = await openEvents(t.app, { authorization: `Bearer ${goKey}` });
    const b1 = await call('POST', '/links', { destination: 'https://example.com/b1', projectId: projectB });
    const a1 = await call('POST', '/links', { destination: 'https://example.com/a1', projectId: projectA });
    await call('PATCH', `/links/${b1.id}`, { title: 'not for A' });
    let address = 10;
    for (const slug of [b1.slug, a1.slug, a1.slug]) {
      const res = await t.app.handle(clickRequest(`/${slug}`, { ua: UA.chromeWin, ip: `203.0.113.${address++}` }));
      expect(res.status).toBe(302);
    }
    await flushOk(t);
    const created = await next(streamA);
    expect({ type: created.type, id: created.data.id }).toEqual({ type: 'link.created', id: a1.id });
    // Of the batch, the clicks of a1 (in A when the batch is read), not b1's.
    const clicks = await next(streamA);
    expect(clicks.type).toBe('clicks');
    expect(clicks.data.clicks.map((c: { linkId: string }) => c.linkId)).toEqual([a1.id, a1.id]);
    // a1 moves to B: from this change on A hears nothing of it.
    await call('PATCH', `/links/${a1.id}`, { projectId: projectB });
    const late = await t.app.handle(clickRequest(`/${a1.slug}`, { ua: UA.chromeWin, ip: '203.0.113.99' }));
    expect(late.status).toBe(302);
    await flushOk(t);
    const u1 = await call('POST', '/links', { destination: 'https://example.com/u1', domain: 'go.test' });
    const b2 = await call('POST', '/links', { destination: 'https://example.com/b2', projectId: projectB });
    await call('DELETE', `/links/${b2.id}`);
    const a2 = await call('POST', '/links', { destination: 'https://example.com/a2', projectId: projectA });
    await call('DELETE', `/links/${a2.id}`);
    const u2 = await call('POST', '/links', { destination: 'https://example.com/u2', domain: 'go.test' });

    const again = await next(streamA);
    expect({ type: again.type, id: again.data.id }).toEqual({ type: 'link.created', id: a2.id });
    expect(await next(streamA)).toEqual({
      type: 'link.deleted',
      data: { id: a2.id, slug: a2.slug, shortUrl: a2.shortUrl, domain: 'sl.test', projectId: projectA },
    });
    // The stream limited to go.test: its links only, whatever their project.
    const first = await next(streamGo);
    expect({ type: first.type, id: first.data.id }).toEqual({ type: 'link.created', id: u1.id });
    const second = await next(streamGo);
    expect({ type: second.type, id: second.data.id }).toEqual({ type: 'link.created', id: u2.id });
    await streamA.close();
    await streamGo.close();
  });

  test('?link= of a link outside the limits is 404 not_found, as a link that does not exist', async () => {
    const b = await call('POST', '/links', { destination: 'https://example.com/b3', projectId: projectB });
    const outside = await api(t, 'GET', `/events?link=${b.id}`, { key: keyA });
    const none = await api(t, 'GET', '/events?link=lnk_doesnotexist0000', { key: keyA });
    expectError(outside, 404, 'not_found');
    expect(outside.body).toEqual(none.body);
    const a = await call('POST', '/links', { destination: 'https://example.com/a3', projectId: projectA });
    const own = await openEvents(t.app, { authorization: `Bearer ${keyA}` }, `?link=${a.id}`);
    await call('PATCH', `/links/${a.id}`, { title: 'seen' });
    const updated = await next(own);
    expect({ type: updated.type, title: updated.data.title }).toEqual({ type: 'link.updated', title: 'seen' });
    await own.close();
  });

  test("a stream ends when its caller's limits change: it reconnects with the new ones", async () => {
    const account = await makeAccount(t, { role: 'viewer', projects: [projectA] });
    const key = (await createApiKey(t.deps, { accountId: account.id, scope: 'read' })).key;
    const live = await openEvents(t.app, { authorization: `Bearer ${key}` });
    // The account is narrowed elsewhere (another node, the accounts API): its stored row changes.
    t.deps.db.$client
      .query('UPDATE accounts SET projects = ? WHERE id = ?')
      .run(JSON.stringify([projectB]), account.id);
    const frames = await live.rest();
    expect(frames.at(-1)).toEqual({ comment: 'the key or session of this stream no longer holds' });
    expect(frames.filter((f) => f.event !== undefined)).toEqual([]);
  });
});
