/**
 * Variants and top links on the statistics pages, in Chromium against the real app, with
 * clicks through the real redirect: a link's variant list names its own clicks (the entry "")
 * and adds up to its total; the workspace's lists each link's variants apart as slug/code, each
 * leading to that link's statistics; top links show a link's title with its slug second.
 */
import { beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { api } from '../helpers/app';
import { dashboardPerFile, expectCleanPage, signedInPage, waitUntil } from '../helpers/dashboard-browser';
import { breakdownRows, totals } from '../helpers/stats-page';
import { createLink, createVariant, visit } from '../helpers/stats-seed';
import { UA } from '../modules/clicks/support';

const d = dashboardPerFile({ SLINK_TRUST_PROXY: '1' });
const ids = { promo: '', launch: '' };
let key = '';

beforeAll(async () => {
  key = (await signedInPage(d)).key;
  ids.promo = await createLink(d.t, key, { slug: 'promo' });
  ids.launch = await createLink(d.t, key, { slug: 'launch', title: 'Spring launch' });
  // The same code on both links: two entries in the workspace, never one.
  await createVariant(d.t, key, ids.promo, { code: 'fb' });
  await createVariant(d.t, key, ids.launch, { code: 'fb' });
  const ua = UA.chromeWin;
  await visit(d.t, [
    { path: '/promo', ua },
    { path: '/promo', ua },
    { path: '/promo/fb', ua },
    // A code that matches no variant: redirected as the link itself.
    { path: '/promo/zz', ua },
    { path: '/launch/fb', ua },
    { path: '/launch/fb', ua },
    { path: '/launch', ua },
  ]);
});

/** The label and the quieter note under it of each row of a breakdown. */
async function labelsOf(page: Page, title: string): Promise<[string, string | null][]> {
  const rows = await page.getByRole('region', { name: title, exact: true }).locator('tbody tr').all();
  return Promise.all(
    rows.map(async (row) => {
      const note = row.locator('.bar-note');
      return [
        (await row.locator('.bar-label').textContent())!,
        (await note.count()) ? await note.textContent() : null,
      ] as [string, string | null];
    }),
  );
}

test("a link's variants: its own clicks named, the rows adding up to its clicks", async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app/links/${ids.promo}/stats?range=24h`);
  await p.page.getByRole('heading', { name: 'Statistics of promo', level: 1 }).waitFor();
  expect((await totals(p.page)).Clicks).toBe('4');
  await p.page.getByRole('region', { name: 'Variants', exact: true }).locator('tbody tr').first().waitFor();
  expect((await breakdownRows(p.page, 'Variants')).map((r) => r.slice(0, 2))).toEqual([
    ['No variant (the link itself)', '3'],
    ['fb', '1'],
  ]);
  const variants = p.page.getByRole('region', { name: 'Variants', exact: true });
  expect(await variants.locator('.hint').textContent()).toBe(
    'No variant: clicks on the short link itself, and on codes that match no variant (listed under Unrecognised variant codes).',
  );
  const stats = await api(d.t, 'GET', `/links/${ids.promo}/stats?range=24h`, { key });
  expect(stats.body.breakdowns.variant).toEqual([
    { value: '', clicks: 3 },
    { value: 'fb', clicks: 1 },
  ]);
  expect(stats.body.totals.clicks).toBe(4);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test("the workspace's variants read slug/code, each leading to its link's statistics", async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app/stats?range=7d`);
  const variants = p.page.getByRole('region', { name: 'Variants', exact: true });
  await variants.locator('tbody tr').first().waitFor();
  expect((await breakdownRows(p.page, 'Variants')).map((r) => r.slice(0, 2))).toEqual([
    ['launch/fb', '2'],
    ['promo/fb', '1'],
  ]);
  const stats = await api(d.t, 'GET', '/workspace/stats?range=7d', { key });
  expect(stats.body.breakdowns.variant).toEqual([
    { value: 'launch/fb', linkId: ids.launch, code: 'fb', clicks: 2 },
    { value: 'promo/fb', linkId: ids.promo, code: 'fb', clicks: 1 },
  ]);
  await variants.getByRole('link', { name: 'launch/fb' }).click();
  await p.page.getByRole('heading', { name: 'Statistics of Spring launch', level: 1 }).waitFor();
  expect(p.page.url()).toBe(`${d.origin}/app/links/${ids.launch}/stats?range=7d`);
  await waitUntil(async () => (await totals(p.page)).Clicks === '3');
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('top links: a titled link by its title, its slug second; an untitled one by its slug', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app/stats?range=7d`);
  await p.page.getByRole('region', { name: 'Top links' }).locator('tbody tr').first().waitFor();
  expect(await labelsOf(p.page, 'Top links')).toEqual([
    ['promo', null],
    ['Spring launch', 'launch'],
  ]);
  const stats = await api(d.t, 'GET', '/workspace/stats?range=7d', { key });
  expect(stats.body.topLinks).toEqual([
    { id: ids.promo, slug: 'promo', title: null, clicks: 4 },
    { id: ids.launch, slug: 'launch', title: 'Spring launch', clicks: 3 },
  ]);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);
