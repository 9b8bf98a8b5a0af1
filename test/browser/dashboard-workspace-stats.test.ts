/**
 * The workspace's statistics page in Chromium against the real app: reached from the main
 * navigation, its top links leading to each link's statistics for the same window, the ways
 * in from the links list and a link's page, the empty state, accessibility and a phone's width.
 */
import { beforeAll, expect, test } from 'bun:test';
import { dashboardPerFile, expectCleanPage, signedInPage, waitUntil } from '../helpers/dashboard-browser';
import { breakdownRows, expectAccessibleAtEveryWidth, mapClasses, totals } from '../helpers/stats-page';
import { createLink, PLACES, visit } from '../helpers/stats-seed';
import { UA } from '../modules/clicks/support';

const d = dashboardPerFile({ SLINK_TRUST_PROXY: '1' });
const ids = { alpha: '', beta: '' };

beforeAll(async () => {
  const { key } = await signedInPage(d);
  // Both links send phones by their first rule: rule 1 of one link is not rule 1 of the other.
  const phones = (to: string) => [{ when: { device: ['mobile'] }, destination: to }];
  ids.alpha = await createLink(d.t, key, { slug: 'alpha', rules: phones('https://example.com/a') });
  ids.beta = await createLink(d.t, key, { slug: 'beta', rules: phones('https://example.com/b') });
  await createLink(d.t, key, { slug: 'quiet' });
  await visit(d.t, [
    { path: '/alpha', ip: PLACES.paris, ua: UA.chromeWin },
    { path: '/alpha', ip: PLACES.paris, ua: UA.safariIphone },
    { path: '/alpha', ip: PLACES.tokyo, ua: UA.chromeAndroid },
    { path: '/beta', ip: PLACES.tokyo, ua: UA.edgeMac },
  ]);
  // Three days earlier, a bot hit and nothing else.
  const now = d.t.clock.now();
  d.t.clock.set(now - 3 * 86_400_000);
  await visit(d.t, [{ path: '/quiet', ip: PLACES.tokyo, ua: UA.curl }]);
  d.t.clock.set(now);
});

test('from the navigation: totals, top links, and on to a link with the same window', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app`);
  const nav = p.page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Statistics' }).click();
  await p.page.getByRole('heading', { name: 'Statistics', level: 1 }).waitFor();
  expect(await nav.getByRole('link', { name: 'Statistics' }).getAttribute('aria-current')).toBe('page');
  expect(await totals(p.page)).toEqual({ Clicks: '4', 'Unique visitors': '4', 'Bot hits': '1', 'Opted out': '0' });
  expect((await breakdownRows(p.page, 'Top links')).map((r) => r.slice(0, 3))).toEqual([
    ['alpha', '3', '75%'],
    ['beta', '1', '25%'],
  ]);
  expect((await breakdownRows(p.page, 'Countries')).map((r) => r.slice(0, 2))).toEqual([
    ['France (FR)', '2'],
    ['Japan (JP)', '2'],
  ]);
  expect(await mapClasses(p.page, 'JP')).toContain('q5');
  // Rules belong to their link: no workspace breakdown adds different links' rules together.
  await p.page.getByRole('region', { name: 'Devices', exact: true }).waitFor();
  expect(await p.page.getByRole('region', { name: 'Link rules', exact: true }).count()).toBe(0);

  await p.page.getByLabel('Range').selectOption('7d');
  await waitUntil(async () => p.page.url().endsWith('/app/stats?range=7d'));
  await p.page.getByRole('heading', { name: 'Clicks per hour' }).waitFor();
  await p.page.getByRole('region', { name: 'Top links' }).getByRole('link', { name: 'alpha' }).click();
  await p.page.getByRole('heading', { name: 'Statistics of alpha', level: 1 }).waitFor();
  expect(p.page.url()).toBe(`${d.origin}/app/links/${ids.alpha}/stats?range=7d`);
  expect((await totals(p.page)).Clicks).toBe('3');
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test("a link's statistics are one click away from the links list and from the link's page", async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app`);
  await p.page.getByRole('link', { name: 'Statistics of sl.test/beta' }).click();
  await p.page.getByRole('heading', { name: 'Statistics of beta', level: 1 }).waitFor();
  await p.page.getByRole('link', { name: 'beta', exact: true }).click();
  await p.page.getByRole('heading', { name: 'beta', level: 1 }).waitFor();
  await p.page.getByRole('link', { name: 'Statistics', exact: true }).last().click();
  await p.page.getByRole('heading', { name: 'Statistics of beta', level: 1 }).waitFor();
  expect(p.page.url()).toBe(`${d.origin}/app/links/${ids.beta}/stats`);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('a range without clicks says what to do, and how many bot hits it left out', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app/stats?from=2026-01-01&to=2026-01-31`);
  const empty = p.page.getByRole('heading', { name: 'No clicks in this range yet' });
  await empty.waitFor();
  await p.page.getByText('Share a short link').waitFor();
  await p.page.goto(`${d.origin}/app/stats?from=2026-11-18&to=2026-11-18`);
  await empty.waitFor();
  await p.page.getByText('One bot hit was left out: tick Include bots to count them.').waitFor();
  await p.page.getByLabel('Include bots').check();
  await waitUntil(async () => (await totals(p.page)).Clicks === '1');
  await p.page.goto(`${d.origin}/app/stats?range=today`);
  await totals(p.page);
  await p.page.getByLabel('Range').selectOption('custom');
  await p.page.getByLabel('From (UTC)').fill('2026-11-21');
  await p.page.getByLabel('To (UTC)').fill('2026-11-21');
  await p.page.getByRole('button', { name: 'Apply' }).click();
  await waitUntil(async () => p.page.url().endsWith('?from=2026-11-21&to=2026-11-21'));
  expect((await totals(p.page)).Clicks).toBe('4');
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('accessible in light and dark, usable at 375 px', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app/stats`);
  await expectAccessibleAtEveryWidth(p.page);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('at 375 px the chart keeps its last point inside the plot, where the pointer reads it', async () => {
  const p = await signedInPage(d);
  await p.page.setViewportSize({ width: 375, height: 800 });
  await p.page.goto(`${d.origin}/app/stats?range=7d`);
  await p.page.locator('.stats-chart canvas').first().waitFor();
  await p.page.locator('.stats-chart').scrollIntoViewIfNeeded();
  // Nothing is read out before the pointer is on the chart.
  expect(await p.page.locator('.chart-point').count()).toBe(0);
  const plot = (await p.page.locator('.stats-chart .u-over').boundingBox())!;
  const chart = (await p.page.locator('.stats-chart').boundingBox())!;
  expect(plot.x + plot.width).toBeLessThanOrEqual(chart.x + chart.width);
  // The pointer at the plot's right end reads the last hour (the clicks, at 12:00 UTC)...
  await p.page.mouse.move(plot.x + plot.width - 1, plot.y + plot.height / 2);
  await waitUntil(async () => ((await p.page.locator('.chart-point').textContent()) ?? '').includes('12:00'));
  expect(await p.page.locator('.chart-point').textContent()).toBe('2026-11-21 12:00 UTC: 4 clicks, 4 unique');
  // ...and its marks are drawn whole inside the plot, not cut in half at its edge.
  const marks = await p.page.locator('.stats-chart .u-cursor-pt').all();
  expect(marks.length).toBeGreaterThan(0);
  for (const mark of marks) {
    const box = (await mark.boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(plot.x + plot.width);
  }
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);
