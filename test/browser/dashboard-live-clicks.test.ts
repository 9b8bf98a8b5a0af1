/**
 * Live clicks in Chromium against the real app: a click on the short link (a real request to
 * the short host, then the flush that records it) shows in the link page's feed and moves its
 * counter without a reload, and moves a statistics page's totals; numbers the page reads again
 * afterwards do not count it twice; the numbers that move are marked while the stream is open;
 * with the stream refused, the page says it polls (and why, when too many streams are open) and
 * still shows the click.
 */
import { beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { apiExpecting } from '../helpers/app';
import { dashboardPerFile, expectCleanPage, signedInPage } from '../helpers/dashboard-browser';
import { flushOk, UA } from '../modules/clicks/support';

const d = dashboardPerFile({ SLINK_TRUST_PROXY: '1' });
let key = '';

beforeAll(async () => {
  key = (await signedInPage(d)).key;
});

/** A person's click on https://sl.test/<slug>, sent to the listening app as the short host; then the flush. */
async function clickShortUrl(slug: string, referer?: string): Promise<void> {
  const res = await fetch(`${d.origin}/${slug}`, {
    redirect: 'manual',
    headers: {
      host: 'sl.test',
      'user-agent': UA.chromeWin,
      'x-forwarded-for': '81.2.69.142',
      ...(referer ? { referer } : {}),
    },
  });
  expect({ status: res.status, location: res.headers.get('location') }).toEqual({
    status: 302,
    location: expect.stringMatching(/^https:\/\/example\.com\//),
  });
  await flushOk(d.t);
}

const number = (page: Page, label: string) =>
  page
    .locator('dl.numbers > div')
    .filter({ has: page.locator('dt', { hasText: label }) })
    .locator('dd');
/** The labels of the numbers marked as moving with the live clicks. */
const liveMarked = (page: Page) =>
  page
    .locator('dl.numbers dt')
    .filter({ has: page.locator('.live-mark') })
    .allTextContents();
const feed = (page: Page) => page.getByRole('list', { name: 'Latest clicks, newest first' }).getByRole('listitem');

test("link page: a click shows in the live feed and moves the counter; a reload of the link's data does not count it twice", async () => {
  const p = await signedInPage(d);
  const link = await apiExpecting(d.t, key, 'POST', '/links', {
    destination: 'https://example.com/live',
    slug: 'live',
  });
  await p.page.goto(`${d.origin}/app/links/${link.id}`);
  await p.page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
  expect(await number(p.page, 'Clicks').textContent()).toBe('0');
  expect(await p.page.getByText('No clicks since this page opened.').isVisible()).toBe(true);
  // The numbers that move with the stream are marked, and the others said to stand still.
  expect(await liveMarked(p.page)).toEqual(['Clicks', 'Last click']);
  expect(await p.page.locator('.live-mark-hint').textContent()).toBe(
    ' Clicks and Last click move as clicks arrive; the other numbers are as of when the page read them.',
  );

  await clickShortUrl('live', 'https://news.example.org/<b>story</b>');
  const line = feed(p.page).first();
  await line.waitFor();
  await number(p.page, 'Clicks').getByText('1', { exact: true }).waitFor();
  const text = await line.textContent();
  expect(text).toContain('United Kingdom');
  expect(text).toContain('Desktop');
  expect(text).toContain('Chrome');
  expect(text).toContain('news.example.org');
  expect(text).toContain('https://example.com/live');
  expect(await number(p.page, 'Last click').textContent()).not.toBe('never');

  // The page reads the link again (its answer to Pause): the click is in its counters now.
  await p.page.getByRole('button', { name: 'Pause' }).click();
  await p.page.getByRole('button', { name: 'Resume' }).waitFor();
  expect(await number(p.page, 'Clicks').textContent()).toBe('1');
  expect((await apiExpecting(d.t, key, 'GET', `/links/${link.id}`)).clickCount).toBe(1);
  await apiExpecting(d.t, key, 'PATCH', `/links/${link.id}`, { status: 'active' });
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('statistics page: the totals move with a click, and a new window read afterwards counts it once', async () => {
  const p = await signedInPage(d);
  const link = await apiExpecting(d.t, key, 'POST', '/links', {
    destination: 'https://example.com/s',
    slug: 'livestats',
  });
  await clickShortUrl('livestats');
  await p.page.goto(`${d.origin}/app/links/${link.id}/stats?range=24h`);
  await p.page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
  const totals = p.page.getByRole('region', { name: 'Totals' });
  expect(await number(p.page, 'Clicks').textContent()).toBe('1');
  expect(await liveMarked(p.page)).toEqual(['Clicks']);

  // A second later, another click: recorded after the totals arrived.
  d.t.clock.advance(1000);
  await clickShortUrl('livestats');
  await number(p.page, 'Clicks').getByText('2', { exact: true }).waitFor();
  expect(await totals.textContent()).toContain('and one click since.');
  expect(await feed(p.page).count()).toBe(1);

  await p.page.getByLabel('Range').selectOption('7d');
  await p.page.waitForURL(/range=7d/);
  await totals.getByText('and one click since').waitFor({ state: 'detached' });
  expect(await number(p.page, 'Clicks').textContent()).toBe('2');
  expect((await apiExpecting(d.t, key, 'GET', `/links/${link.id}/stats?range=7d`)).totals.clicks).toBe(2);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('stream refused: the page says it polls every 5 s, and the click still shows and counts', async () => {
  const p = await signedInPage(d);
  await p.page.route('**/api/v1/events**', (route) => route.abort());
  // The page's clock runs as usual, and is moved on by a poll's 5 s once the click is in: the
  // poll then comes at once instead of up to 5 s later.
  await p.page.clock.install();
  const link = await apiExpecting(d.t, key, 'POST', '/links', { destination: 'https://example.com/p', slug: 'polled' });
  await p.page.goto(`${d.origin}/app/links/${link.id}`);
  const status = p.page.locator('.live-status');
  await status.getByText('Updating every 5 s').waitFor();
  expect(await status.getAttribute('role')).toBe('status');
  expect(await number(p.page, 'Clicks').textContent()).toBe('0');

  await clickShortUrl('polled');
  await p.page.clock.fastForward(5_000);
  await feed(p.page).first().waitFor();
  await number(p.page, 'Clicks').getByText('1', { exact: true }).waitFor();
  expect(await feed(p.page).first().textContent()).toContain('Direct (no referrer)');
  expect(await status.textContent()).toContain('Updating every 5 s');
  // Polling: no number is marked as live.
  expect(await liveMarked(p.page)).toEqual([]);
  await p.page.close();
}, 90_000);

test('too many streams: a page of a session holding its 5 streams says the stream was refused for that, and polls', async () => {
  const p = await signedInPage(d);
  const cookie = (await p.page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const held: { cancel(): Promise<void> }[] = [];
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${d.origin}/api/v1/events`, { headers: { cookie } });
    expect(res.status).toBe(200);
    held.push(res.body!.getReader());
  }
  const link = await apiExpecting(d.t, key, 'POST', '/links', {
    destination: 'https://example.com/r',
    slug: 'refused',
  });
  await p.page.goto(`${d.origin}/app/links/${link.id}`);
  const status = p.page.locator('.live-status');
  await status.getByText('too many are open').waitFor();
  expect(await status.textContent()).toBe(
    'Updating every 5 s: the live stream was refused: too many are open (other tabs or pages of this account hold them); it is tried again now and then',
  );
  expect(await liveMarked(p.page)).toEqual([]);
  for (const reader of held) await reader.cancel();
  await p.page.close();
}, 90_000);
