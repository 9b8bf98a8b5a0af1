/**
 * Every time and date the dashboard shows is UTC and says so, whatever the browser's own zone
 * (here India's, UTC+05:30, where a local time would read 19:35 for 14:05 UTC): a link's page,
 * the links list, API keys, sessions, accounts, a link's raw clicks and its statistics.
 */
import { expect, test } from 'bun:test';
import { api } from '../helpers/app';
import { dashboardPerFile, expectCleanPage, offlinePage, realSession } from '../helpers/dashboard-browser';

const d = dashboardPerFile();
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

test('times read "2026-11-26 14:05 UTC" on every page, not the browser zone’s 19:35', async () => {
  d.t.clock.set(Date.UTC(2026, 10, 26, 14, 5, 9));
  const p = await offlinePage(d.browser, { timezoneId: 'Asia/Kolkata' });
  const { key, account } = await realSession(d, p.page);
  // The browser really is in another zone: its own clock reads 19:35 for this instant.
  expect(await p.page.evaluate(`new Date(${d.t.clock.now()}).getHours()`)).toBe(19);
  const created = await api(d.t, 'POST', '/links', {
    key,
    body: { destination: 'https://example.com/', slug: 'zoned' },
  });
  expect(created.status).toBe(201);
  d.t.clock.advance(2 * 60_000);
  const hit = await d.t.app.handle(new Request('https://sl.test/zoned', { headers: { 'user-agent': CHROME } }));
  expect(hit.status).toBe(302);
  expect(await d.t.deps.clicks.flusher.flush()).toBe(true);
  const { page } = p;
  const cells = async (row: string) => page.getByRole('row').filter({ hasText: row }).locator('td').allTextContents();

  await page.goto(`${d.origin}/app/links/${created.body.id}`);
  await page.getByText('Created 2026-11-26 14:05 UTC').waitFor();
  const numbers = page.getByRole('region', { name: 'Short link' });
  expect(await numbers.locator('div').filter({ hasText: 'Last click' }).locator('dd').textContent()).toBe(
    '2026-11-26 14:07 UTC',
  );

  await page.goto(`${d.origin}/app`);
  await page.locator('.link-item').filter({ hasText: 'zoned' }).getByText('2026-11-26 UTC').waitFor();

  await page.goto(`${d.origin}/app/settings/keys`);
  await page.getByRole('cell', { name: /^write key/ }).waitFor();
  expect((await cells('write key')).slice(2, 5)).toEqual(['2026-11-26 14:05 UTC', '2026-11-26 14:05 UTC', 'never']);

  await page.goto(`${d.origin}/app/settings/sessions`);
  const session = page.locator('.session-item .hint');
  await session.waitFor();
  expect(await session.textContent()).toMatch(
    /^Signed in 2026-11-26 14:05 UTC · last seen 2026-11-26 14:0[57] UTC · ends 2026-12-26 14:05 UTC$/,
  );

  await page.goto(`${d.origin}/app/settings/accounts`);
  await page.getByRole('cell', { name: account.email }).waitFor();
  expect((await cells(account.email)).slice(2, 4)).toEqual(['2026-11-26 14:05 UTC', '2026-11-26 14:05 UTC']);

  await page.goto(`${d.origin}/app/links/${created.body.id}/stats?range=today`);
  await page.getByRole('heading', { name: 'Clicks per hour (UTC)' }).waitFor();
  expect(await page.getByRole('region', { name: 'Totals' }).locator('.hint').textContent()).toContain(
    '2026-11-26 00:00 to 2026-11-26 14:59 UTC.',
  );
  await page.getByRole('columnheader', { name: 'Time (UTC)' }).waitFor();
  expect((await cells('2026-11-26 14:07:09'))[0]).toBe('2026-11-26 14:07:09');
  await page.getByRole('button', { name: 'Show as table' }).click();
  const series = page.locator('#series-table');
  expect(
    await series.getByRole('row').filter({ hasText: '2026-11-26 14:00' }).locator('th, td').allTextContents(),
  ).toEqual(['2026-11-26 14:00', '1', '1']);
  await expectCleanPage(p);
  await page.close();
}, 90_000);
