/**
 * Password-protected links through the real app, on each engine (docs/behaviour.md,
 * "Password-protected links"): the form (200, no-store, CSP, noindex, no click), a wrong password
 * (401 and the form with its message, no click), the right one (the link's own redirect, the
 * click recorded, the unlock cookie), the cookie's scope, life and end when the password
 * changes, the throttle (429 past 10 wrong answers per link and address, the right one too),
 * the X-Slink-Password header, HEAD, and POST answered 405 wherever it means nothing.
 */
import { afterEach, beforeEach, expect, test } from 'bun:test';
import type { Engine } from '../../../src/db/address';
import { LINK_PASSWORD_LIMIT } from '../../../src/modules/redirect/password/throttle';
import { apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { expectHtmlSecurityHeaders } from '../../helpers/html';
import { UA } from '../clicks/support';

const SHORT = 'https://sl.test';
const SECRET = 'open sesame 42';
const HOUR = 3_600_000;

let t: TestApp;
let su: string;
let engine: Engine = 'sqlite';

interface Hit {
  method?: string;
  ip?: string;
  cookie?: string;
  header?: string;
  /** A form body (`password=...`), or any body with `type`. */
  body?: string;
  type?: string;
}

forEachEngine((current) => {
  beforeEach(async () => {
    engine = current;
    t = await makeTestApp({ SLINK_TRUST_PROXY: '1' }, { engine });
    su = (await makeKey(t, 'write', { superuser: true })).key;
  });
  afterEach(() => disposeTestApp(t));

  async function hit(path: string, h: Hit = {}) {
    const headers: Record<string, string> = { 'user-agent': UA.chromeWin, 'x-forwarded-for': h.ip ?? '203.0.113.7' };
    if (h.cookie) headers.cookie = h.cookie;
    if (h.header !== undefined) headers['x-slink-password'] = h.header;
    if (h.body !== undefined) headers['content-type'] = h.type ?? 'application/x-www-form-urlencoded';
    const method = h.method ?? (h.body === undefined ? 'GET' : 'POST');
    const res = await t.app.handle(new Request(`${SHORT}${path}`, { method, headers, body: h.body }));
    const body = await res.text();
    return { status: res.status, headers: res.headers, body, location: res.headers.get('location') };
  }
  const post = (path: string, password: string, h: Hit = {}) =>
    hit(path, { ...h, body: `password=${encodeURIComponent(password)}` });
  const write = (method: string, path: string, body?: unknown, status?: number) =>
    apiExpecting(t, su, method, path, body, status);
  const newLink = (body: Record<string, unknown>) =>
    write('POST', '/links', { destination: 'https://example.com/landing', password: SECRET, ...body });
  async function counts(id: string) {
    expect(await t.deps.clicks.flusher.flush()).toBe(true);
    const link = await write('GET', `/links/${id}`);
    return { clickCount: link.clickCount, botCount: link.botCount };
  }
  /** The `name=value` of the unlock cookie an answer sets, as the browser sends it back. */
  const cookieOf = (headers: Headers) => headers.get('set-cookie')!.split(';')[0]!;

  function expectForm(res: Awaited<ReturnType<typeof hit>>, status: number, message: RegExp | null) {
    expect({ status: res.status, location: res.location }).toEqual({ status, location: null });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-robots-tag')).toBe('noindex');
    expect(res.headers.get('set-cookie')).toBeNull();
    expectHtmlSecurityHeaders(res.headers, res.body, ['http:', 'https:']);
    expect(res.body).toContain('<html lang="en">');
    expect(res.body).toContain('<form method="post">');
    expect(res.body).toContain('<label for="password">Password</label>');
    expect(res.body).toMatch(
      /<input id="password" name="password" type="password" required autofocus autocomplete="current-password"/,
    );
    expect(res.body).toContain('<button type="submit">Continue</button>');
    expect(res.body).not.toMatch(/<script|https?:\/\//);
    if (message === null) expect(res.body).not.toContain('role="alert"');
    else {
      expect(res.body).toContain('aria-invalid="true" aria-describedby="password-error"');
      expect(res.body).toMatch(new RegExp(`<p id="password-error" class="error" role="alert">${message.source}</p>`));
    }
  }

  test('GET answers the form, records nothing; the API says passwordProtected and never the password', async () => {
    const link = await newLink({ slug: 'secret' });
    expect(link.passwordProtected).toBe(true);
    expect(JSON.stringify(link)).not.toContain(SECRET);
    expect(JSON.stringify(link)).not.toContain('argon2');
    const form = await hit('/secret');
    expectForm(form, 200, null);
    expect(form.body).toContain('<code>/secret</code>');
    expectForm(await hit('/secret/abc'), 200, null);
    const head = await hit('/secret', { method: 'HEAD' });
    expect({ status: head.status, location: head.location, body: head.body }).toEqual({
      status: 200,
      location: null,
      body: '',
    });
    expect(await counts(link.id)).toEqual({ clickCount: 0, botCount: 0 });
  });

  test('a wrong password: 401 and the form with its message; the right one: the redirect, the click, the cookie', async () => {
    const link = await newLink({ slug: 'secret', params: { utm_source: 'mail' } });
    expectForm(await post('/secret', 'wrong password'), 401, /That password is not right\. Try again\./);
    expect(await counts(link.id)).toEqual({ clickCount: 0, botCount: 0 });
    const right = await post('/secret', SECRET);
    expect({ status: right.status, location: right.location, body: right.body }).toEqual({
      status: 302,
      location: 'https://example.com/landing?utm_source=mail',
      body: '',
    });
    expect(right.headers.get('cache-control')).toBe('no-store');
    expect(right.headers.get('set-cookie')).toMatch(
      new RegExp(
        `^slink_unlock=${link.id}\\.[0-9a-z]+\\.[0-9a-f]{64}; Max-Age=3600; Path=/secret; HttpOnly; SameSite=Lax; Secure$`,
      ),
    );
    expect(await counts(link.id)).toEqual({ clickCount: 1, botCount: 0 });
    const stats = await write('GET', `/links/${link.id}/stats`);
    expect(stats.totals).toMatchObject({ clicks: 1, bots: 0 });
  });

  test('the cookie lets the next GETs through (variants too), only for its link, for an hour, until the password changes', async () => {
    const link = await newLink({ slug: 'secret' });
    await write('POST', `/links/${link.id}/variants`, { code: 'tw', params: { utm_source: 'tw' } });
    const other = await newLink({ slug: 'other' });
    const cookie = cookieOf((await post('/secret', SECRET)).headers);
    const again = await hit('/secret', { cookie });
    expect({ status: again.status, location: again.location }).toEqual({
      status: 302,
      location: 'https://example.com/landing',
    });
    expect(again.headers.get('set-cookie')).toBeNull();
    const variant = await hit('/secret/tw', { cookie });
    expect({ status: variant.status, location: variant.location }).toEqual({
      status: 302,
      location: 'https://example.com/landing?utm_source=tw',
    });
    expect(await counts(link.id)).toEqual({ clickCount: 3, botCount: 0 });
    // Another link's path: the browser would not even send it; sent anyway, it is refused.
    expectForm(await hit('/other', { cookie }), 200, null);
    expect(await counts(other.id)).toEqual({ clickCount: 0, botCount: 0 });
    // An hour later it has expired.
    t.clock.advance(HOUR - 1);
    expect((await hit('/secret', { cookie })).status).toBe(302);
    t.clock.advance(1);
    expectForm(await hit('/secret', { cookie }), 200, null);
    // A new one, then the password changes: refused at once.
    const fresh = cookieOf((await post('/secret', SECRET)).headers);
    expect((await hit('/secret', { cookie: fresh })).status).toBe(302);
    await write('PATCH', `/links/${link.id}`, { password: 'another secret 7' });
    expectForm(await hit('/secret', { cookie: fresh }), 200, null);
    expectForm(await post('/secret', SECRET), 401, /That password is not right\. Try again\./);
    expect((await post('/secret', 'another secret 7')).status).toBe(302);
    // Removed: the link redirects without asking, and POST means nothing there any more.
    const plain = await write('PATCH', `/links/${link.id}`, { password: null });
    expect(plain.passwordProtected).toBe(false);
    expect((await hit('/secret')).location).toBe('https://example.com/landing');
    expect((await post('/secret', SECRET)).status).toBe(405);
  });

  test(`more than ${LINK_PASSWORD_LIMIT} wrong answers from one address: 429 with Retry-After, the right one too, for 15 minutes`, async () => {
    const link = await newLink({ slug: 'secret' });
    for (let i = 0; i < LINK_PASSWORD_LIMIT; i++) expect((await post('/secret', `wrong ${i}`)).status).toBe(401);
    const refused = await post('/secret', 'wrong again');
    expectForm(refused, 429, /Too many wrong passwords\. Try again in 15 min\./);
    expect(refused.headers.get('retry-after')).toBe('900');
    expect((await post('/secret', SECRET)).status).toBe(429);
    const viaHeader = await hit('/secret', { header: SECRET });
    expect({ status: viaHeader.status, body: JSON.parse(viaHeader.body).error.code }).toEqual({
      status: 429,
      body: 'rate_limited',
    });
    // Another address, another count; the same address on another link too.
    expect((await post('/secret', SECRET, { ip: '198.51.100.9' })).status).toBe(302);
    await newLink({ slug: 'second' });
    expect((await post('/second', SECRET)).status).toBe(302);
    t.clock.advance(15 * 60_000);
    expect((await post('/secret', SECRET)).status).toBe(302);
    expect(await counts(link.id)).toEqual({ clickCount: 2, botCount: 0 });
  });

  test('X-Slink-Password: right answers the redirect and records the click (no cookie); wrong answers 401 and counts', async () => {
    const link = await newLink({ slug: 'secret', redirectStatus: 301 });
    const right = await hit('/secret', { header: SECRET });
    expect({ status: right.status, location: right.location }).toEqual({
      status: 301,
      location: 'https://example.com/landing',
    });
    expect(right.headers.get('set-cookie')).toBeNull();
    const wrong = await hit('/secret', { header: 'nope' });
    expect({ status: wrong.status, body: JSON.parse(wrong.body) }).toEqual({
      status: 401,
      body: { error: { code: 'password_wrong', message: 'The password is wrong', field: 'X-Slink-Password' } },
    });
    for (let i = 1; i < LINK_PASSWORD_LIMIT; i++) expect((await hit('/secret', { header: 'nope' })).status).toBe(401);
    expect((await post('/secret', SECRET)).status).toBe(429);
    expect(await counts(link.id)).toEqual({ clickCount: 1, botCount: 0 });
  });

  test('POST answers 405 wherever it means nothing; a body that is no form: 400, too large: 413', async () => {
    await write('POST', '/links', { destination: 'https://example.com/plain', slug: 'plain' });
    await newLink({ slug: 'secret' });
    for (const [path, h] of [
      ['/plain', { body: 'password=x' }],
      ['/nosuch', { body: 'password=x' }],
      ['/secret', { method: 'PUT', body: 'password=x' }],
      ['/secret', { method: 'DELETE' }],
    ] as [string, Hit][]) {
      const res = await hit(path, h);
      expect({ path, status: res.status, allow: res.headers.get('allow') }).toEqual({
        path,
        status: 405,
        allow: 'GET, HEAD',
      });
    }
    expectForm(
      await hit('/secret', { body: JSON.stringify({ password: SECRET }), type: 'application/json' }),
      400,
      /The form could not be read\. Enter the password again\./,
    );
    expectForm(
      await hit('/secret', { body: 'pass=1' }),
      400,
      /The form could not be read\. Enter the password again\./,
    );
    const large = await hit('/secret', { body: `password=${'x'.repeat(5000)}` });
    expect(large.status).toBe(413);
  });

  test('307 and 308 links answer a right form with 303 (the password is never re-sent to the destination); the query is forwarded', async () => {
    await newLink({ slug: 'keep', redirectStatus: 308, forwardQuery: true });
    const res = await post('/keep?ref=news', SECRET);
    expect({ status: res.status, location: res.location }).toEqual({
      status: 303,
      location: 'https://example.com/landing?ref=news',
    });
    const api = await hit('/keep?ref=api', { header: SECRET });
    expect({ status: api.status, location: api.location }).toEqual({
      status: 308,
      location: 'https://example.com/landing?ref=api',
    });
  });

  test('an expired protected link goes to its fallback without asking; a paused one is 404', async () => {
    const link = await newLink({
      slug: 'old',
      fallbackUrl: 'https://example.com/sorry',
      expiresAt: t.clock.now() + HOUR,
    });
    t.clock.advance(HOUR);
    const res = await hit('/old');
    expect({ status: res.status, location: res.location }).toEqual({
      status: 302,
      location: 'https://example.com/sorry',
    });
    await write('PATCH', `/links/${link.id}`, { status: 'paused' });
    expect((await post('/old', SECRET)).status).toBe(404);
  });

  test('a protected link at its click limit goes to its fallback without asking; below it, the right password counts', async () => {
    const link = await newLink({ slug: 'once', clickLimit: 1, fallbackUrl: 'https://example.com/sorry' });
    expectForm(await hit('/once'), 200, null);
    expect((await post('/once', SECRET)).location).toBe('https://example.com/landing');
    const res = await hit('/once');
    expect({ status: res.status, location: res.location }).toEqual({
      status: 302,
      location: 'https://example.com/sorry',
    });
    expect((await post('/once', SECRET)).location).toBe('https://example.com/sorry');
    expect(await counts(link.id)).toEqual({ clickCount: 1, botCount: 0 });
  });
});
