/**
 * What a visitor gets, shown wherever a link's state is: the links list's badges, its Status
 * filter (expired and limit-reached links can be listed), and a link's page (its badge and its
 * Status panel), in Chromium against the real app. Each check is held against the API's
 * `availability` and, where it matters, against the real redirect's answer.
 */
import { beforeAll, expect, test } from 'bun:test';
import { api } from '../helpers/app';
import {
  dashboardPerFile,
  expectCleanPage,
  expectUsableEverywhere,
  signedInPage,
  waitUntil,
} from '../helpers/dashboard-browser';
import { UA } from '../modules/clicks/support';

const d = dashboardPerFile();
const DAY = 86_400_000;
const FALLBACK = 'https://example.com/offer-ended';
const ids: Record<string, string> = {};
let key = '';

/** The short link's answer to a person's browser, through the real redirect. */
async function visitorGets(slug: string): Promise<number> {
  return (await visitorAnswer(slug)).status;
}

function visitorAnswer(slug: string): Promise<Response> {
  return d.t.app.handle(new Request(`https://sl.test/${slug}`, { headers: { 'user-agent': UA.chromeWin } }));
}

const read = async (id: string) => (await api(d.t, 'GET', `/links/${id}`, { key })).body;

beforeAll(async () => {
  key = (await signedInPage(d)).key;
  const now = d.t.clock.now();
  const seed: [string, Record<string, unknown>][] = [
    ['live-one', {}],
    ['gone-date', { expiresAt: now - DAY }],
    ['at-limit', { clickLimit: 2 }],
    ['on-hold', {}],
    ['old-gone', { expiresAt: now - 2 * DAY }],
    ['ended-fb', { expiresAt: now - DAY, fallbackUrl: FALLBACK, tags: ['fb'] }],
    ['full-fb', { clickLimit: 1, fallbackUrl: FALLBACK, tags: ['fb'] }],
  ];
  for (const [slug, body] of seed) {
    const res = await api(d.t, 'POST', '/links', {
      key,
      body: { destination: `https://example.com/${slug}`, slug, tags: ['avail'], ...body },
    });
    expect(res.status).toBe(201);
    ids[slug] = res.body.id;
    // A second apart: the list's order (oldest first) is the order made, not the ids' order.
    d.t.clock.advance(1000);
  }
  expect(await visitorGets('at-limit')).toBe(302);
  expect(await visitorGets('at-limit')).toBe(302);
  expect(await visitorGets('full-fb')).toBe(302);
  expect(await d.t.deps.clicks.flusher.flush()).toBe(true);
  for (const [slug, status] of [
    ['on-hold', 'paused'],
    ['old-gone', 'archived'],
  ] as const) {
    expect((await api(d.t, 'PATCH', `/links/${ids[slug]}`, { key, body: { status } })).status).toBe(200);
  }
});

/** Each listed row as "slug: badge, badge" (slugs without their host), read in one go. */
function rowsOf(page: import('playwright-core').Page): Promise<string[]> {
  // One snapshot in the page: rows of a list being replaced are never read half.
  return page.locator('.link-item').evaluateAll((rows) =>
    rows.map((row) => {
      const slug = (row.querySelector('.link-title a')?.textContent ?? '').replace('sl.test/', '');
      const badges = [...row.querySelectorAll('.badge')].map((b) => b.textContent);
      return `${slug}: ${badges.join(', ')}`;
    }),
  );
}

