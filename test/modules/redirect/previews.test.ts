/**
 * Social previews through the real app, on each engine: a link with a `preview` answers the
 * listed crawlers its preview page (200 HTML, Open Graph and Twitter card tags, a link to where a
 * visitor would be sent), recorded as a bot hit like the redirect records one; people, other
 * bots, links without a preview and protected links get what they got before; the field's
 * errors.
 */
import { afterEach, beforeEach, expect, test } from 'bun:test';
import type { Engine } from '../../../src/db/address';
import { api, apiExpecting, disposeTestApp, makeKey, makeTestApp, T0, type TestApp } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { DASHBOARD_CSP } from '../../helpers/html';
import { PREVIEW_AGENTS } from '../../helpers/preview-agents';
import { parsePreview } from '../../helpers/preview-page';
import { expectError } from '../../helpers/schema';

const SHORT = 'https://sl.test';
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1';
const PINTEREST_APP =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [Pinterest/iOS]';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const [SLACK] = PREVIEW_AGENTS.Slackbot!;
const [TWITTER] = PREVIEW_AGENTS.Twitterbot!;
/** One agent of several crawlers, each with the name its hits are shown under. */
const CRAWLERS: [string, string][] = [
  'Slackbot',
  'Twitterbot',
  'facebookexternalhit',
  'LinkedInBot',
  'Discordbot',
  'WhatsApp',
  'TelegramBot',
  'Mastodon',
  'Bluesky',
].map((name) => [PREVIEW_AGENTS[name]![0]!, name]);
const IMESSAGE = PREVIEW_AGENTS.facebookexternalhit![1]!;

