/**
 * The dashboard on the app host: hashed assets cached for a year with their content types,
 * unknown names as the API's 404, the shell (never cached) on every other /app path, and the
 * app's root sending visitors to /app.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sourcesFingerprint } from '../../../scripts/build-dashboard';
import { ASSETS, ENTRY, FINGERPRINT } from '../../../src/modules/dashboard/assets.gen';
import { disposeTestApp, makeTestApp, type TestApp } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { DASHBOARD_CSP } from '../../helpers/html';
import { expectError } from '../../helpers/schema';

let t: TestApp;
forEachEngine((engine) => {
  beforeAll(async () => {
    t = await makeTestApp({}, { engine });
  });
  afterAll(() => disposeTestApp(t));

  const get = (path: string) => t.app.handle(new Request(`http://localhost${path}`));
  const HASHED = /^[a-z][a-z0-9-]*-[a-z0-9]{8}\.(js|css|svg)$/;

  describe('the shell', () => {
    test('answers every /app path with the same HTML, never cached, under the CSP', async () => {
      const bodies = new Set<string>();
      for (const path of ['/app', '/app/', '/app/sign-in', '/app/setup?token=x', '/app/links/lnk_1', '/app/a/b/c']) {
        const res = await get(path);
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
        expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(res.headers.get('content-security-policy')).toBe(DASHBOARD_CSP);
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(res.headers.get('referrer-policy')).toBe('same-origin');
        bodies.add(await res.text());
      }
      expect(bodies.size).toBe(1);
      const html = [...bodies][0]!;
      expect(html).toContain(`<script type="module" src="/app/assets/${ENTRY.script}"></script>`);
      expect(html).toContain(`<link rel="stylesheet" href="/app/assets/${ENTRY.style}">`);
      expect(html).toContain(`href="/app/assets/${ENTRY.icon}"`);
      // Only same-origin, relative addresses.
      expect(html).not.toMatch(/(src|href)\s*=\s*["']\s*(https?:)?\/\//i);
      // The asset map the client reads for assets it loads itself (a data block, never run).
      const map = /<script type="application\/json" id="slink-assets">([^<]*)<\/script>/.exec(html);
      expect(JSON.parse(map![1]!)).toMatchObject({ 'icon.svg': `/app/assets/${ENTRY.icon}` });
    });

    test("the app's root redirects to the dashboard", async () => {
      const res = await get('/');
      expect([res.status, res.headers.get('location')]).toEqual([302, '/app']);
    });
  });

  describe('assets', () => {
    test('every asset has a hashed name, its content type and a one-year immutable cache', async () => {
      const names = Object.keys(ASSETS);
      expect(names).toContain(ENTRY.script);
      expect(names).toContain(ENTRY.style);
      const types = {
        js: 'text/javascript; charset=utf-8',
        css: 'text/css; charset=utf-8',
        svg: 'image/svg+xml; charset=utf-8',
      };
      for (const name of names) {
        expect(name).toMatch(HASHED);
        const res = await get(`/app/assets/${name}`);
        expect({ name, status: res.status }).toEqual({ name, status: 200 });
        expect(res.headers.get('content-type')).toBe(types[name.split('.').pop() as keyof typeof types]);
        expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        expect(await res.text()).toBe(ASSETS[name]!);
      }
      expect(ASSETS[ENTRY.script]!.length).toBeGreaterThan(1000);
    });

    test('an unknown name is the API error 404, never the shell', async () => {
      const unhashed = ENTRY.script.replace(/-[a-z0-9]{8}\./, '.');
      for (const name of ['nope.js', unhashed, 'constructor', '__proto__', 'toString', `${ENTRY.script}.map`]) {
        const res = await get(`/app/assets/${encodeURIComponent(name)}`);
        const body = await res.json();
        expectError({ status: res.status, body, headers: res.headers, text: '' }, 404, 'not_found', null);
      }
    });

    test('the embedded build matches the sources (the test preload rebuilt it if stale)', () => {
      expect(FINGERPRINT).toBe(sourcesFingerprint());
    });
  });
});
