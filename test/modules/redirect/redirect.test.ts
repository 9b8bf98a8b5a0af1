/**
 * The short host through the real app: redirects, variants, pages for links that cannot
 * redirect, bots, host routing, and the slug index staying coherent with every API write.
 * On each engine. Clicks are flushed explicitly, then read back through the API or the stored clicks.
 */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { createApp } from '../../../src/app';
import { createDeps, unportedDb } from '../../../src/compose/deps';
import { postgresStores, sqliteStores } from '../../../src/compose/stores';
import type { Engine } from '../../../src/db/address';
import { openDatabase } from '../../../src/db/client';
import { migrateDatabase } from '../../../src/db/migrate';
import { openPostgres } from '../../../src/db/postgres/client';
import {
  type ApiResult,
  api,
  apiExpecting,
  disposeTestApp,
  makeKey,
  makeTestApp,
  T0,
  type TestApp,
} from '../../helpers/app';
import { engineBlind, forEachEngine } from '../../helpers/engines';
import { PREVIEW_AGENTS } from '../../helpers/preview-agents';
import { expectError } from '../../helpers/schema';
import { countRows, insertLinkRow, storedClicks } from '../../helpers/stored';

const SHORT = 'https://sl.test';
const SINGLE = { SLINK_SHORT_HOST: SHORT, SLINK_APP_HOST: SHORT };
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const FACEBOOK = 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)';
const CURL = 'curl/8.4.0';
const PREVIEW_AGENT_NAMES = Object.keys(PREVIEW_AGENTS);
/** robots.txt: the social-preview crawlers let in, everyone else kept out. */
const ROBOTS = `${PREVIEW_AGENT_NAMES.map((name) => `User-agent: ${name}\n`).join('')}Allow: /\n\nUser-agent: *\nDisallow: /\n`;

