/**
 * A link's redirect options through the real app, on each engine: fallbackUrl (expired or past
 * its click limit: a 302 to it, never cached, no click), redirectStatus (the status of the
 * link's and its variants' redirects) and forwardQuery (the visitor's query added, never over
 * the link's own keys); their API fields, defaults and errors.
 */
import { afterEach, beforeEach, expect, test } from 'bun:test';
import type { Engine } from '../../../src/db/address';
import { api, apiExpecting, disposeTestApp, makeKey, makeTestApp, T0, type TestApp } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { expectError } from '../../helpers/schema';
import { insertLinkRow } from '../../helpers/stored';

const SHORT = 'https://sl.test';
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

let t: TestApp;
let su: string;
let engine: Engine = 'sqlite';

forEachEngine((current) => {
  beforeEach(async () => {
    engine = current;
    t = await makeTestApp({}, { engine });
    su = (await makeKey(t, 'write', { superuser: true })).key;
  });
  afterEach(() => disposeTestApp(t));

  const hit = (path: string) => t.app.handle(new Request(`${SHORT}${path}`, { headers: { 'user-agent': CHROME } }));
  async function answer(path: string) {
    const res = await hit(path);
    return {
      status: res.status,
      location: res.headers.get('location'),
      cacheControl: res.headers.get('cache-control'),
      body: await res.text(),
    };
  }
  const write = (method: string, path: string, body?: unknown, status?: number) =>
    apiExpecting(t, su, method, path, body, status);
  const newLink = (body: Record<string, unknown>) =>
    write('POST', '/links', { destination: 'https://example.com/l', ...body });
  async function counts(id: string) {
    expect(await t.deps.clicks.flusher.flush()).toBe(true);
    const link = await write('GET', `/links/${id}`);
    return { clickCount: link.clickCount, botCount: link.botCount };
  }
  const redirect = (status: number, location: string) => ({
    status,
    location,
    cacheControl: 'private, max-age=0',
    body: '',
  });
  const fallback = (location: string) => ({ status: 302, location, cacheControl: 'no-store', body: '' });

  test('the fields: defaults on create, set on create, changed by PATCH, read back by GET', async () => {
    const plain = await newLink({ slug: 'plain' });
    expect(plain).toMatchObject({ fallbackUrl: null, redirectStatus: 302, forwardQuery: false });
    const set = await newLink({
      slug: 'set',
      fallbackUrl: 'https://example.com/sorry?utm_source=x',
      redirectStatus: 308,
      forwardQuery: true,
    });
    expect(set).toMatchObject({
      fallbackUrl: 'https://example.com/sorry?utm_source=x',
      redirectStatus: 308,
      forwardQuery: true,
      params: {},
    });
    const patched = await write('PATCH', `/links/${set.id}`, { fallbackUrl: null, redirectStatus: 301 });
    expect(patched).toMatchObject({ fallbackUrl: null, redirectStatus: 301, forwardQuery: true });
    expect(await write('GET', `/links/${set.id}`)).toMatchObject({
      fallbackUrl: null,
      redirectStatus: 301,
      forwardQuery: true,
    });
    expect(await write('PATCH', `/links/${set.id}`, { forwardQuery: false })).toMatchObject({
      redirectStatus: 301,
      forwardQuery: false,
    });
  });

  test('a link stored before the options existed reads with the defaults and redirects as before', async () => {
    await insertLinkRow(t, { id: 'lnk_old', slug: 'old', destination: 'https://example.com/old', at: T0 });
    await t.deps.linkIndex.refresh('lnk_old');
    expect(await write('GET', '/links/lnk_old')).toMatchObject({
      fallbackUrl: null,
      redirectStatus: 302,
      forwardQuery: false,
    });
    expect(await answer('/old?x=1')).toEqual(redirect(302, 'https://example.com/old'));
  });

  test('bad values: 400 invalid_request naming the field', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [{ redirectStatus: 303 }, 'redirectStatus'],
      [{ redirectStatus: '301' }, 'redirectStatus'],
      [{ forwardQuery: 'yes' }, 'forwardQuery'],
      [{ fallbackUrl: 'javascript:alert(1)' }, 'fallbackUrl'],
      [{ fallbackUrl: 'https://example.com/\nx' }, 'fallbackUrl'],
      [{ fallbackUrl: `https://example.com/${'x'.repeat(2048)}` }, 'fallbackUrl'],
      [{ fallbackUrl: 'https://sl.test/abc' }, 'fallbackUrl'],
      [{ fallbackUrl: 5 }, 'fallbackUrl'],
    ];
    const link = await newLink({ slug: 'ok' });
    for (const [body, field] of bad) {
      const created = await api(t, 'POST', '/links', {
        key: su,
        body: { destination: 'https://example.com/', ...body },
      });
      expectError(created, 400, 'invalid_request', field);
      expectError(await api(t, 'PATCH', `/links/${link.id}`, { key: su, body }), 400, 'invalid_request', field);
    }
    expect(await write('GET', `/links/${link.id}`)).toMatchObject({
      fallbackUrl: null,
      redirectStatus: 302,
      forwardQuery: false,
    });
  });

  test('expired with a fallbackUrl: 302 to it, no-store, no click; without one the 410 page stays', async () => {
    const withFallback = await newLink({ slug: 'fb', expiresAt: T0 + 10, fallbackUrl: 'https://example.com/over' });
    await newLink({ slug: 'bare', expiresAt: T0 + 10 });
    await write('POST', `/links/${withFallback.id}/variants`, { code: 'v' });
    expect(await answer('/fb')).toEqual(redirect(302, 'https://example.com/l'));
    t.clock.set(T0 + 10);
    expect(await answer('/fb')).toEqual(fallback('https://example.com/over'));
    expect(await answer('/fb/v')).toEqual(fallback('https://example.com/over'));
    const gone = await answer('/bare');
    expect(gone.status).toBe(410);
    expect(gone.body).toContain('<p class="code">410</p>');
    expect(await counts(withFallback.id)).toEqual({ clickCount: 1, botCount: 0 });
    // A paused link stays 404, fallback or not.
    await write('PATCH', `/links/${withFallback.id}`, { status: 'paused' });
    const paused = await answer('/fb');
    expect({ status: paused.status, location: paused.location }).toEqual({ status: 404, location: null });
  });

  test('past its clickLimit with a fallbackUrl: 302 to it, no-store, no click recorded', async () => {
    const link = await newLink({ slug: 'lim', clickLimit: 1, fallbackUrl: 'https://example.com/full' });
    await newLink({ slug: 'lim2', clickLimit: 1 });
    expect(await answer('/lim')).toEqual(redirect(302, 'https://example.com/l'));
    expect(await answer('/lim')).toEqual(fallback('https://example.com/full'));
    expect(await answer('/lim')).toEqual(fallback('https://example.com/full'));
    expect(await counts(link.id)).toEqual({ clickCount: 1, botCount: 0 });
    expect(await answer('/lim')).toEqual(fallback('https://example.com/full'));
    expect(await counts(link.id)).toEqual({ clickCount: 1, botCount: 0 });
    expect((await answer('/lim2')).status).toBe(302);
    expect((await answer('/lim2')).status).toBe(410);
  });

  test('redirectStatus 301, 307, 308: the link and its variants answer with it, clicks counted', async () => {
    for (const status of [301, 307, 308]) {
      const link = await newLink({ slug: `s${status}`, redirectStatus: status, params: { utm_source: 'a' } });
      await write('POST', `/links/${link.id}/variants`, { code: 'v', params: { utm_source: 'b' } });
      expect(await answer(`/s${status}`)).toEqual(redirect(status, 'https://example.com/l?utm_source=a'));
      expect(await answer(`/s${status}/v`)).toEqual(redirect(status, 'https://example.com/l?utm_source=b'));
      expect(await counts(link.id)).toEqual({ clickCount: 2, botCount: 0 });
    }
    const link = await newLink({ slug: 'back', redirectStatus: 308 });
    await write('PATCH', `/links/${link.id}`, { redirectStatus: 302 });
    expect(await answer('/back')).toEqual(redirect(302, 'https://example.com/l'));
  });

  test("forwardQuery: the visitor's query added, the link's own keys kept, odd characters encoded", async () => {
    const link = await newLink({
      slug: 'fq',
      destination: 'https://example.com/p?ref=dest#top',
      params: { utm_source: 'news' },
      forwardQuery: true,
    });
    await write('POST', `/links/${link.id}/variants`, { code: 'v', params: { utm_source: 'ads', utm_medium: 'cpc' } });
    expect(await answer('/fq')).toEqual(redirect(302, 'https://example.com/p?ref=dest&utm_source=news#top'));
    expect(await answer('/fq?gclid=abc&utm_source=evil&ref=evil&b=1&b=2')).toEqual(
      redirect(302, 'https://example.com/p?ref=dest&utm_source=news&gclid=abc&b=1&b=2#top'),
    );
    expect(await answer('/fq/v?utm_medium=evil&q=a%20b+c&x=%E2%82%AC&y=é')).toEqual(
      redirect(302, 'https://example.com/p?ref=dest&utm_source=ads&utm_medium=cpc&q=a%20b+c&x=%E2%82%AC&y=%C3%A9#top'),
    );
    // A key the link sets, percent-encoded by the visitor, is still the link's.
    expect(await answer('/fq?utm%5Fsource=evil')).toEqual(
      redirect(302, 'https://example.com/p?ref=dest&utm_source=news#top'),
    );
    const plain = await newLink({ slug: 'nofq', destination: 'https://example.com/n' });
    expect(await answer('/nofq?gclid=abc')).toEqual(redirect(302, 'https://example.com/n'));
    await write('PATCH', `/links/${plain.id}`, { forwardQuery: true });
    expect(await answer('/nofq?gclid=abc')).toEqual(redirect(302, 'https://example.com/n?gclid=abc'));
    expect(await counts(link.id)).toEqual({ clickCount: 4, botCount: 0 });
  });
});
