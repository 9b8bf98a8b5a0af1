/**
 * /api/docs renders the whole API reference in a real browser with no internet access, under
 * its Content-Security-Policy (which allows its one inline script and style by hash). It reads
 * nothing stored: checked on SQLite only.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { disposeTestApp, makeTestApp, type TestApp } from '../helpers/app';
import { cspViolations, launchBrowser, offlinePage } from '../helpers/browser';

let t: TestApp;
let browser: Browser;
let origin: string;

beforeAll(async () => {
  t = await makeTestApp();
  t.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false });
  origin = `http://127.0.0.1:${t.app.server!.port}`;
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await disposeTestApp(t);
});

test('the docs page lists every operation, loading nothing from outside', async () => {
  const { page, blocked, errors, csp } = await offlinePage(browser);
  const response = await page.goto(`${origin}/api/docs`);
  expect(response?.status()).toBe(200);
  expect(response?.headers()['content-security-policy']).toContain("script-src 'self' 'sha256-");
  await page.waitForSelector('.opblock', { timeout: 20_000 });
  const operations = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path')));
  expect(operations).toContain('/api/v1/links');
  expect(operations).toContain('/api/v1/links/{id}/variants/{variantId}');
  expect(operations).toContain('/api/v1/projects/{id}');
  expect(await page.textContent('.info .title')).toContain('Slink API');
  // The bearer scheme is offered by the Authorize button.
  expect(await page.isVisible('button.authorize')).toBe(true);
  // Opening an operation and the Authorize dialog runs more of the UI under the policy.
  await page.click('.opblock-summary');
  await page.click('button.authorize');
  await page.waitForSelector('.modal-ux');
  expect(blocked).toEqual([]);
  expect(errors).toEqual([]);
  expect(await cspViolations(page)).toEqual([]);
  expect(csp).toEqual([]);
}, 60_000);