let t: TestApp;
let su: string;
/** The engine of the tests running now (set by forEachEngine's blocks below). */
let engine: Engine = 'sqlite';
async function start(env: Record<string, string> = {}) {
  t = await makeTestApp(env, { engine });
  su = (await makeKey(t, 'write', { superuser: true })).key;
}
forEachEngine((current) => {
  // Query merging, percent-encoding, paths, methods, user-agent classes and the host split are
  // decided from the in-memory slug index (`blind`: SQLite only); what the store loads, counts
  // and follows runs on both engines.
  const blind = engineBlind(current);
  beforeEach(() => {
    engine = current;
    return start();
  });
  afterEach(() => disposeTestApp(t));

  interface Hit {
    method?: string;
    ua?: string | null;
    headers?: Record<string, string>;
    origin?: string;
  }
  /** Bot hits by the documented rule: a bot user agent, none at all, or HEAD. */
  const BOT_HITS: Hit[] = [{ ua: CURL }, { ua: null }, { method: 'HEAD' }];
  /** A visitor's request to the short host; a Chrome desktop user agent unless told otherwise. */
  function hit(path: string, o: Hit = {}): Promise<Response> {
    const headers: Record<string, string> = { ...o.headers };
    const ua = o.ua === undefined ? CHROME : o.ua;
    if (ua !== null) headers['user-agent'] = ua;
    return t.app.handle(new Request(`${o.origin ?? SHORT}${path}`, { method: o.method ?? 'GET', headers }));
  }
  async function go(path: string, location: string, o?: Hit) {
    const res = await hit(path, o);
    expect({ path, status: res.status, location: res.headers.get('location') }).toEqual({
      path,
      status: 302,
      location,
    });
    expect(res.headers.get('cache-control')).toBe('private, max-age=0');
    expect(await res.text()).toBe('');
  }
  /** The short host's HTML page with this status, and no click captured. */
  async function page(path: string, status: number, o?: Hit) {
    const before = t.deps.clicks.buffer.length;
    const res = await hit(path, o);
    expect({ path, status: res.status, location: res.headers.get('location') }).toEqual({
      path,
      status,
      location: null,
    });
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await res.text()).toContain(`<p class="code">${status}</p>`);
    expect(t.deps.clicks.buffer.length).toBe(before);
    return res;
  }
  /** A JSON answer from the app (any host), shaped like the api() helper's result. */
  async function call(url: string, init: RequestInit & { key?: string } = {}): Promise<ApiResult> {
    const headers = new Headers(init.headers);
    if (init.key) headers.set('authorization', `Bearer ${init.key}`);
    if (init.body) headers.set('content-type', 'application/json');
    const res = await t.app.handle(new Request(url, { ...init, headers }));
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
  }

  const write = (method: string, path: string, body?: unknown, status?: number) =>
    apiExpecting(t, su, method, path, body, status);
  const newLink = (body: Record<string, unknown>) =>
    write('POST', '/links', { destination: 'https://example.com/l', ...body });
  const patchLink = (id: string, body: Record<string, unknown>) => write('PATCH', `/links/${id}`, body);
  /** Writes every buffered click now (flusher API: `flush()`, formerly the synchronous `flushAll()`). */
  async function flush() {
    const flusher = t.deps.clicks.flusher as unknown as { flush?(): Promise<boolean>; flushAll?(): boolean };
    expect(await (flusher.flush ? flusher.flush() : flusher.flushAll!())).toBe(true);
    expect(t.deps.clicks.buffer.length).toBe(0);
  }
  /** Flushes, then reads the link's counters through the API. */
  async function counts(id: string) {
    await flush();
    const l = await write('GET', `/links/${id}`);
    return {
      clickCount: l.clickCount,
      botCount: l.botCount,
      uniqueCount: l.uniqueCount,
      variants: Object.fromEntries(l.variants.map((v: any) => [v.code, v.clickCount])),
    };
  }
  const rawClicks = async () =>
    (await storedClicks(t)).map(({ link_id, variant_id, variant_code, destination, bot }) => ({
      link_id,
      variant_id,
      variant_code,
      destination,
      bot,
    })) as any[];
  /** A link row (and its counters row) written straight into the database (bypassing validation), then indexed. */
  async function insertRaw(id: string, slug: string, destination: string) {
    await insertLinkRow(t, { id, slug, destination, at: T0 });
    await t.deps.linkIndex.refresh(id);
  }

  describe('302 redirect', () => {
    test('Location carries the link params; private, max-age=0; no body; the click is recorded', async () => {
      const link = await newLink({
        slug: 'abc',
        destination: 'https://example.com/p?b=%2F&a=1#frag',
        params: { a: '2', c: 'x y' },
      });
      await go('/abc', 'https://example.com/p?b=%2F&a=2&c=x%20y#frag');
      expect(t.deps.clicks.buffer.length).toBe(1);
      expect(await counts(link.id)).toEqual({ clickCount: 1, botCount: 0, uniqueCount: 1, variants: {} });
      expect((await write('GET', `/links/${link.id}`)).lastClickedAt).toBe(T0);
      expect(await rawClicks()).toEqual([
        {
          link_id: link.id,
          variant_id: null,
          variant_code: null,
          destination: 'https://example.com/p?b=%2F&a=2&c=x%20y#frag',
          bot: 0,
        },
      ]);
    });

    test('a unique visitor is one address and user agent pair (X-Forwarded-For trusted); no address is stored', async () => {
      await disposeTestApp(t);
      await start({ SLINK_TRUST_PROXY: '1' });
      const link = await newLink({ slug: 'abc' });
      for (const [ip, ua] of [
        ['203.0.113.7', CHROME],
        ['203.0.113.7', CHROME],
        ['198.51.100.2', CHROME],
        ['203.0.113.7', `${CHROME} Edg/124.0`],
      ]) {
        await go('/abc', 'https://example.com/l', { ua, headers: { 'x-forwarded-for': ip! } });
      }
      expect(await counts(link.id)).toMatchObject({ clickCount: 4, uniqueCount: 3 });
      expect(JSON.stringify(await storedClicks(t))).not.toMatch(/203\.0\.113|198\.51|10\.0\.0/);
    });

    test('behind one trusted proxy, addresses a client prepends to X-Forwarded-For are ignored', async () => {
      await disposeTestApp(t);
      await start({ SLINK_TRUST_PROXY: '1' });
      const link = await newLink({ slug: 'abc' });
      // One visitor forging a new address each time: the proxy's own entry (right-most) decides.
      for (const forged of ['1.1.1.1', '2.2.2.2', '3.3.3.3, 4.4.4.4']) {
        await go('/abc', 'https://example.com/l', { headers: { 'x-forwarded-for': `${forged}, 203.0.113.7` } });
      }
      expect(await counts(link.id)).toMatchObject({ clickCount: 3, uniqueCount: 1 });
    });

    blind('a key already in the query is replaced in place, later duplicates dropped, new keys appended', async () => {
      await newLink({
        slug: 'abc',
        destination: 'https://example.com/?k=1&z=%7E&k=2#top',
        params: { n: '1', k: 'new' },
      });
      await go('/abc', 'https://example.com/?k=new&z=%7E&n=1#top');
    });

    test('utm_ keys lifted from the destination at create are re-applied on redirect', async () => {
      const link = await newLink({
        slug: 'abc',
        destination: 'https://example.com/?utm_source=nl&id=7&utm_medium=e+mail',
      });
      expect([link.destination, link.params]).toEqual([
        'https://example.com/?id=7',
        { utm_source: 'nl', utm_medium: 'e mail' },
      ]);
      await go('/abc', 'https://example.com/?id=7&utm_source=nl&utm_medium=e%20mail');
    });

    blind(
      'values with spaces, &, =, unicode and emoji are percent-encoded; the Location is printable ASCII',
      async () => {
        await newLink({ slug: 'abc', params: { q: 'a b&c=d', u: 'café', e: '🎉', ключ: 'ü' } });
        await go(
          '/abc',
          'https://example.com/l?q=a%20b%26c%3Dd&u=caf%C3%A9&e=%F0%9F%8E%89&%D0%BA%D0%BB%D1%8E%D1%87=%C3%BC',
        );
      },
    );

    test('control and non-ASCII characters stored in a destination are percent-encoded, never a 500', async () => {
      await insertRaw('lnk_raw1', 'tab', 'https://example.com/a\tb?x=1');
      await insertRaw('lnk_raw2', 'emoji', 'https://example.com/😀');
      await go('/tab', 'https://example.com/a%09b?x=1');
      await go('/emoji', 'https://example.com/%F0%9F%98%80');
    });

    test('a param with a lone UTF-16 surrogate is refused with 400 and nothing is stored', async () => {
      const link = await newLink({ slug: 'abc' });
      const raw = (params: string) => `{"destination":"https://example.com/","params":${params}}`;
      const headers = { 'content-type': 'application/json' };
      expectError(
        await api(t, 'POST', '/links', { key: su, rawBody: raw('{"a":"\\ud800"}'), headers }),
        400,
        'invalid_request',
        'params',
      );
      expectError(
        await api(t, 'POST', '/links', { key: su, rawBody: raw('{"\\udc00":"x"}'), headers }),
        400,
        'invalid_request',
        'params',
      );
      const variant = { key: su, rawBody: '{"code":"fb","params":{"a":"\\ud83d"}}', headers };
      expectError(await api(t, 'POST', `/links/${link.id}/variants`, variant), 400, 'invalid_request', 'params');
      expect({ n: await countRows(t, 'links') }).toEqual({ n: 1 });
      await go('/abc/fb', 'https://example.com/l');
    });
  });

  describe('variants', () => {
    let link: any;
    beforeEach(async () => {
      link = await newLink({ slug: 'abc', params: { utm_source: 'base', utm_medium: 'social' } });
      await write('POST', `/links/${link.id}/variants`, { code: 'fb', params: { utm_source: 'facebook' } });
      await write('POST', `/links/${link.id}/variants`, { code: 'FB', params: { utm_source: 'FB', extra: '1' } });
    });

    test('the code selects variant params over the link params; codes are case-sensitive; trailing slashes work', async () => {
      await go('/abc/fb', 'https://example.com/l?utm_source=facebook&utm_medium=social');
      await go('/abc/FB', 'https://example.com/l?utm_source=FB&utm_medium=social&extra=1');
      await go('/abc/fb/', 'https://example.com/l?utm_source=facebook&utm_medium=social');
      await go('/abc/', 'https://example.com/l?utm_source=base&utm_medium=social');
      await go('/abc/Fb', 'https://example.com/l?utm_source=base&utm_medium=social');
    });

    test('a known code counts for its variant; an unknown code redirects to the base and keeps the code', async () => {
      await go('/abc/fb', 'https://example.com/l?utm_source=facebook&utm_medium=social');
      await go('/abc/fb', 'https://example.com/l?utm_source=facebook&utm_medium=social');
      await go('/abc/nope', 'https://example.com/l?utm_source=base&utm_medium=social');
      await go('/abc', 'https://example.com/l?utm_source=base&utm_medium=social');
      expect(await counts(link.id)).toEqual({ clickCount: 4, botCount: 0, uniqueCount: 1, variants: { FB: 0, fb: 2 } });
      const fbId = (await write('GET', `/links/${link.id}`)).variants.find((v: any) => v.code === 'fb').id;
      expect((await rawClicks()).map((c) => [c.variant_id, c.variant_code])).toEqual([
        [fbId, 'fb'],
        [fbId, 'fb'],
        [null, 'nope'],
        [null, null],
      ]);
    });

    blind('deeper paths, dots, percent-encoding and segments over 64 characters get the 404 page', async () => {
      await newLink({ slug: 'a'.repeat(64) });
      await go(`/${'a'.repeat(64)}/${'b'.repeat(64)}`, 'https://example.com/l');
      // Even rows that bypassed slug validation are not served at such paths.
      await insertRaw('lnk_long', 'a'.repeat(65), 'https://example.com/long');
      await insertRaw('lnk_dot', 'abc.html', 'https://example.com/dot');
      for (const path of [
        '/abc/fb/x',
        '/abc.html',
        '/abc/f.b',
        '/ab%63',
        '/abc/%66b',
        '//abc',
        '/abc//',
        `/${'a'.repeat(65)}`,
        `/abc/${'b'.repeat(65)}`,
      ]) {
        await page(path, 404);
      }
    });
  });

  describe('links that cannot redirect', () => {
    test('unknown slug (slugs are case-sensitive): 404 page, nothing buffered', async () => {
      await newLink({ slug: 'abc' });
      await page('/nope', 404);
      await page('/ABC', 404);
      await page('/nope/fb', 404);
    });

    test('paused: 404 page, nothing buffered; archived: redirects and records', async () => {
      const link = await newLink({ slug: 'abc' });
      await patchLink(link.id, { status: 'paused' });
      await page('/abc', 404);
      await page('/abc', 404, { method: 'HEAD' });
      await patchLink(link.id, { status: 'archived' });
      await go('/abc', 'https://example.com/l');
      expect(await counts(link.id)).toMatchObject({ clickCount: 1, botCount: 0 });
    });

    test('expired (expiresAt <= now): 410 page, nothing buffered; a future expiresAt redirects', async () => {
      await newLink({ slug: 'now', expiresAt: T0 });
      await newLink({ slug: 'past', expiresAt: T0 - 1 });
      const soon = await newLink({ slug: 'soon', expiresAt: T0 + 1000 });
      await page('/now', 410);
      await page('/past/fb', 410);
      await go('/soon', 'https://example.com/l');
      t.clock.set(T0 + 999);
      await go('/soon', 'https://example.com/l');
      t.clock.set(T0 + 1000);
      await page('/soon', 410);
      await page('/soon', 410, { ua: CURL });
      expect(await counts(soon.id)).toMatchObject({ clickCount: 2 });
    });

    test('click limit: bots (curl, no user agent, HEAD) do not use it up; once reached, 410 for everyone', async () => {
      const link = await newLink({ slug: 'abc', clickLimit: 2 });
      for (const bot of BOT_HITS) await go('/abc', 'https://example.com/l', bot);
      await go('/abc', 'https://example.com/l');
      await go('/abc', 'https://example.com/l');
      await page('/abc', 410);
      await page('/abc', 410, { ua: GOOGLEBOT });
      expect(await counts(link.id)).toMatchObject({ clickCount: 2, botCount: 3 });
      await page('/abc', 410);
    });
  });

  describe('bots', () => {
    test('HEAD: the same 302 and Location, counted as a bot, never as a click', async () => {
      const link = await newLink({ slug: 'abc', params: { a: '1' } });
      await go('/abc', 'https://example.com/l?a=1', { method: 'HEAD' });
      expect(await counts(link.id)).toEqual({ clickCount: 0, botCount: 1, uniqueCount: 0, variants: {} });
      expect((await write('GET', `/links/${link.id}`)).lastClickedAt).toBeNull();
    });

    blind('no user agent, curl, Googlebot and facebookexternalhit are bots; Chrome desktop is human', async () => {
      const link = await newLink({ slug: 'abc' });
      const agents: [string | null, number][] = [
        [CHROME, 0],
        [null, 1],
        ['', 1],
        [CURL, 1],
        [GOOGLEBOT, 1],
        [FACEBOOK, 1],
      ];
      for (const [ua] of agents) await go('/abc', 'https://example.com/l', { ua });
      expect(await counts(link.id)).toMatchObject({ clickCount: 1, botCount: 5, uniqueCount: 1 });
      expect((await rawClicks()).map((c) => c.bot)).toEqual(agents.map(([, bot]) => bot));
    });
  });

  describe('methods', () => {
    blind('POST, PUT, PATCH, DELETE on a short link: 405 page with Allow: GET, HEAD, nothing recorded', async () => {
      const link = await newLink({ slug: 'abc' });
      for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
        for (const path of ['/abc', '/abc/fb', '/nope'])
          expect((await page(path, 405, { method })).headers.get('allow')).toBe('GET, HEAD');
      }
      expect(await counts(link.id)).toMatchObject({ clickCount: 0, botCount: 0 });
    });
  });

  describe('host split', () => {
    blind(
      'short host: / goes to the app; /healthz and /robots.txt answer; the API and reserved paths are 404 pages',
      async () => {
        const root = await hit('/');
        expect([root.status, root.headers.get('location'), await root.text()]).toEqual([
          302,
          'https://app.sl.test/',
          '',
        ]);
        const health = await call(`${SHORT}/healthz`);
        expect([health.status, health.body]).toEqual([200, { status: 'ok', node: expect.any(String) }]);
        expect(health.headers.get('content-type')).toStartWith('application/json');
        const robots = await hit('/robots.txt');
        expect([robots.status, robots.headers.get('content-type'), await robots.text()]).toEqual([
          200,
          'text/plain; charset=utf-8',
          ROBOTS,
        ]);
        await page('/api/v1/me', 404, { headers: { authorization: `Bearer ${su}` } });
        for (const path of ['/api', '/app', '/favicon.ico', '/api/docs']) await page(path, 404);
      },
    );

    blind('app host: /<slug> is not a redirect but a JSON 404; the API answers there', async () => {
      await newLink({ slug: 'abc' });
      for (const origin of ['https://app.sl.test', 'https://app.sl.test:8443']) {
        expectError(await call(`${origin}/abc`), 404, 'not_found', null);
        expectError(await call(`${origin}/abc/fb`), 404, 'not_found', null);
        expect((await call(`${origin}/api/v1/me`, { key: su })).status).toBe(200);
      }
      expect(t.deps.clicks.buffer.length).toBe(0);
    });

    blind(
      'a host that is neither a domain nor the app host: its short links are the default domain’s, the rest the app’s',
      async () => {
        await newLink({ slug: 'abc' });
        await go('/abc', 'https://example.com/l', { origin: 'http://localhost' });
        expect((await call('http://localhost/api/v1/me', { key: su })).status).toBe(200);
        expect(t.deps.clicks.buffer.length).toBe(1);
      },
    );

    blind('the Host header is compared case-insensitively', async () => {
      await newLink({ slug: 'abc' });
      await go('/abc', 'https://example.com/l', { origin: 'https://SL.TEST' });
      const server = t.app.listen({ port: 0, hostname: '127.0.0.1' }).server!;
      const base = `http://127.0.0.1:${server.port}/abc`;
      const upper = await fetch(base, { headers: { host: 'SL.Test', 'user-agent': CHROME }, redirect: 'manual' });
      expect([upper.status, upper.headers.get('location')]).toEqual([302, 'https://example.com/l']);
      const other = await fetch(base, { headers: { host: 'APP.SL.TEST' }, redirect: 'manual' });
      expect([other.status, ((await other.json()) as any).error.code]).toEqual([404, 'not_found']);
      expect(t.deps.clicks.buffer.length).toBe(2);
    });
  });

  describe('single host', () => {
    beforeEach(async () => {
      await disposeTestApp(t);
      await start(SINGLE);
    });

    blind('redirects and the API share the host; / goes to the dashboard', async () => {
      const created = await call(`${SHORT}/api/v1/links`, {
        method: 'POST',
        key: su,
        body: JSON.stringify({ destination: 'https://example.com/s', slug: 'abc' }),
      });
      expect([created.status, created.body.shortUrl]).toEqual([201, `${SHORT}/abc`]);
      await go('/abc', 'https://example.com/s');
      const read = await call(`${SHORT}/api/v1/links/${created.body.id}`, { key: su });
      expect([read.status, read.body.slug]).toEqual([200, 'abc']);
      const root = await hit('/');
      expect([root.status, root.headers.get('location')]).toEqual([302, '/app']);
      const health = await call(`${SHORT}/healthz`);
      expect([health.status, health.body]).toEqual([200, { status: 'ok', node: expect.any(String) }]);
      const robots = await hit('/robots.txt');
      expect([robots.status, await robots.text()]).toEqual([200, ROBOTS]);
    });

    test('reserved words are never slugs, in any case, even when such a row exists', async () => {
      await insertRaw('lnk_api', 'api', 'https://example.com/api');
      await insertRaw('lnk_app', 'App', 'https://example.com/app');
      await insertRaw('lnk_hz', 'healthz', 'https://example.com/healthz');
      for (const path of ['/api', '/API/x', '/App']) expectError(await call(`${SHORT}${path}`), 404, 'not_found', null);
      // /app is the dashboard: its page, never the link with that slug.
      for (const path of ['/app', '/app/']) {
        const res = await hit(path);
        expect([path, res.status, res.headers.get('location')]).toEqual([path, 200, null]);
        expect(await res.text()).toContain('<div id="app"></div>');
      }
      expect((await call(`${SHORT}/healthz`)).body).toEqual({ status: 'ok', node: expect.any(String) });
      expectError(await call(`${SHORT}/Healthz`), 404, 'not_found', null);
      expect(t.deps.clicks.buffer.length).toBe(0);
    });
  });

  describe('the slug index follows every API write', () => {
    test('link create and PATCH: destination, params, slug, status, expiresAt, clickLimit', async () => {
      const link = await newLink({ slug: 'abc' });
      await go('/abc', 'https://example.com/l');
      const moved = await patchLink(link.id, {
        destination: 'https://example.org/new?utm_source=nl&x=1',
        params: { a: 'b' },
      });
      expect([moved.destination, moved.params]).toEqual(['https://example.org/new?x=1', { a: 'b', utm_source: 'nl' }]);
      const to = 'https://example.org/new?x=1&a=b&utm_source=nl';
      await go('/abc', to);
      await patchLink(link.id, { slug: 'renamed' });
      await page('/abc', 404);
      await go('/renamed', to);
      await newLink({ slug: 'abc', destination: 'https://example.net/' });
      await go('/abc', 'https://example.net/');
      await patchLink(link.id, { status: 'paused' });
      await page('/renamed', 404);
      await patchLink(link.id, { status: 'active' });
      await go('/renamed', to);
      await patchLink(link.id, { expiresAt: T0 });
      await page('/renamed', 410);
      await patchLink(link.id, { expiresAt: null });
      await go('/renamed', to);
      await patchLink(link.id, { clickLimit: 3 });
      await page('/renamed', 410);
      await patchLink(link.id, { clickLimit: null });
      await go('/renamed', to);
      expect(await counts(link.id)).toMatchObject({ clickCount: 6 });
    });

    test('variant create, code rename, params change and delete', async () => {
      const link = await newLink({ slug: 'abc', params: { s: 'base' } });
      const v = await write('POST', `/links/${link.id}/variants`, { code: 'fb', params: { s: 'fb' } });
      await go('/abc/fb', 'https://example.com/l?s=fb');
      await write('PATCH', `/links/${link.id}/variants/${v.id}`, { params: { s: 'fb2', n: '1' } });
      await go('/abc/fb', 'https://example.com/l?s=fb2&n=1');
      await write('PATCH', `/links/${link.id}/variants/${v.id}`, { code: 'ig' });
      await go('/abc/ig', 'https://example.com/l?s=fb2&n=1');
      await go('/abc/fb', 'https://example.com/l?s=base');
      await write('DELETE', `/links/${link.id}/variants/${v.id}`);
      await go('/abc/ig', 'https://example.com/l?s=base');
      await flush();
      expect((await rawClicks()).map((c) => [c.variant_id, c.variant_code])).toEqual([
        [v.id, 'fb'],
        [v.id, 'fb'],
        [v.id, 'ig'],
        [null, 'fb'],
        [null, 'ig'],
      ]);
    });

    test('DELETE link: 404 page at once, no click recorded', async () => {
      const link = await newLink({ slug: 'abc' });
      expect(await write('DELETE', `/links/${link.id}`)).toEqual({ id: link.id, deleted: true });
      await page('/abc', 404);
      await flush();
      expect(await rawClicks()).toEqual([]);
    });

    test('an app built afresh on the same database loads every link, its variants and its counted clicks', async () => {
      const link = await newLink({ slug: 'abc', params: { a: '1' }, clickLimit: 2 });
      await write('POST', `/links/${link.id}/variants`, { code: 'fb', params: { a: '2' } });
      const paused = await newLink({ slug: 'zzz' });
      await patchLink(paused.id, { status: 'paused' });
      await go('/abc', 'https://example.com/l?a=1');
      await flush();
      // A second connection (or pool) to the same database, and everything built on it afresh.
      const address = t.deps.stores.address;
      const db = address.engine === 'sqlite' ? openDatabase(address.path) : unportedDb();
      if (address.engine === 'sqlite') migrateDatabase(db);
      const stores =
        address.engine === 'sqlite' ? sqliteStores(db) : postgresStores(openPostgres(address.url), address.url);
      const errors: string[] = [];
      const log = { info: () => {}, error: (m: string) => errors.push(m) };
      const deps = createDeps({ db, stores, config: t.deps.config, clock: t.clock, log });
      await deps.linksLoaded;
      const first = t;
      t = { ...first, app: createApp(deps), deps, errors };
      try {
        expect(deps.linkIndex.size).toBe(2);
        await go('/abc/fb', 'https://example.com/l?a=2');
        await page('/abc', 410);
        await page('/zzz', 404);
        expect(await counts(link.id)).toMatchObject({ clickCount: 2, variants: { fb: 1 } });
        expect(errors).toEqual([]);
      } finally {
        deps.linkIndex.stopLoading();
        deps.exports.close();
        deps.passwordVerifier.close();
        await stores.close();
        t = first;
      }
    });
  });

  describe('buffered clicks and API decisions', () => {
    test('DELETE with a human click only in the buffer: 409 delete_requires_dashboard, the link stays', async () => {
      const link = await newLink({ slug: 'abc' });
      await go('/abc', 'https://example.com/l');
      expectError(await api(t, 'DELETE', `/links/${link.id}`, { key: su }), 409, 'delete_requires_dashboard', null);
      await go('/abc', 'https://example.com/l');
      expect(await counts(link.id)).toMatchObject({ clickCount: 2 });
    });

    test('DELETE with only bot hits buffered: 200, and the flush writes nothing for it', async () => {
      const link = await newLink({ slug: 'abc' });
      for (const bot of BOT_HITS) await go('/abc', 'https://example.com/l', bot);
      expect(t.deps.clicks.buffer.length).toBe(3);
      expect(await write('DELETE', `/links/${link.id}`)).toEqual({ id: link.id, deleted: true });
      expect(t.deps.clicks.buffer.length).toBe(0);
      await flush();
      expect([await rawClicks(), t.deps.clicks.flusher.stats]).toMatchObject([[], { written: 0, skipped: 0 }]);
    });

    test('a clickLimit set while human clicks are buffered counts them', async () => {
      const link = await newLink({ slug: 'abc' });
      for (let i = 0; i < 3; i++) await go('/abc', 'https://example.com/l');
      await go('/abc', 'https://example.com/l', { ua: GOOGLEBOT });
      expect((await patchLink(link.id, { clickLimit: 4 })).clickLimit).toBe(4);
      await go('/abc', 'https://example.com/l');
      await page('/abc', 410);
      await page('/abc', 410, { ua: GOOGLEBOT });
      expect(await counts(link.id)).toMatchObject({ clickCount: 4, botCount: 1 });
    });
  });
});
