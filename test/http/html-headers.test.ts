/**
 * Every HTML response carries the same security headers: the dashboard shell, the API docs
 * page and the short host's 404, 405 and 410 pages. Pages with inline code allow exactly that
 * code by hash.
 */
import { afterEach, beforeEach, expect, test } from 'bun:test';
import { api, disposeTestApp, makeKey, makeTestApp, T0, type TestApp } from '../helpers/app';
import { forEachEngine } from '../helpers/engines';
import { DASHBOARD_CSP, expectHtmlSecurityHeaders, inlineCode } from '../helpers/html';

let t: TestApp;
forEachEngine((engine) => {
  beforeEach(async () => {
    t = await makeTestApp({}, { engine });
  });
  afterEach(() => disposeTestApp(t));

  const get = (url: string, method = 'GET') => t.app.handle(new Request(url, { method }));

  test('the dashboard shell: the policy as is (it has no inline code)', async () => {
    const res = await get('http://localhost/app/sign-in');
    const html = await res.text();
    expect(inlineCode(html)).toEqual({ scripts: [], styles: [] });
    expectHtmlSecurityHeaders(res.headers, html);
    expect(res.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
  });

  test('the API docs page: its one inline script and one inline style, by hash', async () => {
    const res = await get('http://localhost/api/docs');
    const html = await res.text();
    const inline = inlineCode(html);
    expect([inline.scripts.length, inline.styles.length]).toEqual([1, 1]);
    expect(inline.scripts[0]).toContain('SwaggerUIBundle(');
    expectHtmlSecurityHeaders(res.headers, html);
  });

  test("the short host's 404, 405 and 410 pages: their inline style, by hash", async () => {
    const { key } = await makeKey(t, 'write');
    const expired = await api(t, 'POST', '/links', {
      key,
      body: { destination: 'https://example.com/', expiresAt: T0 - 1 },
    });
    expect(expired.status).toBe(201);
    for (const [path, method, status] of [
      ['/nope', 'GET', 404],
      ['/nope', 'POST', 405],
      [`/${expired.body.slug}`, 'GET', 410],
    ] as const) {
      const res = await get(`https://sl.test${path}`, method);
      const html = await res.text();
      expect({ path, status: res.status }).toEqual({ path, status });
      expect(inlineCode(html).styles.length).toBe(1);
      expectHtmlSecurityHeaders(res.headers, html);
      // The pages' own caching and indexing rules are kept.
      expect(res.headers.get('cache-control')).toBe('private, max-age=0');
      expect(res.headers.get('x-robots-tag')).toBe('noindex');
    }
  });
});
