/**
 * New link's "More options" (expiry, click limit, redirect, fallback, password, social preview)
 * and the settings index (/app/settings), in Chromium against the real app. The API's field
 * errors are shown in people's words. The engine does not matter here: SQLite only.
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

const d = dashboardPerFile();
let key = '';

beforeAll(async () => {
  key = (await signedInPage(d)).key;
});

test('New link creates a link with every option of "More options"', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app`);
  await p.page.getByRole('button', { name: 'New link' }).click();
  const dialog = p.page.getByRole('dialog', { name: 'New link' });
  await dialog.getByLabel('Destination').fill('https://example.com/all-options');
  await dialog.getByLabel('Custom slug').fill('all-options');
  await dialog.getByText('More options').click();
  await dialog.getByLabel('Expires (UTC)').fill('2030-01-02T03:04');
  await dialog.getByLabel('Click limit').fill('5');
  await dialog.getByLabel('Redirect status').selectOption('307');
  await dialog.getByLabel("Forward the visitor's query").check();
  const fallback = dialog.getByLabel('Fallback address');
  await fallback.fill('example.com/ended');
  await fallback.blur();
  expect(await fallback.inputValue()).toBe('https://example.com/ended');
  // The expiry's hint follows the fallback typed in.
  expect(await dialog.getByText('Empty: never. After it, visitors go to the fallback address.').count()).toBe(1);
  await dialog.getByLabel('Set a password').fill('correct horse');
  await dialog.getByLabel('Preview heading').fill('All the options');
  // Typed into and not created yet: a page load elsewhere asks first (the browser's prompt).
  const asked: string[] = [];
  p.page.on('dialog', (dialog) => {
    asked.push(dialog.type());
    void dialog.dismiss();
  });
  expect(await p.page.goto(`${d.origin}/app/projects`).catch((err: Error) => err.message)).toContain('ERR_ABORTED');
  expect(asked).toEqual(['beforeunload']);
  await dialog.getByRole('button', { name: 'Create' }).click();
  await p.page.getByText('Link created.').waitFor();
  await p.page.getByRole('heading', { name: 'all-options', level: 1 }).waitFor();
  // Created: nothing is left unsaved.
  await p.page.goto(`${d.origin}/app/projects`);
  await p.page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
  expect(asked).toEqual(['beforeunload']);
  await p.page.goBack();
  await p.page.getByRole('heading', { name: 'all-options', level: 1 }).waitFor();

  const id = new URL(p.page.url()).pathname.split('/').at(-1)!;
  const link = (await api(d.t, 'GET', `/links/${id}`, { key })).body;
  expect(link).toMatchObject({
    slug: 'all-options',
    destination: 'https://example.com/all-options',
    expiresAt: Date.UTC(2030, 0, 2, 3, 4),
    clickLimit: 5,
    redirectStatus: 307,
    forwardQuery: true,
    fallbackUrl: 'https://example.com/ended',
    passwordProtected: true,
    preview: { title: 'All the options' },
  });
  expect(await p.page.locator('.page-head .badge').allTextContents()).toEqual(['Protected']);
  await expectCleanPage(p);
  await p.page.close();
}, 60_000);

test('a refused option opens "More options" at its field, in words a person reads', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app`);
  await p.page.getByRole('button', { name: 'New link' }).click();
  const dialog = p.page.getByRole('dialog', { name: 'New link' });
  await dialog.getByLabel('Destination').fill('https://example.com/refused');
  await dialog.getByText('More options').click();
  await dialog.getByLabel('Fallback address').fill('ftp://example.com/ended');
  // Folded again: the error must unfold it.
  await dialog.getByText('More options').click();
  expect(await dialog.getByLabel('Fallback address').isVisible()).toBe(false);
  await dialog.getByRole('button', { name: 'Create' }).click();
  const fallback = dialog.getByLabel('Fallback address');
  await p.page.waitForSelector('input[aria-invalid="true"]');
  const fallbackId = await fallback.getAttribute('id');
  await waitUntil(async () => (await p.page.evaluate('document.activeElement?.id')) === fallbackId);
  expect(await fallback.isVisible()).toBe(true);
  expect(await dialog.locator('.field-error').allTextContents()).toEqual([
    'Fallback address must use http or https, not ftp',
  ]);
  expect((await api(d.t, 'GET', '/links?q=refused', { key })).body.items).toEqual([]);

  await fallback.fill('');
  await dialog.getByLabel('Set a password').fill('short');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await dialog.getByText('A password is 8 to 128 characters.').waitFor();
  await expectUsableEverywhere(p.page, async () => {
    await dialog.getByText('A password is 8 to 128 characters.').waitFor();
  });
  await expectCleanPage(p);
  await p.page.close();
}, 60_000);

test('/app/settings lists the settings pages this account may open, and Settings leads there', async () => {
  const p = await signedInPage(d, false);
  await p.page.goto(`${d.origin}/app/stats`);
  await p.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
  await p.page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
  expect(p.page.url()).toBe(`${d.origin}/app/settings`);
  const index = p.page.locator('.settings-index');
  // Domains, Webhooks and Accounts are an admin's.
  expect(await index.locator('a').allTextContents()).toEqual(['API keys', 'Sessions', 'Password', 'Workspace']);
  expect(
    await p.page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Settings' })
      .getAttribute('aria-current'),
  ).toBe('page');
  await index.getByRole('link', { name: 'Sessions' }).click();
  await p.page.getByRole('heading', { name: 'Sessions', level: 1 }).waitFor();
  expect(p.page.url()).toBe(`${d.origin}/app/settings/sessions`);
  await p.page.close();

  const admin = await signedInPage(d);
  await admin.page.goto(`${d.origin}/app/settings`);
  await admin.page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
  expect(await admin.page.locator('.settings-index a').allTextContents()).toContain('Accounts');
  await expectUsableEverywhere(admin.page, async () => {
    await admin.page.goto(`${d.origin}/app/settings`);
    await admin.page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
  });
  await expectCleanPage(admin);
  await admin.page.close();
}, 60_000);