test('the list badges say what visitors get; the API and the redirect agree', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app?tag=avail&sort=oldest`);
  await waitUntil(async () => (await p.page.locator('.link-item').count()) === 4);
  expect(await rowsOf(p.page)).toEqual([
    'live-one: ',
    'gone-date: Expired',
    'at-limit: Click limit reached',
    'on-hold: Paused',
  ]);
  const listed = await api(d.t, 'GET', '/links?tag=avail&sort=oldest', { key });
  expect(listed.body.items.map((l: any) => [l.slug, l.status, l.availability])).toEqual([
    ['live-one', 'active', 'live'],
    ['gone-date', 'active', 'expired'],
    ['at-limit', 'active', 'limit'],
    ['on-hold', 'paused', 'paused'],
  ]);
  expect(await Promise.all(['live-one', 'gone-date', 'at-limit', 'on-hold'].map(visitorGets))).toEqual([
    302, 410, 410, 404,
  ]);
  await expectUsableEverywhere(p.page, async () => {
    await p.page.goto(`${d.origin}/app?tag=avail&sort=oldest`);
    await waitUntil(async () => (await p.page.locator('.link-item').count()) === 4);
  });
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('the Status filter lists the expired and the limit-reached links; archived ones keep their state', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app?tag=avail`);
  await waitUntil(async () => (await p.page.locator('.link-item').count()) === 4);
  const status = p.page.getByLabel('Status');
  for (const [choice, query, shown, availability] of [
    ['Expired (to fallback or 410 page)', 'tag=avail&availability=expired', ['gone-date: Expired'], 'expired'],
    [
      'Click limit reached (to fallback or 410 page)',
      'tag=avail&availability=limit',
      ['at-limit: Click limit reached'],
      'limit',
    ],
    ['Live (to its destination)', 'tag=avail&availability=live', ['live-one: '], 'live'],
  ] as const) {
    await status.selectOption({ label: choice });
    await waitUntil(async () => p.page.url().endsWith(`/app?${query}`));
    await waitUntil(async () => JSON.stringify(await rowsOf(p.page)) === JSON.stringify(shown));
    const api_ = await api(d.t, 'GET', `/links?tag=avail&availability=${availability}`, { key });
    expect(api_.body.items.map((l: any) => l.id)).toEqual([ids[shown[0]!.split(':')[0]!]]);
  }
  // Archived is a status: an archived link that has expired says both.
  await status.selectOption({ label: 'Archived' });
  await waitUntil(async () => p.page.url().endsWith('/app?tag=avail&status=archived'));
  await waitUntil(async () => JSON.stringify(await rowsOf(p.page)) === '["old-gone: Expired, Archived"]');
  expect(await read(ids['old-gone']!)).toMatchObject({ status: 'archived', availability: 'expired' });
  // A bookmark of a pair no choice names keeps it, named.
  await p.page.goto(`${d.origin}/app?tag=avail&status=archived&availability=expired`);
  await waitUntil(async () => (await p.page.locator('.link-item').count()) === 1);
  expect(await status.locator('option:checked').textContent()).toBe('Archived, expired');
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test("an expired link's page says so, and a later expiry makes it live again", async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app/links/${ids['gone-date']}`);
  await p.page.getByRole('heading', { name: 'gone-date', level: 1 }).waitFor();
  expect(await p.page.locator('.page-head .badge').allTextContents()).toEqual(['Expired']);
  const panel = p.page.getByRole('region', { name: 'Status' });
  expect(await panel.locator('p').allTextContents()).toEqual([
    'Expired: visitors get the "Link no longer available" page since 2026-11-20 12:00 UTC, and no clicks are recorded.',
    'To make it redirect again, set a later expiry or clear it under Details.',
  ]);
  expect(await visitorGets('gone-date')).toBe(410);

  const details = p.page.getByRole('region', { name: 'Details' });
  await details.getByLabel('Expires (UTC)').fill('2030-01-02T03:04');
  await details.getByRole('button', { name: 'Save changes' }).click();
  await details.getByText('Saved.').waitFor();
  expect(await panel.locator('p').allTextContents()).toEqual([
    'Active: the short link redirects and counts clicks.',
    'It expires 2030-01-02 03:04 UTC.',
  ]);
  expect(await p.page.locator('.page-head .badge').count()).toBe(0);
  expect(await read(ids['gone-date']!)).toMatchObject({
    expiresAt: Date.UTC(2030, 0, 2, 3, 4),
    availability: 'live',
  });
  expect(await visitorGets('gone-date')).toBe(302);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('a link at its click limit says how many, and a higher limit makes it live again', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app/links/${ids['at-limit']}`);
  await p.page.getByRole('heading', { name: 'at-limit', level: 1 }).waitFor();
  expect(await p.page.locator('.page-head .badge').allTextContents()).toEqual(['Click limit reached']);
  const panel = p.page.getByRole('region', { name: 'Status' });
  expect(await panel.locator('p').allTextContents()).toEqual([
    'Click limit reached (2 of 2): visitors get the "Link no longer available" page, and no more clicks are recorded.',
    'To make it redirect again, raise the click limit or clear it under Details.',
  ]);
  const details = p.page.getByRole('region', { name: 'Details' });
  await details.getByLabel('Click limit').fill('10');
  await details.getByRole('button', { name: 'Save changes' }).click();
  await details.getByText('Saved.').waitFor();
  expect(await panel.locator('p').allTextContents()).toEqual([
    'Active: the short link redirects and counts clicks.',
    'Click limit: 2 of 10 clicks used.',
  ]);
  expect(await read(ids['at-limit']!)).toMatchObject({ clickLimit: 10, availability: 'live' });
  expect(await visitorGets('at-limit')).toBe(302);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('paused and archived pages say what visitors get; the panel passes axe, light and dark, at 375 px', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app/links/${ids['on-hold']}`);
  const panel = p.page.getByRole('region', { name: 'Status' });
  await panel.getByRole('button', { name: 'Resume' }).waitFor();
  expect(await panel.locator('p').allTextContents()).toEqual([
    'Paused: visitors get the "Link not found" page, and no clicks are recorded until it is resumed.',
  ]);
  await p.page.goto(`${d.origin}/app/links/${ids['old-gone']}`);
  await panel.getByRole('button', { name: 'Restore' }).waitFor();
  expect(await p.page.locator('.page-head .badge').allTextContents()).toEqual(['Expired', 'Archived']);
  expect(await panel.locator('p').allTextContents()).toEqual([
    'Expired: visitors get the "Link no longer available" page since 2026-11-19 12:00 UTC, and no clicks are recorded.',
    'To make it redirect again, set a later expiry or clear it under Details.',
    'It is also archived: hidden from the default list.',
  ]);
  await expectUsableEverywhere(p.page, async () => {
    await p.page.goto(`${d.origin}/app/links/${ids['old-gone']}`);
    await panel.getByRole('button', { name: 'Restore' }).waitFor();
  });
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('a link sent to its fallback says so everywhere: badges, filter, Status panel and the form hints', async () => {
  // What a visitor really gets: the fallback, not the 410 page.
  for (const slug of ['ended-fb', 'full-fb']) {
    const res = await visitorAnswer(slug);
    expect([res.status, res.headers.get('location')]).toEqual([302, FALLBACK]);
  }
  const listed = await api(d.t, 'GET', '/links?tag=fb&sort=oldest', { key });
  expect(listed.body.items.map((l: any) => [l.slug, l.availability])).toEqual([
    ['ended-fb', 'expired'],
    ['full-fb', 'limit'],
  ]);

  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app?tag=fb&sort=oldest`);
  await waitUntil(async () => (await p.page.locator('.link-item').count()) === 2);
  expect(await rowsOf(p.page)).toEqual(['ended-fb: Expired: to fallback', 'full-fb: Click limit reached: to fallback']);
  // Not the red badge of the 410 page.
  expect(await p.page.locator('.link-item .badge.gone').count()).toBe(0);
  expect(await p.page.locator('.link-item .badge.fallback').count()).toBe(2);
  // The filter's words say both outcomes; "live" is only the links that reach their destination.
  const status = p.page.getByLabel('Status');
  await status.selectOption({ label: 'Expired (to fallback or 410 page)' });
  await waitUntil(async () => JSON.stringify(await rowsOf(p.page)) === '["ended-fb: Expired: to fallback"]');
  await status.selectOption({ label: 'Live (to its destination)' });
  await waitUntil(async () => p.page.url().includes('availability=live'));
  await p.page.getByText('No links match').waitFor();

  await p.page.goto(`${d.origin}/app/links/${ids['ended-fb']}`);
  await p.page.getByRole('heading', { name: 'ended-fb', level: 1 }).waitFor();
  expect(await p.page.locator('.page-head .badge').allTextContents()).toEqual(['Expired: to fallback']);
  const panel = p.page.getByRole('region', { name: 'Status' });
  expect(await panel.locator('p').allTextContents()).toEqual([
    `Expired: visitors go to the fallback URL ${FALLBACK} since 2026-11-20 12:00 UTC, and no clicks are recorded.`,
    'To send visitors to the destination again, set a later expiry or clear it under Details.',
  ]);
  const details = p.page.getByRole('region', { name: 'Details' });
  const expires = details.getByLabel('Expires (UTC)');
  const limit = details.getByLabel('Click limit');
  const hintOf = async (field: import('playwright-core').Locator) =>
    p.page.locator(`#${await field.getAttribute('aria-describedby')}`).textContent();
  expect(await hintOf(expires)).toBe('Empty: never. After it, visitors go to the fallback address.');
  expect(await hintOf(limit)).toBe('Empty: no limit. Once reached, visitors go to the fallback address.');
  await details.getByLabel('Fallback address').fill('');
  expect(await hintOf(expires)).toBe(
    'Empty: never. After it, visitors get the 410 page (or the fallback address, if you set one).',
  );

  await p.page.goto(`${d.origin}/app/links/${ids['full-fb']}`);
  await p.page.getByRole('heading', { name: 'full-fb', level: 1 }).waitFor();
  expect(await panel.locator('p').allTextContents()).toEqual([
    `Click limit reached (1 of 1): visitors go to the fallback URL ${FALLBACK}, and no more clicks are recorded.`,
    'To send visitors to the destination again, raise the click limit or clear it under Details.',
  ]);
  await expectUsableEverywhere(p.page, async () => {
    await p.page.goto(`${d.origin}/app/links/${ids['full-fb']}`);
    await panel.getByRole('button', { name: 'Pause' }).waitFor();
  });
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);
