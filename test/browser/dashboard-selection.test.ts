/**
 * Selecting links on the links list and acting on them, in Chromium against the real app and a
 * real session: parameters (merge, replace), project (in and out), archive (one bulk request);
 * the API agrees, the list refreshes and the selection clears. Keyboard: the bar and its dialogs
 * are reachable, Esc closes them and the focus comes back. Tags, pause, resume, restore and
 * delete: dashboard-bulk-verbs.test.ts.
 */
import { expect, test } from 'bun:test';
import { api } from '../helpers/app';
import {
  dashboardPerFile,
  expectCleanPage,
  expectUsableEverywhere,
  seriousA11yViolations,
  waitUntil,
  XSS_PROBE as XSS,
} from '../helpers/dashboard-browser';
import { listOf as listOfLinks } from './selected-list';

const d = dashboardPerFile();

const listOf = (tag: string, n: number, params: Record<string, string> = {}) => listOfLinks(d, tag, n, { params });

test('set parameters on the selected links (merge, then replace); the API agrees', async () => {
  const p = await listOf('params', 3, { keep: '1' });
  await p.select(0);
  await p.select(2);
  expect(await p.selected()).toBe('2 links selected');
  await p.page.getByRole('button', { name: 'Set parameters' }).click();
  let dialog = p.page.getByRole('dialog', { name: 'Set parameters of 2 links' });
  await dialog.getByLabel('Parameter 1 name').fill('utm_campaign');
  await dialog.getByLabel('Parameter 1 value').fill('fall');
  await dialog.getByRole('button', { name: 'Set parameters' }).click();
  await p.page.getByText('Set the parameters of 2 links.').waitFor();
  expect(await seriousA11yViolations(p.page)).toEqual([]);
  expect(await p.selected()).toBe('');
  expect(await p.page.getByRole('checkbox', { checked: true }).count()).toBe(0);
  const params = async () => Promise.all(p.links.map(async (l) => (await p.read(l.id)).params));
  expect(await params()).toEqual([
    { keep: '1', utm_campaign: 'fall' },
    { keep: '1' },
    { keep: '1', utm_campaign: 'fall' },
  ]);

  await p.page.getByRole('checkbox', { name: 'Select all on this page' }).check();
  expect(await p.selected()).toBe('3 links selected');
  await p.page.getByRole('button', { name: 'Set parameters' }).click();
  dialog = p.page.getByRole('dialog', { name: 'Set parameters of 3 links' });
  await dialog.getByLabel('Parameter 1 name').fill('only');
  await dialog.getByLabel('Parameter 1 value').fill(XSS);
  await dialog.getByLabel(/^Replace/).check();
  await dialog.getByRole('button', { name: 'Set parameters' }).click();
  await p.page.getByText('Set the parameters of 3 links.').waitFor();
  expect(await params()).toEqual([{ only: XSS }, { only: XSS }, { only: XSS }]);
  expect(await p.page.evaluate('window.__xss')).toBeUndefined();
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('move the selected links into a project and out again; the API agrees', async () => {
  const p = await listOf('move', 2);
  const project = await api(d.t, 'POST', '/projects', { key: p.key, body: { name: XSS } });
  await p.page.reload();
  await p.page.locator('.link-item').first().waitFor();
  await p.page.getByRole('checkbox', { name: 'Select all on this page' }).check();
  await p.page.getByRole('button', { name: 'Move to project' }).click();
  let dialog = p.page.getByRole('dialog', { name: 'Move 2 links' });
  await dialog.getByLabel('Project').selectOption(project.body.id);
  await dialog.getByRole('button', { name: 'Move links' }).click();
  await p.page.getByText(`Moved 2 links to ${XSS}.`).waitFor();
  for (const l of p.links) expect((await p.read(l.id)).projectId).toBe(project.body.id);

  await p.select(1);
  await p.page.getByRole('button', { name: 'Move to project' }).click();
  dialog = p.page.getByRole('dialog', { name: 'Move 1 link' });
  await dialog.getByLabel('Project').selectOption({ label: 'No project (take them out)' });
  await dialog.getByRole('button', { name: 'Move links' }).click();
  await p.page.getByText('Took 1 link out of their project.').waitFor();
  expect([(await p.read(p.links[0]!.id)).projectId, (await p.read(p.links[1]!.id)).projectId]).toEqual([
    project.body.id,
    null,
  ]);
  expect(await p.page.evaluate('window.__xss')).toBeUndefined();
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('archive: one request for the whole selection; a link deleted meanwhile is said, not an error', async () => {
  const p = await listOf('archive', 3);
  await p.select(0);
  await p.select(1);
  // Deleted elsewhere after the list loaded: the bulk call names it in notFound.
  expect((await api(d.t, 'DELETE', `/links/${p.links[1]!.id}`, { key: p.key })).status).toBe(200);
  const writes: string[] = [];
  p.page.on('request', (r) => {
    if (r.method() !== 'GET') writes.push(`${r.method()} ${new URL(r.url()).pathname}`);
  });
  await p.page.getByRole('button', { name: 'Archive' }).click();
  const dialog = p.page.getByRole('dialog', { name: 'Archive 2 links?' });
  await dialog.getByRole('button', { name: 'Archive links' }).click();
  const outcome = p.page.locator('.outcome');
  await outcome.getByText('Archived 1 link. 1 link no longer existed.').waitFor();
  expect(writes).toEqual(['POST /api/v1/links/bulk/status']);
  expect((await p.read(p.links[0]!.id)).status).toBe('archived');
  expect((await p.read(p.links[2]!.id)).status).toBe('active');
  // The list was read again: archived and deleted links are gone from the default list.
  await waitUntil(async () => (await p.page.locator('.link-item').count()) === 1);
  expect(await p.selected()).toBe('');
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('keyboard: the bar and its dialogs are reachable, Esc closes a dialog and the focus comes back', async () => {
  const p = await listOf('keys', 2);
  // A checkbox is named by its label, a button by its text.
  const focused = () =>
    p.page.evaluate('(document.activeElement.labels?.[0] ?? document.activeElement).textContent.trim()');
  await p.page.getByLabel('Search').focus();
  for (let i = 0; i < 10 && (await focused()) !== 'Select all on this page'; i++) await p.page.keyboard.press('Tab');
  expect(await focused()).toBe('Select all on this page');
  await p.page.keyboard.press('Space');
  expect(await p.selected()).toBe('2 links selected');
  // Of the status verbs, those that change one of the selected (active) links: Pause, Archive.
  for (const [button, title] of [
    ['Set parameters', 'Set parameters of 2 links'],
    ['Change tags', 'Tags of 2 links'],
    ['Move to project', 'Move 2 links'],
    ['Pause', 'Pause 2 links?'],
    ['Archive', 'Archive 2 links?'],
    ['Delete', 'Delete 2 links?'],
  ] as const) {
    await p.page.keyboard.press('Tab');
    expect(await focused()).toBe(button);
    await p.page.keyboard.press('Enter');
    const dialog = p.page.getByRole('dialog', { name: title });
    await dialog.waitFor();
    expect(await p.page.evaluate(`!!document.activeElement.closest('dialog')`)).toBe(true);
    await p.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    // The dialog's close event comes a task after it hides: it gives the focus back, then the
    // dialog's content goes. (The browser's own focus return comes first, so the focus alone
    // does not say the event has run.)
    await waitUntil(async () => (await p.page.locator('dialog h2', { hasText: title }).count()) === 0);
    expect(await focused()).toBe(button);
  }
  await p.page.keyboard.press('Tab');
  expect(await focused()).toBe('Clear selection');
  await p.page.keyboard.press('Enter');
  expect(await p.selected()).toBe('');
  expect(await focused()).toBe('Select all on this page');
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('with a selection: axe in light and dark, 375 px, and a dialog open', async () => {
  const p = await listOf('looks', 2);
  await expectUsableEverywhere(p.page, async () => {
    await p.page.goto(`${d.origin}/app?tag=looks`);
    await p.select(0);
    await p.page.getByText('1 link selected').waitFor();
  });
  await p.page.getByRole('button', { name: 'Set parameters' }).click();
  await p.page.getByRole('dialog', { name: 'Set parameters of 1 link' }).waitFor();
  await expectUsableEverywhere(p.page, async () => {});
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);
