/**
 * A link's statistics page in Chromium against the real app: clicks recorded through the real
 * redirect (addresses by X-Forwarded-For, one trusted proxy hop) and flushed, then read as a
 * person would: totals, breakdown rows, the map's colours, the chart and its table, the window
 * in the address, and the API's errors under the field they name.
 */
import { beforeAll, expect, test } from 'bun:test';
import {
  dashboardPerFile,
  expectCleanPage,
  seriousA11yViolations,
  signedInPage,
  waitUntil,
} from '../helpers/dashboard-browser';
import {
  breakdownRows,
  expectAccessibleAtEveryWidth,
  expectNoSidewaysScroll,
  mapClasses,
  totals,
  waitForClicks,
} from '../helpers/stats-page';
import { createLink, createVariant, PLACES, visit } from '../helpers/stats-seed';
import { UA } from '../modules/clicks/support';

const d = dashboardPerFile({ SLINK_TRUST_PROXY: '1' });
const LONG_HOST = 'a-very-long-subdomain-of-a-referring-site-for-narrow-screens.example.org';
let linkId = '';
let key = '';

beforeAll(async () => {
  key = (await signedInPage(d)).key;
  linkId = await createLink(d.t, key, {
    slug: 'promo',
    params: { note: '<b>bold</b>' },
    // Phones go to the app's page: the second rule, after one nobody matches.
    rules: [
      { when: { language: ['ja'] }, destination: 'https://example.jp/' },
      { when: { device: ['mobile'] }, destination: 'https://m.example.com/' },
    ],
  });
  await createVariant(d.t, key, linkId, { code: 'fb', params: { utm_source: 'facebook', utm_medium: 'social' } });
  await visit(d.t, [
    { path: '/promo', ip: PLACES.london, ua: UA.chromeWin, referer: 'https://news.example.com/a', lang: 'en-GB' },
    { path: '/promo', ip: PLACES.london2, ua: UA.safariIphone, referer: 'https://news.example.com/b' },
    { path: '/promo', ip: PLACES.london3, ua: UA.firefoxLinux, referer: 'https://news.example.com/' },
    { path: '/promo/fb', ip: PLACES.mountainView, ua: UA.safariIphone },
    { path: '/promo', ip: PLACES.frankfurt, ua: UA.edgeMac, lang: 'de-DE' },
    // A long referring host: one word that must still fit a phone's width.
    { path: '/promo/zz', ip: PLACES.private, ua: UA.chromeAndroid, referer: `https://${LONG_HOST}/x` },
    { path: '/promo', ip: PLACES.sydney, ua: UA.googlebot },
  ]);
});

