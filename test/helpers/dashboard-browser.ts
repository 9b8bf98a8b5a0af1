/**
 * Browser tests of the dashboard: the real app listening on loopback, Chromium offline, axe-core
 * for accessibility, and a stand-in session for the signed-in pages.
 */
import { afterAll, beforeAll, expect } from 'bun:test';
import { readFileSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { disposeTestApp, makeKey, makeTestApp, type TestApp } from './app';
import { cspViolations, launchBrowser, type OfflinePage, offlinePage } from './browser';
import { ROOT } from './proc';

export interface Dashboard {
  t: TestApp;
  origin: string;
  browser: Browser;
  close(): Promise<void>;
}

export async function startDashboard(): Promise<Dashboard> {
  const t = makeTestApp();
  t.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false });
  const browser = await launchBrowser();
  return {
    t,
    origin: `http://127.0.0.1:${t.app.server!.port}`,
    browser,
    async close() {
      await browser.close();
      await disposeTestApp(t);
    },
  };
}

/** The app and Chromium for one test file: started before its tests, stopped after them. */
export function dashboardPerFile(): Dashboard {
  const d = {} as Dashboard;
  beforeAll(async () => {
    Object.assign(d, await startDashboard());
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

export interface StandInSession {
  key: string;
  account: { id: string; email: string; superuser: boolean };
}

/**
 * Signs the page in without the server's session endpoints: GET /api/app/session answers as for
 * a live session, and /api/v1 requests carry the account's write key (as the session cookie
 * would stand for it). Everything under /api/v1 is then the real API.
 */
export async function standInSession(d: Dashboard, page: Page, superuser = true): Promise<StandInSession> {
  const { key, account } = await makeKey(d.t, 'write', { superuser });
  const who = { id: account.id, email: account.email, superuser };
  await page.route(`${d.origin}/api/app/session`, (route) =>
    route.request().method() === 'GET'
      ? route.fulfill({ json: { account: who, session: { id: 'ses_standin', expiresAt: Date.now() + 86_400_000 } } })
      : route.fallback(),
  );
  await page.route(`${d.origin}/api/v1/**`, (route) =>
    route.continue({ headers: { ...route.request().headers(), authorization: `Bearer ${key}` } }),
  );
  return { key, account: who };
}

/**
 * Waits until `check` holds. (Playwright's waitForFunction evaluates its predicate with eval,
 * which the dashboard's CSP forbids; this polls from the test instead.)
 */
export async function waitUntil(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`condition not met within ${timeoutMs} ms: ${check}`);
    await Bun.sleep(50);
  }
}

/** An offline page signed in through a stand-in session (see standInSession). */
export async function signedInPage(d: Dashboard, superuser = true): Promise<OfflinePage & StandInSession> {
  const p = await offlinePage(d.browser);
  return { ...p, ...(await standInSession(d, p.page, superuser)) };
}

export { offlinePage };
