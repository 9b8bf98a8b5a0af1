/**
 * A link's `availability` (live, paused, expired, limit) agrees with what a visitor of its short
 * link gets through the real redirect, on every path that returns a Link, judged with the
 * injected clock; GET /links filters on it and GET /links/count counts with the list's filters.
 */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { LinkModel } from '../../src/modules/links/model';
import { api, disposeTestApp, T0 } from '../helpers/app';
import { forEachEngine } from '../helpers/engines';
import { expectError, expectExactKeys, expectSchema } from '../helpers/schema';
import { type Ctx, click, createLink, flushOk, getLink, setup, UA } from './clicks/support';

let c: Ctx;
forEachEngine((engine) => {
  beforeEach(async () => {
    c = await setup({}, engine);
  });
  afterEach(async () => {
    await disposeTestApp(c.t);
  });

  async function patch(id: string, body: Record<string, unknown>): Promise<any> {
    const res = await api(c.t, 'PATCH', `/links/${id}`, { key: c.key, body });
    expect(res.status).toBe(200);
    expectSchema(LinkModel, res.body);
    return res.body;
  }

  async function slugsWhere(query: string): Promise<string[]> {
    const res = await api(c.t, 'GET', `/links?sort=oldest&${query}`, { key: c.key });
    expect(res.status).toBe(200);
    return res.body.items.map((l: any) => l.slug);
  }

  async function countWhere(query: string): Promise<number> {
    const res = await api(c.t, 'GET', `/links/count?${query}`, { key: c.key });
    expect(res.status).toBe(200);
    expectExactKeys(res.body, ['count']);
    expect(Number.isSafeInteger(res.body.count)).toBe(true);
    return res.body.count;
  }

  describe('availability agrees with the redirect', () => {
    test('a new link is live, and so is an archived one: both redirect', async () => {
      const link = await createLink(c, { slug: 'fresh' });
      expect(link.availability).toBe('live');
      expect(await click(c.t, '/fresh')).toBe(302);
      const archived = await patch(link.id, { status: 'archived' });
      expect(archived).toMatchObject({ status: 'archived', availability: 'live' });
      expect(await click(c.t, '/fresh')).toBe(302);
    });

    test('paused: 404 page; expired at the instant expiresAt is reached: 410', async () => {
      const link = await createLink(c, { slug: 'timed', expiresAt: T0 + 60_000 });
      expect((await patch(link.id, { status: 'paused' })).availability).toBe('paused');
      expect(await click(c.t, '/timed')).toBe(404);
      expect((await patch(link.id, { status: 'active' })).availability).toBe('live');

      c.t.clock.set(T0 + 59_999);
      expect((await getLink(c, link.id)).availability).toBe('live');
      expect(await click(c.t, '/timed')).toBe(302);
      c.t.clock.set(T0 + 60_000);
      // Read again, nothing written since: the field is judged with the clock at read time.
      expect((await getLink(c, link.id)).availability).toBe('expired');
      expect(await click(c.t, '/timed')).toBe(410);
    });

    test('clickLimit 2: two human clicks through the redirect, a flush, then limit and 410', async () => {
      const link = await createLink(c, { slug: 'twice', clickLimit: 2 });
      expect(await click(c.t, '/twice', { ua: UA.chromeWin, ip: '192.0.2.1' })).toBe(302);
      // A bot hit never uses the limit up.
      expect(await click(c.t, '/twice', { ua: UA.googlebot })).toBe(302);
      await flushOk(c.t);
      expect((await getLink(c, link.id)).availability).toBe('live');
      expect(await click(c.t, '/twice', { ua: UA.safariIphone, ip: '192.0.2.2' })).toBe(302);
      await flushOk(c.t);
      const full = await getLink(c, link.id);
      expect(full).toMatchObject({ clickCount: 2, clickLimit: 2, availability: 'limit' });
      expect(await click(c.t, '/twice', { ua: UA.firefoxLinux, ip: '192.0.2.3' })).toBe(410);
      // A higher limit makes it live again, for the redirect too.
      expect((await patch(link.id, { clickLimit: 3 })).availability).toBe('live');
      expect(await click(c.t, '/twice', { ua: UA.firefoxLinux, ip: '192.0.2.3' })).toBe(302);
    });

    test('when several hold, the redirect order decides: paused, then expired, then limit', async () => {
      const link = await createLink(c, { slug: 'all', clickLimit: 1, expiresAt: T0 + 1_000 });
      expect(await click(c.t, '/all', { ip: '192.0.2.1' })).toBe(302);
      await flushOk(c.t);
      expect((await getLink(c, link.id)).availability).toBe('limit');
      c.t.clock.set(T0 + 1_000);
      expect((await getLink(c, link.id)).availability).toBe('expired');
      expect(await click(c.t, '/all')).toBe(410);
      expect((await patch(link.id, { status: 'paused' })).availability).toBe('paused');
      expect(await click(c.t, '/all')).toBe(404);
      // Archived redirects: the other reasons show through.
      expect((await patch(link.id, { status: 'archived' })).availability).toBe('expired');
    });

    test('every path that returns a Link carries it: create, get, update, list, bulk create', async () => {
      const made = await createLink(c, { slug: 'gone', expiresAt: T0 });
      expect(made.availability).toBe('expired');
      expect((await getLink(c, made.id)).availability).toBe('expired');
      expect((await patch(made.id, { title: 'still gone' })).availability).toBe('expired');
      const list = await api(c.t, 'GET', '/links', { key: c.key });
      expect(list.body.items.map((l: any) => [l.slug, l.availability])).toEqual([['gone', 'expired']]);
      const bulk = await api(c.t, 'POST', '/links/bulk/create', {
        key: c.key,
        body: { text: 'https://bulk.example/' },
      });
      expect(bulk.status).toBe(201);
      expect(bulk.body.created.map((x: any) => x.link.availability)).toEqual(['live']);
    });
  });

  describe('the availability filter and GET /links/count', () => {
    async function seed() {
      const live = await createLink(c, { slug: 'live' });
      const paused = await createLink(c, { slug: 'paused', expiresAt: T0 });
      await patch(paused.id, { status: 'paused' });
      await createLink(c, { slug: 'expired', expiresAt: T0 + 500, tags: ['t'] });
      const limited = await createLink(c, { slug: 'limited', clickLimit: 1, tags: ['t'] });
      expect(await click(c.t, '/limited')).toBe(302);
      await flushOk(c.t);
      const archived = await createLink(c, { slug: 'archived', expiresAt: T0 + 500 });
      await patch(archived.id, { status: 'archived' });
      const old = await createLink(c, { slug: 'old-archive' });
      await patch(old.id, { status: 'archived' });
      c.t.clock.set(T0 + 500);
      return { live, limited };
    }

    test('each value lists exactly the links a visitor finds so; status keeps its default (active and paused)', async () => {
      await seed();
      expect(await slugsWhere('availability=live')).toEqual(['live']);
      expect(await slugsWhere('availability=paused')).toEqual(['paused']);
      expect(await slugsWhere('availability=expired')).toEqual(['expired']);
      expect(await slugsWhere('availability=limit')).toEqual(['limited']);
      expect(await slugsWhere('availability=expired&status=archived')).toEqual(['archived']);
      expect(await slugsWhere('availability=live&status=archived')).toEqual(['old-archive']);
      expect(await slugsWhere('availability=live&status=paused')).toEqual([]);
      expect(await slugsWhere('availability=expired&tag=t')).toEqual(['expired']);
      expect(await slugsWhere('availability=limit&q=lim')).toEqual(['limited']);
      // Every listed link says so itself.
      const res = await api(c.t, 'GET', '/links?availability=expired', { key: c.key });
      expect(res.body.items.map((l: any) => l.availability)).toEqual(['expired']);
    });

    test('the count takes the same filters and counts every page', async () => {
      await seed();
      expect(await countWhere('')).toBe(4);
      expect(await countWhere('status=archived')).toBe(2);
      expect(await countWhere('availability=live')).toBe(1);
      expect(await countWhere('availability=expired&status=archived')).toBe(1);
      expect(await countWhere('tag=t')).toBe(2);
      expect(await countWhere('tag=t&availability=limit')).toBe(1);
      expect(await countWhere('q=ed&project=none')).toBe(3);
      expect(await countWhere('project=prj_nothing')).toBe(0);
      for (let i = 0; i < 3; i++) await createLink(c, { destination: `https://many.example/${i}` });
      const firstPage = await api(c.t, 'GET', '/links?limit=2', { key: c.key });
      expect(firstPage.body.cursor).not.toBeNull();
      expect(await countWhere('')).toBe(7);
    });

    test('/links/count is its own route: GET /links/{id} still answers links, other methods on it are 404', async () => {
      const { live } = await seed();
      expect((await api(c.t, 'GET', `/links/${live.id}`, { key: c.key })).body.slug).toBe('live');
      expectError(await api(c.t, 'GET', '/links/counts', { key: c.key }), 404, 'not_found');
      expectError(await api(c.t, 'PATCH', '/links/count', { key: c.key, body: { title: 'x' } }), 404, 'not_found');
      expectError(await api(c.t, 'GET', '/links/count'), 401, 'key_missing');
    });

    test('a bad value is 400 naming the field, on the list and on the count', async () => {
      for (const path of ['/links', '/links/count']) {
        expectError(
          await api(c.t, 'GET', `${path}?availability=gone`, { key: c.key }),
          400,
          'invalid_request',
          'availability',
        );
        expectError(
          await api(c.t, 'GET', `${path}?availability=`, { key: c.key }),
          400,
          'invalid_request',
          'availability',
        );
        expectError(await api(c.t, 'GET', `${path}?status=old`, { key: c.key }), 400, 'invalid_request', 'status');
      }
      const res = await api(c.t, 'GET', '/links/count?availability=gone', { key: c.key });
      expect(res.body.error.message).toBe('availability must be one of live, paused, expired, limit');
    });
  });
});
