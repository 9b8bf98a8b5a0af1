/**
 * The selection's tags, status and delete actions in Chromium against the real app and a real
 * session: each is one bulk request for the whole selection (never one per link, so a large
 * selection stays under the rate limit), its outcome is said in the outcome area, the list and
 * the head's count are read again, and the API holds what the page says.
 */
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { api } from '../helpers/app';
import {
  dashboardPerFile,
  expectCleanPage,
  expectUsableEverywhere,
  signedInPage,
  startDashboard,
  waitUntil,
} from '../helpers/dashboard-browser';
import { UA } from '../modules/clicks/support';
import { listOf } from './selected-list';

const d = dashboardPerFile();

/** Every request of the page that changes something, as "METHOD /path". */
function recordWrites(page: Page): string[] {
  const writes: string[] = [];
  page.on('request', (r) => {
    if (r.method() !== 'GET') writes.push(`${r.method()} ${new URL(r.url()).pathname}`);
  });
  return writes;
}

const outcomeOf = (page: Page) => page.locator('.outcome');
const headCount = (page: Page) => page.locator('.title-group [role="status"]').textContent();

test('change tags: add some and remove one, in one request; the API and the Tag filter agree', async () => {
  const p = await listOf(d, 'tagged', 3, { tags: ['old', 'keep'] });
  const writes = recordWrites(p.page);
  await p.select(0);
  await p.select(1);
  await p.page.getByRole('button', { name: 'Change tags' }).click();
  const dialog = p.page.getByRole('dialog', { name: 'Tags of 2 links' });
  // Nothing asked: the API's words, under the field it names.
  await dialog.getByRole('button', { name: 'Change tags' }).click();
  await dialog.getByText('Send at least one tag to add or to remove').waitFor();
  expect(await dialog.getByLabel('Add tags').getAttribute('aria-invalid')).toBe('true');

  await dialog.getByLabel('Add tags').fill('fresh, new');
  await dialog.getByRole('checkbox', { name: 'old' }).check();
  await dialog.getByRole('button', { name: 'Change tags' }).click();
  await outcomeOf(p.page).getByText('Changed the tags of 2 links (added fresh, new; removed old).').waitFor();
  expect(writes).toEqual(['POST /api/v1/links/bulk/tags', 'POST /api/v1/links/bulk/tags']);
  const tags = await Promise.all(p.links.map(async (l) => (await p.read(l.id)).tags));
  expect(tags).toEqual([
    ['fresh', 'keep', 'new', 'tagged'],
    ['fresh', 'keep', 'new', 'tagged'],
    ['keep', 'old', 'tagged'],
  ]);
  expect(await p.selected()).toBe('');
  // The Tag filter was read again: the new tag is there, with its count.
  await p.page
    .getByLabel('Tag', { exact: true })
    .locator('option', { hasText: 'fresh (2)' })
    .waitFor({ state: 'attached' });
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('pause, resume, archive and restore: one request each, badges, statuses and the count follow', async () => {
  const p = await listOf(d, 'states', 3);
  const writes = recordWrites(p.page);
  const checkAll = p.page.getByRole('checkbox', { name: 'Select all on this page' });
  const statuses = async () => Promise.all(p.links.map(async (l) => (await p.read(l.id)).status));

  await checkAll.check();
  expect(await p.page.getByRole('button', { name: 'Resume' }).count()).toBe(0);
  await p.page.getByRole('button', { name: 'Pause' }).click();
  await p.page.getByRole('dialog', { name: 'Pause 3 links?' }).getByRole('button', { name: 'Pause links' }).click();
  await outcomeOf(p.page).getByText('Paused 3 links.').waitFor();
  expect(await statuses()).toEqual(['paused', 'paused', 'paused']);
  await waitUntil(async () => (await p.page.locator('.link-item .badge.paused').count()) === 3);

  await checkAll.check();
  await p.page.getByRole('button', { name: 'Resume' }).click();
  await outcomeOf(p.page).getByText('Resumed 3 links.').waitFor();
  expect(await statuses()).toEqual(['active', 'active', 'active']);
  await waitUntil(async () => (await p.page.locator('.link-item .badge').count()) === 0);

  await p.select(0);
  await p.select(2);
  await p.page.getByRole('button', { name: 'Archive' }).click();
  await p.page.getByRole('dialog', { name: 'Archive 2 links?' }).getByRole('button', { name: 'Archive links' }).click();
  await outcomeOf(p.page).getByText('Archived 2 links.').waitFor();
  expect(await statuses()).toEqual(['archived', 'active', 'archived']);
  await waitUntil(async () => (await headCount(p.page)) === '1 link');
  expect((await api(d.t, 'GET', '/links/count?tag=states', { key: p.key })).body).toEqual({ count: 1 });

  await p.page.getByLabel('Status').selectOption({ label: 'Archived' });
  await waitUntil(async () => (await p.page.locator('.link-item').count()) === 2);
  await checkAll.check();
  expect(await p.page.getByRole('button', { name: 'Pause' }).count()).toBe(0);
  await p.page.getByRole('button', { name: 'Restore' }).click();
  await outcomeOf(p.page).getByText('Restored 2 links.').waitFor();
  expect(await statuses()).toEqual(['active', 'active', 'active']);
  await waitUntil(async () => (await headCount(p.page)) === '0 links');
  expect(writes).toEqual(Array(4).fill('POST /api/v1/links/bulk/status'));
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('delete asks first, deletes the links without clicks, and names the kept ones with their clicks', async () => {
  const p = await listOf(d, 'del', 3);
  const [plain, busy, some] = p.links as [(typeof p.links)[0], (typeof p.links)[0], (typeof p.links)[0]];
  for (const [link, n] of [
    [busy, 12],
    [some, 3],
  ] as const) {
    for (let i = 0; i < n; i++) {
      const hit = await d.t.app.handle(
        new Request(`https://sl.test/${link.slug}`, { headers: { 'user-agent': UA.chromeWin } }),
      );
      expect(hit.status).toBe(302);
    }
  }
  expect(await d.t.deps.clicks.flusher.flush()).toBe(true);
  await p.page.reload();
  await waitUntil(async () => (await headCount(p.page)) === '3 links');
  const writes = recordWrites(p.page);
  const checkAll = p.page.getByRole('checkbox', { name: 'Select all on this page' });
  await checkAll.check();

  // Cancel deletes nothing.
  await p.page.getByRole('button', { name: 'Delete' }).click();
  const dialog = p.page.getByRole('dialog', { name: 'Delete 3 links?' });
  const asked = (await dialog.textContent())!;
  expect(asked).toContain('Of the selected, these 2 have clicks: ');
  for (const part of [`${some.slug} (3 clicks)`, `${busy.slug} (12 clicks)`]) expect(asked).toContain(part);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  expect(writes).toEqual([]);

  await p.page.getByRole('button', { name: 'Delete' }).click();
  await dialog.getByRole('button', { name: 'Delete links' }).click();
  const outcome = outcomeOf(p.page);
  await outcome.getByText('Deleted 1 link. 2 links were kept because they have clicks:').waitFor();
  // Named by slug (linked to its page), with its title and clicks.
  expect((await outcome.locator('li').allTextContents()).sort()).toEqual(
    [`${busy.slug} (del 1, 12 clicks)`, `${some.slug} (del 2, 3 clicks)`].sort(),
  );
  expect(await outcome.getByRole('link', { name: busy.slug }).getAttribute('href')).toBe(`/app/links/${busy.id}`);
  await outcome
    .getByText(
      'They are still selected: archive them, or delete each from its page, where its clicks and statistics go with it.',
    )
    .waitFor();
  expect(writes).toEqual(['POST /api/v1/links/bulk/delete']);
  expect((await api(d.t, 'GET', `/links/${plain.id}`, { key: p.key })).status).toBe(404);
  expect((await p.read(busy.id)).clickCount).toBe(12);
  expect((await p.read(some.id)).clickCount).toBe(3);
  await waitUntil(async () => (await headCount(p.page)) === '2 links');
  expect(await p.selected()).toBe('2 links selected');

  // Kept selected: archiving them is one more click and a confirmation.
  await p.page.getByRole('button', { name: 'Archive' }).click();
  await p.page.getByRole('dialog', { name: 'Archive 2 links?' }).getByRole('button', { name: 'Archive links' }).click();
  await outcome.getByText('Archived 2 links.').waitFor();
  expect([(await p.read(busy.id)).status, (await p.read(some.id)).status]).toEqual(['archived', 'archived']);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('the outcome of a partial delete and the new dialogs pass axe, light and dark, at 375 px', async () => {
  const p = await listOf(d, 'looks-del', 2);
  const hit = await d.t.app.handle(
    new Request(`https://sl.test/${p.links[0]!.slug}`, { headers: { 'user-agent': UA.chromeWin } }),
  );
  expect(hit.status).toBe(302);
  expect(await d.t.deps.clicks.flusher.flush()).toBe(true);
  await p.page.getByRole('checkbox', { name: 'Select all on this page' }).check();
  await p.page.getByRole('button', { name: 'Delete' }).click();
  await p.page.getByRole('button', { name: 'Delete links' }).click();
  await outcomeOf(p.page).getByText('Deleted 1 link. 1 link was kept because it has clicks:').waitFor();
  await expectUsableEverywhere(p.page, async () => {});
  await p.page.getByRole('button', { name: 'Change tags' }).click();
  await p.page.getByRole('dialog', { name: 'Tags of 1 link' }).waitFor();
  await expectUsableEverywhere(p.page, async () => {});
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('archiving more links than the rate limit allows requests: one request, all archived', async () => {
  // A dashboard of its own, with a per-account limit of 30 requests a minute.
  const small = await startDashboard({ SLINK_RATE_LIMIT: '30' });
  try {
    const p = await signedInPage(small);
    const text = Array.from({ length: 40 }, (_, i) => `https://example.com/many/${i}`).join('\n');
    const made = await api(small.t, 'POST', '/links/bulk/create', { key: p.key, body: { text, tags: ['many'] } });
    expect(made.status).toBe(201);
    expect(made.body.counts.created).toBe(40);
    await p.page.goto(`${small.origin}/app?tag=many`);
    await waitUntil(async () => (await p.page.locator('.link-item').count()) === 40);
    const writes = recordWrites(p.page);
    await p.page.getByRole('checkbox', { name: 'Select all on this page' }).check();
    await p.page.getByRole('button', { name: 'Archive' }).click();
    await p.page
      .getByRole('dialog', { name: 'Archive 40 links?' })
      .getByRole('button', { name: 'Archive links' })
      .click();
    await outcomeOf(p.page).getByText('Archived 40 links.').waitFor();
    expect(writes).toEqual(['POST /api/v1/links/bulk/status']);
    expect((await api(small.t, 'GET', '/links/count?tag=many&status=archived', { key: p.key })).body).toEqual({
      count: 40,
    });
    await expectCleanPage(p);
    await p.page.close();
  } finally {
    await small.close();
  }
}, 90_000);
