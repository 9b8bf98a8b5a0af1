/**
 * The links list's head says how many links the current filters match (GET /links/count), in
 * Chromium against the real app: every page of them, not the 50 shown, and still true after a
 * link is created and deleted the way a person does it. Bulk actions: dashboard-bulk-verbs.
 */
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { api } from '../helpers/app';
import { dashboardPerFile, expectCleanPage, signedInPage, waitUntil } from '../helpers/dashboard-browser';

const d = dashboardPerFile();

/** The count beside the heading, once it is there. */
async function headCount(page: Page): Promise<string> {
  const said = page.locator('.title-group [role="status"]');
  await waitUntil(async () => ((await said.textContent()) ?? '') !== '');
  return (await said.textContent())!;
}

const apiCount = async (key: string, query = '') =>
  (await api(d.t, 'GET', `/links/count${query}`, { key })).body.count as number;

test('the head counts every link the filters match, not only the page shown', async () => {
  const p = await signedInPage(d);
  for (let i = 0; i < 53; i++) {
    const body = { destination: `https://example.com/many/${i}`, tags: ['many'] };
    expect((await api(d.t, 'POST', '/links', { key: p.key, body })).status).toBe(201);
  }
  const other = { destination: 'https://example.com/other', expiresAt: d.t.clock.now() - 1 };
  expect((await api(d.t, 'POST', '/links', { key: p.key, body: other })).status).toBe(201);

  await p.page.goto(`${d.origin}/app`);
  await p.page.getByRole('button', { name: 'Load more' }).waitFor();
  expect(await p.page.locator('.link-item').count()).toBe(50);
  expect(await headCount(p.page)).toBe('54 links');
  expect(await apiCount(p.key)).toBe(54);

  await p.page.getByLabel('Tag', { exact: true }).selectOption('many');
  await waitUntil(async () => p.page.url().endsWith('/app?tag=many'));
  await waitUntil(async () => (await headCount(p.page)) === '53 links');
  expect(await apiCount(p.key, '?tag=many')).toBe(53);

  await p.page.getByLabel('Tag', { exact: true }).selectOption('');
  await p.page.getByLabel('Status').selectOption({ label: 'Expired (to fallback or 410 page)' });
  await waitUntil(async () => p.page.url().endsWith('/app?availability=expired'));
  await waitUntil(async () => (await headCount(p.page)) === '1 link');
  expect(await apiCount(p.key, '?availability=expired')).toBe(1);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('a link created with New link and then deleted from its page: the count follows', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app?tag=tally`);
  await p.page.getByRole('heading', { name: 'No links match' }).waitFor();
  expect(await headCount(p.page)).toBe('0 links');

  await p.page.getByRole('button', { name: 'New link' }).click();
  const dialog = p.page.getByRole('dialog', { name: 'New link' });
  await dialog.getByLabel('Tags').fill('tally');
  await dialog.getByLabel('Destination').fill('https://example.com/tally');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await p.page.getByText('Link created.').waitFor();
  await p.page.goBack();
  await p.page.locator('.link-item').first().waitFor();
  expect(await headCount(p.page)).toBe('1 link');
  expect(await apiCount(p.key, '?tag=tally')).toBe(1);

  const all = await apiCount(p.key);
  await p.page.locator('.link-item .link-title a').first().click();
  await p.page.getByRole('button', { name: 'Delete', exact: true }).click();
  await p.page.getByRole('dialog').getByRole('button', { name: 'Delete link' }).click();
  await p.page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  await p.page.getByText(/^Deleted sl\.test\//).waitFor();
  expect(await apiCount(p.key)).toBe(all - 1);
  expect(await headCount(p.page)).toBe(`${all - 1} links`);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);