async function statsPage(query = '') {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app/links/${linkId}/stats${query}`);
  await p.page.getByRole('heading', { name: 'Statistics of promo', level: 1 }).waitFor();
  return p;
}

test('totals, breakdown rows, the map and the chart with its table', async () => {
  const p = await statsPage('?range=24h');
  expect(await totals(p.page)).toEqual({ Clicks: '6', 'Unique visitors': '6', 'Bot hits': '1', 'Opted out': '0' });
  expect((await breakdownRows(p.page, 'Countries')).map((r) => r.slice(0, 2))).toEqual([
    ['United Kingdom (GB)', '3'],
    ['Germany (DE)', '1'],
    ['United States (US)', '1'],
    ['Unknown', '1'],
  ]);
  expect((await breakdownRows(p.page, 'Referrers')).map((r) => r.slice(0, 2))).toEqual([
    ['news.example.com', '3'],
    ['Direct (no referrer)', '2'],
    [LONG_HOST, '1'],
  ]);
  expect((await breakdownRows(p.page, 'UTM sources'))[0]!.slice(0, 2)).toEqual(['facebook', '1']);
  // The link's own clicks (the bare link, and the unknown code zz) are a row: the rows add up to 6.
  expect((await breakdownRows(p.page, 'Variants')).map((r) => r.slice(0, 2))).toEqual([
    ['No variant (the link itself)', '5'],
    ['fb', '1'],
  ]);
  expect((await breakdownRows(p.page, 'Unrecognised variant codes'))[0]!.slice(0, 2)).toEqual(['zz', '1']);
  // The three phones' clicks, by the rule that sent them (numbered from 1 as on the link page),
  // with where that rule sends visitors.
  const ruleRow = p.page.getByRole('region', { name: 'Link rules', exact: true }).locator('tbody tr');
  expect(await ruleRow.locator('.bar-label').allTextContents()).toEqual(['Rule 2']);
  expect(await ruleRow.locator('.bar-note').allTextContents()).toEqual(['→\u00a0https://m.example.com/']);
  expect((await breakdownRows(p.page, 'Link rules')).map((r) => r[1])).toEqual(['3']);
  // A user-supplied value is text, never markup.
  expect((await breakdownRows(p.page, 'Parameters'))[0]!.slice(0, 2)).toEqual(['note = <b>bold</b>', '6']);
  expect(await p.page.locator('.breakdowns b').count()).toBe(0);

  expect(await mapClasses(p.page, 'GB')).toContain('q5');
  expect(await mapClasses(p.page, 'US')).toContain('q3');
  expect((await mapClasses(p.page, 'AU')).some((c) => /^q\d$/.test(c))).toBe(false);
  expect(await p.page.locator('.world-map path#c-GB title').textContent()).toBe('United Kingdom: 3 clicks');
  expect(await p.page.getByRole('link', { name: 'IP Geolocation by DB-IP' }).first().getAttribute('href')).toBe(
    'https://db-ip.com',
  );

  await p.page.getByRole('heading', { name: 'Clicks per hour' }).waitFor();
  await p.page.locator('.stats-chart canvas').first().waitFor();
  await p.page.getByRole('button', { name: 'Show as table' }).click();
  const rows = await p.page.locator('#series-table tbody tr').all();
  expect(rows).toHaveLength(24);
  const counted = [];
  for (const row of rows) {
    const cells = await row.locator('td').allTextContents();
    if (cells[0] !== '0') counted.push([(await row.locator('th').textContent())!.includes('12:00'), ...cells]);
  }
  expect(counted).toEqual([[true, '6', '6']]);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('range and bots live in the address and change the numbers', async () => {
  const p = await statsPage();
  expect((await totals(p.page)).Clicks).toBe('6');
  await p.page.getByLabel('Include bots').check();
  await waitForClicks(p.page, '7');
  expect(new URL(p.page.url()).search).toBe('?bots=1');
  expect(await mapClasses(p.page, 'AU')).toContain('q3');
  await p.page.getByLabel('Range').selectOption('today');
  await waitUntil(async () => new URL(p.page.url()).search === '?range=today&bots=1');
  await p.page.getByRole('heading', { name: 'Clicks per hour' }).waitFor();
  await waitForClicks(p.page, '7');
  await p.page.getByLabel('Include bots').uncheck();
  await waitForClicks(p.page, '6');
  expect(new URL(p.page.url()).search).toBe('?range=today');
  // A reload shows the same view.
  await p.page.reload();
  expect(await p.page.getByLabel('Range').inputValue()).toBe('today');
  expect((await totals(p.page)).Clicks).toBe('6');
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('a custom range: dates in the address, the API error under the field it names', async () => {
  const p = await statsPage('?range=7d');
  await totals(p.page);
  await p.page.getByLabel('Range').selectOption('custom');
  expect(await p.page.getByLabel('From (UTC)').inputValue()).toBe('2026-11-14');
  expect(await p.page.getByLabel('To (UTC)').inputValue()).toBe('2026-11-21');
  await p.page.getByLabel('From (UTC)').fill('2026-11-22');
  await p.page.getByRole('button', { name: 'Apply' }).click();
  const from = p.page.getByLabel('From (UTC)');
  await waitUntil(async () => (await from.getAttribute('aria-invalid')) === 'true');
  const described = (await from.getAttribute('aria-describedby'))!;
  expect(await p.page.locator(`[id="${described}"]`).textContent()).toBe('Must not be after To (UTC).');
  expect(new URL(p.page.url()).search).toBe('?from=2026-11-22&to=2026-11-21');
  expect(await p.page.getByRole('region', { name: 'Totals' }).count()).toBe(0);

  await from.fill('2026-11-21');
  await p.page.getByRole('button', { name: 'Apply' }).click();
  await waitForClicks(p.page, '6');
  expect(await from.getAttribute('aria-invalid')).toBeNull();
  await p.page.getByLabel('Range').selectOption('custom');
  await p.page.getByLabel('From (UTC)').fill('2026-01-01');
  await p.page.getByLabel('To (UTC)').fill('2026-01-31');
  await p.page.getByRole('button', { name: 'Apply' }).click();
  await p.page.getByRole('heading', { name: 'No clicks in this range yet' }).waitFor();
  await p.page.getByText('Share the short link').waitFor();
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('accessible in light and dark, usable at 375 px, the chart as a table too', async () => {
  const p = await statsPage('?bots=1');
  await expectAccessibleAtEveryWidth(p.page);
  await p.page.getByRole('button', { name: 'Show as table' }).click();
  await p.page.locator('#series-table').waitFor();
  await expectNoSidewaysScroll(p.page);
  expect(await seriousA11yViolations(p.page)).toEqual([]);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);
