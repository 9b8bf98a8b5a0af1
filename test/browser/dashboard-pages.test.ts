/**
 * Every dashboard page (the registry in dashboard-pages.ts), seeded with ordinary data, in
 * Chromium with no internet: no request leaves loopback, every HTML answer carries the strict
 * CSP and nothing breaks it, no script error, no serious or critical axe finding in light and
 * dark, and no sideways scrolling of the page at 375 px. On SQLite only: all of that is the
 * client's and the HTTP layer's, whatever stores the data; the dashboard on PostgreSQL is
 * dashboard-journey's smoke pass.
 */
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { dashboardPerFile, expectCleanPage, seriousA11yViolations } from '../helpers/dashboard-browser';
import { ROOT } from '../helpers/proc';
import { DASHBOARD_PAGES } from './dashboard-pages';
import { openDashboardPage, PLAIN_TEXT } from './dashboard-seed';

const d = dashboardPerFile();

test('every route of the client has a registry entry, and every entry a route', () => {
  const routes = readFileSync(`${ROOT}/src/modules/dashboard/client/routes.ts`, 'utf8');
  const patterns = [...routes.matchAll(/\{\s*path:\s*'([^']+)'/g)].map((m) => m[1]!);
  expect(patterns.length).toBeGreaterThan(5);
  expect(DASHBOARD_PAGES.map((p) => p.route).sort()).toEqual(patterns.sort());
  expect(new Set(DASHBOARD_PAGES.map((p) => p.name)).size).toBe(DASHBOARD_PAGES.length);
});

/** The CSP's directives: name -> sources. */
function directives(policy: string): Record<string, string[]> {
  return Object.fromEntries(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((words) => words[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

function expectStrictCsp(policy: string | undefined): void {
  expect(policy).toBeDefined();
  const csp = directives(policy!);
  // Scripts: this origin and nothing inline or evaluated (hashes of exact texts are allowed).
  for (const source of csp['script-src'] ?? csp['default-src'] ?? []) {
    expect(source).toMatch(/^('self'|'sha256-[A-Za-z0-9+/=]+')$/);
  }
  expect(csp['frame-ancestors']).toEqual(["'none'"]);
  // Nothing from another origin, for any kind of content.
  for (const sources of Object.values(csp)) for (const s of sources) expect(s).not.toMatch(/^(https?:|\*)/);
}

/** True when the page itself scrolls sideways (a wide table inside its own scroller is fine). */
const scrollsSideways = (page: Page) =>
  page.evaluate('document.documentElement.scrollWidth > window.innerWidth') as Promise<boolean>;

for (const entry of DASHBOARD_PAGES) {
  test(`${entry.name}: offline, the CSP, axe light and dark, 375 px`, async () => {
    const p = await openDashboardPage(d, entry, PLAIN_TEXT);
    const hosts = new Set(p.responses.map((r) => new URL(r.url()).hostname));
    expect([...hosts]).toEqual(['127.0.0.1']);
    const html = p.responses.filter((r) => (r.headers()['content-type'] ?? '').startsWith('text/html'));
    expect(html.length).toBeGreaterThan(0);
    for (const r of html) expectStrictCsp(r.headers()['content-security-policy']);

    for (const colorScheme of ['light', 'dark'] as const) {
      await p.page.emulateMedia({ colorScheme });
      expect({ colorScheme, violations: await seriousA11yViolations(p.page) }).toEqual({ colorScheme, violations: [] });
    }
    await p.page.setViewportSize({ width: 375, height: 800 });
    expect(await scrollsSideways(p.page)).toBe(false);
    await expectCleanPage(p);
    await p.page.close();
  }, 90_000);
}
