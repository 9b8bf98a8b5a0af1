/**
 * Browser tests of the dashboard: the real app listening on loopback (on SQLite, or on a fresh
 * database of the tests' PostgreSQL server), Chromium offline, axe-core for accessibility, and
 * real sessions (the app's own sign-in) for the signed-in pages. The pages run on SQLite: what
 * they show is what the API answers, held on both engines by the API's tests; the journey
 * (dashboard-journey.test.ts) is the dashboard's pass on PostgreSQL.
 */
import { afterAll, beforeAll, expect } from 'bun:test';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import type { Engine } from '../../src/db/address';
import { disposeTestApp, makeKey, makeTestApp, type TestApp } from './app';
import { cspViolations, launchBrowser, type OfflinePage, offlinePage } from './browser';
import { PASSWORD } from './dashboard';
import { ROOT } from './proc';
import { waitUntil as waitUntilRead } from './wait';

export interface Dashboard {
  t: TestApp;
  origin: string;
  browser: Browser;
  close(): Promise<void>;
}

/**
 * `env` adds SLINK_* settings to the test app's (SLINK_WORKSPACE_NAME, SLINK_TRUST_PROXY, ...);
 * `engine` is the storage below it (test/helpers/engines.ts).
 */
export async function startDashboard(env: Record<string, string> = {}, engine: Engine = 'sqlite'): Promise<Dashboard> {
  const t = await makeTestApp(env, { engine });
  t.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false });
  const browser = await acquireBrowser();
  return {
    t,
    origin: `http://127.0.0.1:${t.app.server!.port}`,
    browser,
    async close() {
      await releaseBrowser();
      await disposeTestApp(t);
    },
  };
}

let shared: { browser: Promise<Browser>; users: number } | null = null;

/**
 * One Chromium for the dashboards a file has running at once (a second app of its own, say):
 * launched by the first, closed when the last one closes. Each page has a context of its own,
 * so they share nothing else.
 */
async function acquireBrowser(): Promise<Browser> {
  shared ??= { browser: launchBrowser(), users: 0 };
  shared.users++;
  try {
    return await shared.browser;
  } catch (err) {
    shared = null;
    throw err;
  }
}

async function releaseBrowser(): Promise<void> {
  if (!shared || --shared.users > 0) return;
  const { browser } = shared;
  shared = null;
  await (await browser).close();
}

/**
 * The app and Chromium for the tests of the block this is called in (a file, or an engine's
 * block of forEachEngine): started before its tests, stopped after them.
 */
export function dashboardPerFile(env: Record<string, string> = {}, engine: Engine = 'sqlite'): Dashboard {
  const d = {} as Dashboard;
  beforeAll(async () => {
    Object.assign(d, await startDashboard(env, engine));
  });
  afterAll(() => d.close?.());
  return d;
}

/** Nothing left the box, nothing threw, and the CSP blocked nothing. */
export async function expectCleanPage(p: OfflinePage): Promise<void> {
  expect(p.blocked).toEqual([]);
  expect(p.errors).toEqual([]);
  expect(await cspViolations(p.page)).toEqual([]);
  expect(p.csp).toEqual([]);
}

const AXE_SOURCE = readFileSync(`${ROOT}/node_modules/axe-core/axe.min.js`, 'utf8');

/** axe-core's serious and critical findings on the page as it is now (WCAG 2.x A and AA). */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  // Evaluated by the browser's debugger protocol, not as a page script: the CSP does not apply.
  await page.evaluate(AXE_SOURCE);
  const result = (await page.evaluate(
    `axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] })`,
  )) as { violations: { id: string; impact: string; nodes: { target: string[] }[] }[] };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

export interface RealSession {
  /** A write key of the same account, for seeding data through /api/v1 from the test. */
  key: string;
  account: { id: string; email: string; superuser: boolean };
}

/**
 * Signs the page's browser context in for real: a new account (with a write key for seeding),
 * then POST /api/app/session through the context's own request client, so the session cookie the
 * server sets is the one the pages send. Nothing is stubbed: /api/app and /api/v1 are the app's.
 */
export async function realSession(d: Dashboard, page: Page, superuser = true): Promise<RealSession> {
  const { key, account } = await makeKey(d.t, 'write', { superuser });
  const res = await page.request.post(`${d.origin}/api/app/session`, {
    data: { email: account.email, password: PASSWORD },
    headers: { 'sec-fetch-site': 'same-origin' },
  });
  expect(res.status()).toBe(200);
  return { key, account: { id: account.id, email: account.email, superuser } };
}

/**
 * Waits until `check` holds. (Playwright's waitForFunction evaluates its predicate with eval,
 * which the dashboard's CSP forbids; this polls from the test instead.)
 */
export function waitUntil(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  // The shared bounded poll (wait.ts), asking the page every 50 ms: each ask is a round trip to it.
  return waitUntilRead(check, `${check}`, timeoutMs, 50);
}

/** An offline page whose context is signed in for real (see realSession). */
export async function signedInPage(d: Dashboard, superuser = true): Promise<OfflinePage & RealSession> {
  const p = await offlinePage(d.browser);
  return { ...p, ...(await realSession(d, p.page, superuser)) };
}

export { offlinePage };

/**
 * The page as `show` leaves it (it navigates and waits for the state to check) has no serious
 * or critical axe finding in light and in dark, and at 375 px wide nothing scrolls sideways.
 */
export async function expectUsableEverywhere(page: Page, show: () => Promise<void>): Promise<void> {
  const size = page.viewportSize();
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    await show();
    expect({ colorScheme, violations: await seriousA11yViolations(page) }).toEqual({ colorScheme, violations: [] });
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 375, height: 800 });
  await show();
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
  if (size) await page.setViewportSize(size);
}

/** Text that runs script if a page ever renders it as HTML; tests assert `window.__xss` stays unset. */
export const XSS_PROBE = '<img src=x onerror="window.__xss=1">';
