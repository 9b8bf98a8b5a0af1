/**
 * Bulk verbs on a selection (docs/behaviour.md, "Bulk operations"): POST /links/bulk/tags,
 * /links/bulk/status and /links/bulk/delete, through the real app on a migrated SQLite file.
 * Every result is checked through the API (GET /links/{id}, the list's filters, the tag counts)
 * and through the short host's redirect, never by trusting the bulk answer alone.
 */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { api, disposeTestApp, makeKey, T0, type TestApp } from '../helpers/app';
import { engineBlind, forEachEngine } from '../helpers/engines';
import { expectError } from '../helpers/schema';
import { type Ctx, click, createLink, flushOk, getLink, setup, UA } from './clicks/support';

let c: Ctx;
let t: TestApp;

forEachEngine((engine) => {
  // Request validation and scopes (`blind`) are checked on SQLite only; the changes themselves on both engines.
  const blind = engineBlind(engine);
  beforeEach(async () => {
    c = await setup({}, engine);
    t = c.t;
  });
  afterEach(() => disposeTestApp(t));

  const post = (path: string, body: unknown, key = c.key) => api(t, 'POST', `/links/bulk/${path}`, { key, body });

  async function ok(path: string, body: unknown): Promise<any> {
    const res = await post(path, body);
    expect({ status: res.status, body: res.body }).toMatchObject({ status: 200 });
    return res.body;
  }

  async function tagCounts(): Promise<Record<string, number>> {
    const res = await api(t, 'GET', '/links/tags', { key: c.key });
    expect(res.status).toBe(200);
    return Object.fromEntries(res.body.tags.map((x: any) => [x.tag, x.count]));
  }

  async function listedIds(query: string): Promise<string[]> {
    const res = await api(t, 'GET', `/links?limit=100&${query}`, { key: c.key });
    expect(res.status).toBe(200);
    return res.body.items.map((l: any) => l.id).sort();
  }

  describe('POST /links/bulk/tags', () => {
    test('adds and removes in one request; other tags stay; updatedAt moves only on changed links', async () => {
      const a = await createLink(c, { destination: 'https://example.com/a', tags: ['keep', 'old'] });
      const b = await createLink(c, { destination: 'https://example.com/b', tags: ['new'] });
      const other = await createLink(c, { destination: 'https://example.com/other', tags: ['old'] });
      t.clock.set(T0 + 60_000);
      const body = await ok('tags', { ids: [a.id, b.id], add: ['new'], remove: ['old'] });
      expect(body).toEqual({ updated: 1, unchanged: 1, notFound: [] });
      expect((await getLink(c, a.id)).tags).toEqual(['keep', 'new']);
      expect((await getLink(c, a.id)).updatedAt).toBe(T0 + 60_000);
      expect(await getLink(c, b.id)).toEqual(b);
      expect((await getLink(c, other.id)).tags).toEqual(['old']);
      expect(await tagCounts()).toEqual({ keep: 1, new: 2, old: 1 });
      expect(await listedIds('tag=new')).toEqual([a.id, b.id].sort());
    });

    test('a tag with URL characters round-trips through the tag filter', async () => {
      const a = await createLink(c, {});
      expect(await ok('tags', { ids: [a.id], add: ['a&b #1+%'] })).toEqual({ updated: 1, unchanged: 0, notFound: [] });
      expect(await listedIds(`tag=${encodeURIComponent('a&b #1+%')}`)).toEqual([a.id]);
    });

    test('tags are trimmed; unknown ids listed once in request order', async () => {
      const a = await createLink(c, {});
      const body = await ok('tags', { ids: ['lnk_gone', a.id, a.id, 'lnk_gone'], add: ['  spaced  '] });
      expect(body).toEqual({ updated: 1, unchanged: 0, notFound: ['lnk_gone'] });
      expect((await getLink(c, a.id)).tags).toEqual(['spaced']);
    });

    blind('bad input names its field and changes nothing', async () => {
      const a = await createLink(c, { tags: ['x'] });
      expectError(await post('tags', { ids: [a.id] }), 400, 'invalid_request', 'add');
      expectError(await post('tags', { ids: [a.id], add: [], remove: [] }), 400, 'invalid_request', 'add');
      expectError(await post('tags', { ids: [a.id], add: ['y'], remove: ['y'] }), 400, 'invalid_request', 'remove');
      expectError(await post('tags', { ids: [a.id], add: [' '] }), 400, 'invalid_request', 'add');
      expectError(await post('tags', { ids: [a.id], remove: ['x'.repeat(65)] }), 400, 'invalid_request', 'remove');
      expectError(await post('tags', { ids: [a.id], add: 'y' }), 400, 'invalid_request', 'add');
      expectError(await post('tags', { ids: [], add: ['y'] }), 400, 'invalid_request', 'ids');
      expect((await getLink(c, a.id)).tags).toEqual(['x']);
    });

    test('a link that would carry more than 50 tags stops the whole request', async () => {
      const full = await createLink(c, { tags: Array.from({ length: 50 }, (_, i) => `t${i}`) });
      const light = await createLink(c, { tags: [] });
      expectError(await post('tags', { ids: [light.id, full.id], add: ['extra'] }), 400, 'invalid_request', 'add');
      expect((await getLink(c, light.id)).tags).toEqual([]);
      // Swapping one tag for another keeps it at 50: allowed.
      expect(await ok('tags', { ids: [full.id], add: ['extra'], remove: ['t0'] })).toMatchObject({ updated: 1 });
      expect((await getLink(c, full.id)).tags).toHaveLength(50);
    });

    blind('a read key gets 403 and nothing changes', async () => {
      const a = await createLink(c, {});
      const { key } = await makeKey(t, 'read');
      expectError(await post('tags', { ids: [a.id], add: ['x'] }, key), 403, 'insufficient_scope', null);
      expect((await getLink(c, a.id)).tags).toEqual([]);
    });
  });

  describe('POST /links/bulk/status', () => {
    test('pause, then restore: the redirect follows at once, the list filters agree', async () => {
      const a = await createLink(c, { destination: 'https://example.com/a' });
      const b = await createLink(c, { destination: 'https://example.com/b' });
      const stays = await createLink(c, { destination: 'https://example.com/c' });
      expect(await ok('status', { ids: [a.id, b.id], status: 'paused' })).toEqual({
        updated: 2,
        unchanged: 0,
        notFound: [],
      });
      expect(await click(t, `/${a.slug}`)).toBe(404);
      expect(await click(t, `/${b.slug}`)).toBe(404);
      expect(await click(t, `/${stays.slug}`)).toBe(302);
      expect(await listedIds('status=paused')).toEqual([a.id, b.id].sort());

      expect(await ok('status', { ids: [a.id, b.id, stays.id], status: 'active' })).toEqual({
        updated: 2,
        unchanged: 1,
        notFound: [],
      });
      expect(await click(t, `/${a.slug}`)).toBe(302);
      expect((await getLink(c, b.id)).status).toBe('active');
    });

    test('archive hides from the default list but keeps redirecting; restore brings it back', async () => {
      const a = await createLink(c, {});
      expect(await ok('status', { ids: [a.id, 'lnk_none'], status: 'archived' })).toEqual({
        updated: 1,
        unchanged: 0,
        notFound: ['lnk_none'],
      });
      expect(await listedIds('')).toEqual([]);
      expect(await listedIds('status=archived')).toEqual([a.id]);
      expect(await click(t, `/${a.slug}`)).toBe(302);
      await ok('status', { ids: [a.id], status: 'active' });
      expect(await listedIds('')).toEqual([a.id]);
    });

    blind('a bad status or missing ids names the field', async () => {
      const a = await createLink(c, {});
      expectError(await post('status', { ids: [a.id], status: 'deleted' }), 400, 'invalid_request', 'status');
      expectError(await post('status', { ids: [a.id] }), 400, 'invalid_request', 'status');
      expectError(await post('status', { status: 'paused' }), 400, 'invalid_request', 'ids');
      expect((await getLink(c, a.id)).status).toBe('active');
    });
  });

  describe('POST /links/bulk/delete', () => {
    test('links with human clicks are refused and listed with their clicks; the others go in one request', async () => {
      const clicked = await createLink(c, { destination: 'https://example.com/clicked' });
      const botsOnly = await createLink(c, { destination: 'https://example.com/bots' });
      const fresh = await createLink(c, { destination: 'https://example.com/fresh' });
      expect(await click(t, `/${clicked.slug}`, { ua: UA.chromeWin })).toBe(302);
      expect(await click(t, `/${clicked.slug}`, { ua: UA.firefoxLinux })).toBe(302);
      expect(await click(t, `/${botsOnly.slug}`, { ua: UA.curl })).toBe(302);
      await flushOk(t);

      const body = await ok('delete', { ids: [clicked.id, botsOnly.id, fresh.id, 'lnk_none'] });
      expect(body).toEqual({
        deleted: [botsOnly.id, fresh.id],
        refused: [{ id: clicked.id, slug: clicked.slug, clickCount: 2 }],
        notFound: ['lnk_none'],
      });
      for (const gone of [botsOnly, fresh]) {
        expectError(await api(t, 'GET', `/links/${gone.id}`, { key: c.key }), 404, 'not_found', null);
        expect(await click(t, `/${gone.slug}`)).toBe(404);
      }
      expect((await getLink(c, clicked.id)).clickCount).toBe(2);
    });

    test('a human click still in the buffer blocks the delete, as for DELETE /links/{id}', async () => {
      const a = await createLink(c, {});
      expect(await click(t, `/${a.slug}`, { ua: UA.safariIphone })).toBe(302);
      expect(await ok('delete', { ids: [a.id] })).toEqual({
        deleted: [],
        refused: [{ id: a.id, slug: a.slug, clickCount: 1 }],
        notFound: [],
      });
      await flushOk(t);
      expect((await getLink(c, a.id)).clickCount).toBe(1);
    });

    blind('201 ids or none -> 400 field ids; a read key -> 403; nothing deleted', async () => {
      const a = await createLink(c, {});
      const many = Array.from({ length: 201 }, (_, i) => `lnk_${i}`);
      expectError(await post('delete', { ids: many }), 400, 'invalid_request', 'ids');
      expectError(await post('delete', { ids: [] }), 400, 'invalid_request', 'ids');
      const { key } = await makeKey(t, 'read');
      expectError(await post('delete', { ids: [a.id] }, key), 403, 'insufficient_scope', null);
      expect((await getLink(c, a.id)).id).toBe(a.id);
    });
  });
});
