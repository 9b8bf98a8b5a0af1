/**
 * Reading the statistics pages in the browser the way a person does: by headings, labels and
 * table rows, never by the client's internals.
 */
import { expect } from 'bun:test';
import type { Page } from 'playwright-core';
import { seriousA11yViolations, waitUntil } from './dashboard-browser';

/** The totals panel as { Clicks: '6', 'Unique visitors': '6', 'Bot hits': '1', 'Opted out': '0' }. */
export async function totals(page: Page): Promise<Record<string, string>> {
  const panel = page.getByRole('region', { name: 'Totals' });
  await panel.waitFor();
  const terms = await panel.locator('dt').allTextContents();
  const values = await panel.locator('dd').allTextContents();
  return Object.fromEntries(terms.map((term, i) => [term, values[i]!]));
}

/** Waits until the totals read `clicks` (after a change of window). */
export async function waitForClicks(page: Page, clicks: string): Promise<void> {
  await waitUntil(
    async () => (await totals(page)).Clicks === clicks && !(await page.locator('.stats[aria-busy="true"]').count()),
  );
}

/** The cells of a breakdown's rows: [[label, clicks, share], ...] in the order shown. */
export async function breakdownRows(page: Page, title: string): Promise<string[][]> {
  const table = page.getByRole('region', { name: title, exact: true }).locator('tbody');
  const rows = await table.locator('tr').all();
  return Promise.all(rows.map((row) => row.locator('td').allTextContents()));
}

/** The classes of a country's shape on the world map (waits for the map to arrive). */
export async function mapClasses(page: Page, code: string): Promise<string[]> {
  const path = page.locator(`.world-map path#c-${code}`);
  await path.waitFor({ state: 'attached' });
  return ((await path.getAttribute('class')) ?? '').split(/\s+/);
}

/** The page does not scroll sideways (tables scroll inside their own boxes). */
export async function expectNoSidewaysScroll(page: Page): Promise<void> {
  const [scroll, viewport] = (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [
    number,
    number,
  ];
  expect(scroll).toBeLessThanOrEqual(viewport);
}

/**
 * A statistics page once its map and chart are drawn: no serious axe finding in light and dark,
 * then at 375 px the chart fits, the page does not scroll sideways, and axe still finds nothing.
 */
export async function expectAccessibleAtEveryWidth(page: Page): Promise<void> {
  const chart = page.locator('.stats-chart canvas').first();
  await page.locator('.world-map path.q5').first().waitFor({ state: 'attached' });
  await chart.waitFor();
  expect(await seriousA11yViolations(page)).toEqual([]);
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await seriousA11yViolations(page)).toEqual([]);
  await page.setViewportSize({ width: 375, height: 800 });
  await waitUntil(async () => ((await chart.boundingBox())?.width ?? 999) < 375);
  await expectNoSidewaysScroll(page);
  expect(await seriousA11yViolations(page)).toEqual([]);
}