const PREVIEW = { title: 'Spring sale', description: 'Up to 50% off', image: 'https://cdn.example.com/card.png' };

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

  const hit = (path: string, ua: string | null, method = 'GET') =>
    t.app.handle(new Request(`${SHORT}${path}`, { method, headers: ua === null ? {} : { 'user-agent': ua } }));
  async function answer(path: string, ua: string | null, method = 'GET') {
    const res = await hit(path, ua, method);
    return { status: res.status, location: res.headers.get('location'), body: await res.text(), headers: res.headers };
  }
  async function redirected(path: string, ua: string | null) {
    const { status, location, body } = await answer(path, ua);
    return { status, location, body };
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
  /** The tags a crawler reads, as [key, value]. */
  const tags = (shortUrl: string, p: { title: string; description?: string; image?: string }): [string, string][] =>
    (
      [
        ['description', p.description],
        ['og:type', 'website'],
        ['og:url', shortUrl],
        ['og:title', p.title],
        ['og:description', p.description],
        ['og:image', p.image],
        ['twitter:card', p.image === undefined ? 'summary' : 'summary_large_image'],
        ['twitter:title', p.title],
        ['twitter:description', p.description],
        ['twitter:image', p.image],
      ] as [string, string | undefined][]
    ).filter((tag): tag is [string, string] => tag[1] !== undefined);

  test('each listed crawler gets the preview page: its tags, a link to the destination, the short site headers', async () => {
    const link = await newLink({ slug: 'sale', params: { utm_source: 'social' }, preview: PREVIEW });
    const to = 'https://example.com/l?utm_source=social';
    for (const [ua, name] of [...CRAWLERS, [IMESSAGE, 'iMessage'] as [string, string]]) {
      const res = await answer('/sale', ua);
      expect({ name, status: res.status, location: res.location }).toEqual({ name, status: 200, location: null });
      expect(Object.fromEntries(res.headers)).toEqual({
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'private, max-age=0',
        vary: 'User-Agent',
        'content-security-policy': DASHBOARD_CSP,
        'x-content-type-options': 'nosniff',
        'referrer-policy': 'same-origin',
      });
      const page = await parsePreview(res.body);
      expect({ name, ...page, elements: undefined }).toEqual({
        name,
        title: 'Spring sale',
        meta: tags(`${SHORT}/sale`, PREVIEW),
        links: [{ href: to, text: to }],
        h1: 'Spring sale',
        paragraphs: ['Up to 50% off', to],
        elements: undefined,
      });
    }
    expect(await counts(link.id)).toEqual({ clickCount: 0, botCount: CRAWLERS.length + 1 });
  });

  test('a preview hit is a bot hit like any other: in the clicks list, named, in the stats with bots=1 only', async () => {
    const link = await newLink({ slug: 'sale', preview: PREVIEW });
    for (const [ua] of CRAWLERS.slice(0, 3)) expect((await answer('/sale', ua)).status).toBe(200);
    expect((await redirected('/sale', CHROME)).status).toBe(302);
    expect(await counts(link.id)).toEqual({ clickCount: 1, botCount: 3 });
    const clicks = await api(t, 'GET', `/links/${link.id}/clicks?bots=1`, { key: su });
    expect(clicks.status).toBe(200);
    // Recorded with the destination the redirect would have sent them to.
    expect(clicks.body.items.map((c: any) => [c.bot, c.browser, c.destination]).reverse()).toEqual([
      [true, 'Slackbot', 'https://example.com/l'],
      [true, 'Twitterbot', 'https://example.com/l'],
      [true, 'facebookexternalhit', 'https://example.com/l'],
      [false, 'Chrome', 'https://example.com/l'],
    ]);
    const humans = await api(t, 'GET', `/links/${link.id}/clicks`, { key: su });
    expect(humans.body.items.map((c: any) => c.browser)).toEqual(['Chrome']);
    const stats = await api(t, 'GET', `/links/${link.id}/stats?bots=1`, { key: su });
    expect([stats.status, stats.body.breakdowns.browser]).toEqual([
      200,
      [
        { value: 'Chrome', clicks: 1 },
        { value: 'Slackbot', clicks: 1 },
        { value: 'Twitterbot', clicks: 1 },
        { value: 'facebookexternalhit', clicks: 1 },
      ],
    ]);
  });

  test('people, search engines and tools get the redirect from a link with a preview', async () => {
    const link = await newLink({ slug: 'sale', preview: PREVIEW });
    for (const ua of [CHROME, IPHONE, PINTEREST_APP, GOOGLEBOT, 'curl/8.5.0', null])
      expect({ ua, ...(await redirected('/sale', ua)) }).toEqual({
        ua,
        status: 302,
        location: 'https://example.com/l',
        body: '',
      });
    expect(await counts(link.id)).toEqual({ clickCount: 3, botCount: 3 });
  });

  test('a link without a preview redirects the crawlers, and counts them as bots', async () => {
    const link = await newLink({ slug: 'plain' });
    for (const [ua] of CRAWLERS)
      expect(await redirected('/plain', ua)).toEqual({ status: 302, location: 'https://example.com/l', body: '' });
    expect(await counts(link.id)).toEqual({ clickCount: 0, botCount: CRAWLERS.length });
  });

  test('a preview set or removed by PATCH takes effect at once', async () => {
    const link = await newLink({ slug: 'later' });
    expect((await redirected('/later', SLACK!)).status).toBe(302);
    await write('PATCH', `/links/${link.id}`, { preview: { title: 'Now with a card' } });
    const shown = await answer('/later', SLACK!);
    expect(shown.status).toBe(200);
    expect((await parsePreview(shown.body)).meta).toEqual(tags(`${SHORT}/later`, { title: 'Now with a card' }));
    await write('PATCH', `/links/${link.id}`, { preview: null });
    expect(await redirected('/later', SLACK!)).toEqual({ status: 302, location: 'https://example.com/l', body: '' });
    expect(await counts(link.id)).toEqual({ clickCount: 0, botCount: 3 });
  });

  test('HEAD by a crawler: 200, the same headers, no body, recorded as a bot hit', async () => {
    const link = await newLink({ slug: 'sale', preview: PREVIEW });
    const get = await answer('/sale', TWITTER!);
    const head = await answer('/sale', TWITTER!, 'HEAD');
    expect([head.status, head.body]).toEqual([200, '']);
    const headers = (res: { headers: Headers }) => [...res.headers].filter(([k]) => k !== 'content-length');
    expect(headers(head)).toEqual(headers(get));
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(get.body)));
    // Through a socket: GET and HEAD give the same length, HEAD no body.
    const server = t.app.listen({ port: 0, hostname: '127.0.0.1' }).server!;
    const overSocket = async (method: string) => {
      const res = await fetch(`http://127.0.0.1:${server.port}/sale`, {
        method,
        headers: { host: 'sl.test', 'user-agent': TWITTER! },
      });
      return [res.status, res.headers.get('content-type'), res.headers.get('content-length'), await res.text()];
    };
    const length = String(Buffer.byteLength(get.body));
    expect(await overSocket('GET')).toEqual([200, 'text/html; charset=utf-8', length, get.body]);
    expect(await overSocket('HEAD')).toEqual([200, 'text/html; charset=utf-8', length, '']);
    expect(await counts(link.id)).toEqual({ clickCount: 0, botCount: 4 });
  });

  test("variants: the page names the address fetched and links to that variant's destination", async () => {
    const link = await newLink({ slug: 'sale', params: { utm_source: 'a' }, preview: PREVIEW });
    await write('POST', `/links/${link.id}/variants`, { code: 'tw', params: { utm_source: 'twitter' } });
    const variant = await parsePreview((await answer('/sale/tw', TWITTER!)).body);
    expect([variant.meta, variant.links]).toEqual([
      tags(`${SHORT}/sale/tw`, PREVIEW),
      [{ href: 'https://example.com/l?utm_source=twitter', text: 'https://example.com/l?utm_source=twitter' }],
    ]);
    // A code that matches no variant: the base link's destination, as the redirect would.
    const unknown = await parsePreview((await answer('/sale/nope/', TWITTER!)).body);
    expect([unknown.meta, unknown.links]).toEqual([
      tags(`${SHORT}/sale/nope`, PREVIEW),
      [{ href: 'https://example.com/l?utm_source=a', text: 'https://example.com/l?utm_source=a' }],
    ]);
    expect(await redirected('/sale/tw', CHROME)).toEqual({
      status: 302,
      location: 'https://example.com/l?utm_source=twitter',
      body: '',
    });
    expect(await counts(link.id)).toEqual({ clickCount: 1, botCount: 2 });
  });

  test("forwardQuery: the link carries the visitor's query as the redirect would; og:url does not", async () => {
    await newLink({ slug: 'fq', preview: { title: 'Q' }, forwardQuery: true });
    const page = await parsePreview((await answer('/fq?ref=chat&x=1', SLACK!)).body);
    expect([page.meta, page.links]).toEqual([
      tags(`${SHORT}/fq`, { title: 'Q' }),
      [{ href: 'https://example.com/l?ref=chat&x=1', text: 'https://example.com/l?ref=chat&x=1' }],
    ]);
  });

  test('every value is escaped on the page, as stored', async () => {
    const preview = {
      title: `"Quotes" & <b>tags</b> 'too'`,
      description: `</title><script>alert(1)</script> &amp; "x" onload='y'`,
      image: 'https://cdn.example.com/i.png?a=1&b="2"&c=<3>',
    };
    const link = await newLink({ slug: 'esc', destination: 'https://example.com/?q=a&r="b"', preview });
    expect(link.preview.title).toBe(preview.title);
    const res = await answer('/esc', SLACK!);
    expect(res.body).not.toContain('<script');
    expect(res.body).not.toContain('<b>');
    const page = await parsePreview(res.body);
    expect(page.title).toBe(preview.title);
    expect(page.meta).toEqual(tags(`${SHORT}/esc`, { ...preview, image: link.preview.image }));
    expect(page.links).toEqual([
      { href: 'https://example.com/?q=a&r=%22b%22', text: 'https://example.com/?q=a&r=%22b%22' },
    ]);
    expect(page.elements).toEqual([
      'html',
      'head',
      'meta',
      'title',
      ...Array(10).fill('meta'),
      'body',
      'h1',
      'p',
      'p',
      'a',
    ]);
  });

  test('a password-protected link shows no preview: its crawler gets what everyone gets', async () => {
    const link = await newLink({ slug: 'locked', preview: { title: 'Secret plans' }, password: 'pass-word-1' });
    const res = await answer('/locked', SLACK!);
    expect(res.body).not.toContain('Secret plans');
    expect(res.body).not.toContain('og:');
    expect(res.headers.get('vary')).toBeNull();
    const person = await answer('/locked', CHROME);
    expect([res.status, res.location]).toEqual([person.status, person.location]);
    expect(link.passwordProtected).toBe(true);
  });

  test('before the preview: paused is 404, expired or past the click limit ends as for everyone', async () => {
    const ended = await newLink({
      slug: 'ended',
      preview: PREVIEW,
      expiresAt: T0 + 10,
      fallbackUrl: 'https://example.com/over',
    });
    const full = await newLink({ slug: 'full', preview: PREVIEW, clickLimit: 1 });
    const paused = await newLink({ slug: 'paused', preview: PREVIEW });
    await write('PATCH', `/links/${paused.id}`, { status: 'paused' });
    // Crawlers are bots: they never use up a click limit.
    for (let i = 0; i < 3; i++) expect((await answer('/full', SLACK!)).status).toBe(200);
    expect((await redirected('/full', CHROME)).status).toBe(302);
    expect((await answer('/full', SLACK!)).status).toBe(410);
    expect((await answer('/paused', SLACK!)).status).toBe(404);
    t.clock.set(T0 + 10);
    expect(await redirected('/ended', SLACK!)).toEqual({ status: 302, location: 'https://example.com/over', body: '' });
    expect(await counts(full.id)).toEqual({ clickCount: 1, botCount: 3 });
    expect(await counts(ended.id)).toEqual({ clickCount: 0, botCount: 0 });
  });

  test('bad previews: 400 invalid_request naming the field; null removes it', async () => {
    const link = await newLink({ slug: 'target', preview: { title: 'Kept' } });
    const cases: [unknown, string][] = [
      [5, 'preview'],
      [[], 'preview'],
      [{}, 'preview.title'],
      [{ title: 5 }, 'preview.title'],
      [{ title: '   ' }, 'preview.title'],
      [{ title: 'x'.repeat(201) }, 'preview.title'],
      [{ title: 'a\u0000b' }, 'preview.title'],
      [{ title: 'ok', description: 5 }, 'preview.description'],
      [{ title: 'ok', description: 'x'.repeat(1001) }, 'preview.description'],
      [{ title: 'ok', description: 'bell\u0007' }, 'preview.description'],
      [{ title: 'ok', image: 5 }, 'preview.image'],
      [{ title: 'ok', image: 'javascript:alert(1)' }, 'preview.image'],
      [{ title: 'ok', image: 'data:image/png;base64,AAAA' }, 'preview.image'],
      [{ title: 'ok', image: 'ftp://example.com/i.png' }, 'preview.image'],
      [{ title: 'ok', image: 'https://' }, 'preview.image'],
      [{ title: 'ok', image: 'https://user:pw@example.com/i.png' }, 'preview.image'],
      [{ title: 'ok', image: 'https://example.com/i.png\r\nx: y' }, 'preview.image'],
      [{ title: 'ok', image: `https://example.com/${'x'.repeat(2048)}` }, 'preview.image'],
    ];
    const wrong: unknown[] = [];
    for (const [preview, field] of cases) {
      const res = await api(t, 'POST', '/links', { key: su, body: { destination: 'https://example.com/', preview } });
      if (res.body?.error?.field !== field) wrong.push([preview, field, res.status, res.body?.error?.field]);
    }
    expect(wrong).toEqual([]);
    for (const [preview, field] of cases) {
      const created = await api(t, 'POST', '/links', {
        key: su,
        body: { destination: 'https://example.com/', preview },
      });
      expectError(created, 400, 'invalid_request', field);
      expectError(
        await api(t, 'PATCH', `/links/${link.id}`, { key: su, body: { preview } }),
        400,
        'invalid_request',
        field,
      );
    }
    expect((await write('GET', `/links/${link.id}`)).preview).toEqual({ title: 'Kept' });
    // The longest of each is fine.
    const longest = {
      title: 't'.repeat(200),
      description: 'd'.repeat(1000),
      image: `https://example.com/${'x'.repeat(2048 - 'https://example.com/'.length)}`,
    };
    expect((await write('PATCH', `/links/${link.id}`, { preview: longest })).preview).toEqual(longest);
    expect((await write('PATCH', `/links/${link.id}`, { preview: null })).preview).toBeNull();
    expect((await newLink({ slug: 'none', preview: null })).preview).toBeNull();
  });
});
