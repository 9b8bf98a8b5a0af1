/**
 * Bulk create in Chromium against the real app and a real session: the preview's status of
 * every line, then create (the API lists the new links with the request's tags, project and
 * params), the API's errors next to their field. Offline, axe in light and dark, 375 px.
 */
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { api } from '../helpers/app';
import {
  dashboardPerFile,
  expectCleanPage,
  expectUsableEverywhere,
  signedInPage,
  waitUntil,
  XSS_PROBE as XSS,
} from '../helpers/dashboard-browser';

const d = dashboardPerFile();

/** The preview's (or result's) lines as the page shows them: "Line N", status, then the rest. */
const shownLines = (page: Page, label: string) =>
  page.getByRole('list', { name: label, exact: true }).locator(':scope > li').allTextContents();

async function openBulk(p: { page: Page }, text: string) {
  await p.page.goto(`${d.origin}/app/bulk`);
  await p.page.getByLabel('URLs').fill(text);
}

test('preview shows each line as create, repeat, duplicate or invalid; create makes exactly those links', async () => {
  const p = await signedInPage(d);
  const existing = await api(d.t, 'POST', '/links', {
    key: p.key,
    body: { destination: 'https://example.com/have' },
  });
  const project = await api(d.t, 'POST', '/projects', { key: p.key, body: { name: 'Imports' } });
  const text = [
    `https://example.com/a?id=1&utm_source=mail\t${XSS}`,
    'https://example.com/b',
    '',
    `https://example.com/a?id=1&utm_source=mail\t${XSS}`,
    'https://example.com/have',
    'ftp://example.com/file',
  ].join('\n');
  await openBulk(p, text);
  await p.page.getByLabel('Tags').fill('import, q3');
  await p.page.getByLabel('Project').selectOption({ label: 'Imports' });
  await p.page.getByRole('button', { name: 'Add parameter' }).click();
  await p.page.getByLabel('Parameter 1 name').fill('utm_medium');
  await p.page.getByLabel('Parameter 1 value').fill('email');
  await p.page.getByRole('button', { name: 'Preview' }).click();

  await p.page.getByText('2 to create, 1 repeat, 1 duplicate, 1 invalid').waitFor();
  expect(await p.page.evaluate('document.activeElement.textContent')).toBe('Preview');
  const lines = await shownLines(p.page, 'Lines');
  expect(lines).toEqual([
    `Line 1Createhttps://example.com/a?id=1${XSS}utm_medium=emailutm_source=mail`,
    'Line 2Createhttps://example.com/butm_medium=email',
    `Line 4Repeathttps://example.com/a?id=1${XSS}utm_medium=emailutm_source=mailRepeats line 1`,
    'Line 5Duplicatehttps://example.com/haveutm_medium=emailA link to this destination exists already: open it.',
    'Line 6Invalidftp://example.com/fileDestination must use http or https, not ftp',
  ]);
  expect(await p.page.getByRole('link', { name: 'open it' }).getAttribute('href')).toBe(
    `/app/links/${existing.body.id}`,
  );

  // Create is offered only for what was previewed: a change asks for a new preview.
  await p.page.getByLabel('Tags').fill('import');
  await p.page.getByText('Changed since this preview').waitFor();
  expect(await p.page.getByRole('button', { name: 'Create 2 links' }).count()).toBe(0);
  await p.page.getByLabel('Tags').fill('import, q3');
  await p.page.getByRole('button', { name: 'Create 2 links' }).click();

  await p.page.getByRole('heading', { name: '2 links created, 1 repeat, 1 duplicate, 1 invalid' }).waitFor();
  // Created in the same millisecond (the test clock stands still): in line order, a before b.
  const created = (await api(d.t, 'GET', '/links?tag=q3', { key: p.key })).body.items.sort((x: any, y: any) =>
    x.destination.localeCompare(y.destination),
  );
  expect(created.map((l: any) => [l.destination, l.title, l.tags, l.projectId, l.params, l.projectName])).toEqual([
    [
      'https://example.com/a?id=1',
      XSS,
      ['import', 'q3'],
      project.body.id,
      { utm_medium: 'email', utm_source: 'mail' },
      'Imports',
    ],
    ['https://example.com/b', null, ['import', 'q3'], project.body.id, { utm_medium: 'email' }, 'Imports'],
  ]);
  const hrefs = await p.page
    .getByRole('list', { name: 'Created links' })
    .getByRole('link', { name: /^sl\.test\// })
    .evaluateAll((as) => as.map((a) => a.getAttribute('href')));
  expect(hrefs).toEqual(created.map((l: any) => `/app/links/${l.id}`));
  expect((await shownLines(p.page, 'Skipped lines')).map((l) => l.slice(0, 15))).toEqual([
    'Line 4Repeathtt',
    'Line 5Duplicate',
    'Line 6Invalidft',
  ]);
  expect(await p.page.evaluate('window.__xss')).toBeUndefined();

  await p.page.getByRole('button', { name: 'Paste more' }).click();
  expect(await p.page.getByLabel('URLs').inputValue()).toBe('');
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('Skip duplicates off: a destination that has a link already is created again', async () => {
  const p = await signedInPage(d);
  await api(d.t, 'POST', '/links', { key: p.key, body: { destination: 'https://example.com/twice' } });
  await openBulk(p, 'https://example.com/twice');
  await p.page.getByRole('button', { name: 'Preview' }).click();
  await p.page.getByText('1 duplicate', { exact: true }).waitFor();
  await p.page.getByLabel('Skip duplicates').uncheck();
  await p.page.getByRole('button', { name: 'Preview' }).click();
  await p.page.getByText('1 to create', { exact: true }).waitFor();
  await p.page.getByRole('button', { name: 'Create 1 link' }).click();
  await p.page.getByRole('heading', { name: '1 link created' }).waitFor();
  const twice = (await api(d.t, 'GET', '/links?q=twice', { key: p.key })).body.items;
  expect(twice).toHaveLength(2);
  await expectCleanPage(p);
  await p.page.close();
}, 60_000);

test("the API's error shows under the field it names", async () => {
  const p = await signedInPage(d);
  await openBulk(p, '   \n   ');
  await p.page.getByRole('button', { name: 'Preview' }).click();
  await p.page.getByText('No URL here: put one URL per line.').waitFor();
  expect(await p.page.getByLabel('URLs').getAttribute('aria-invalid')).toBe('true');

  await p.page.getByLabel('URLs').fill(Array.from({ length: 201 }, (_, i) => `https://example.com/${i}`).join('\n'));
  await p.page.getByRole('button', { name: 'Preview' }).click();
  await p.page.getByText('More than 200 URLs: send at most 200, one per line.').waitFor();

  await p.page.getByLabel('URLs').fill('https://example.com/tagged');
  await p.page.getByLabel('Tags').fill('x'.repeat(65));
  await p.page.getByRole('button', { name: 'Preview' }).click();
  await waitUntil(async () => (await p.page.getByLabel('Tags').getAttribute('aria-invalid')) === 'true');
  expect(await p.page.getByLabel('URLs').getAttribute('aria-invalid')).toBeNull();
  const describedBy = (await p.page.getByLabel('Tags').getAttribute('aria-describedby'))!;
  const errorId = describedBy.split(' ').find((id) => id.endsWith('-error'))!;
  expect(await p.page.locator(`[id="${errorId}"]`).textContent()).toContain('64');
  expect(await p.page.getByRole('alert').count()).toBe(0);
  await expectCleanPage(p);
  await p.page.close();
}, 60_000);

test('offline, axe in light and dark and 375 px, with a preview showing', async () => {
  const p = await signedInPage(d);
  await expectUsableEverywhere(p.page, async () => {
    await openBulk(p, `https://example.com/long/${'path/'.repeat(40)}?utm_source=${'x'.repeat(80)}\tA title\nnope`);
    await p.page.getByRole('button', { name: 'Preview' }).click();
    await p.page.getByText('1 to create, 1 invalid').waitFor();
  });
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('a URL without a scheme is taken as https://, shown so in the text and in the preview', async () => {
  const p = await signedInPage(d);
  await openBulk(p, 'acme.example/bulk-pricing\tPricing\n//acme.example/bulk-docs\nnot a url');
  await p.page.getByRole('button', { name: 'Preview' }).click();
  await p.page.getByText('2 to create, 1 invalid').waitFor();
  expect(await p.page.getByLabel('URLs').inputValue()).toBe(
    'https://acme.example/bulk-pricing\tPricing\nhttps://acme.example/bulk-docs\nnot a url',
  );
  expect((await shownLines(p.page, 'Lines')).slice(0, 2)).toEqual([
    'Line 1Createhttps://acme.example/bulk-pricingPricing',
    'Line 2Createhttps://acme.example/bulk-docs',
  ]);
  await p.page.getByRole('button', { name: 'Create 2 links' }).click();
  await p.page.getByRole('heading', { name: '2 links created' }).waitFor();
  const made = (await api(d.t, 'GET', '/links?q=acme.example/bulk', { key: p.key })).body.items;
  expect(made.map((l: { destination: string }) => l.destination).sort()).toEqual([
    'https://acme.example/bulk-docs',
    'https://acme.example/bulk-pricing',
  ]);
  await expectCleanPage(p);
  await p.page.close();
}, 60_000);
