/**
 * Settings › Audit log in Chromium: the empty state, the table newest first (who by email, via,
 * the link by its slug, linked), the filters, the next page, an editor kept out; usable light,
 * dark and narrow. Screenshots go to SLINK_AUDIT_SHOTS when it names a folder.
 */
import { expect, test } from 'bun:test';
import { newId } from '../../src/lib/ids';
import { fixturePasswordHash, makeKey } from '../helpers/app';
import type { OfflinePage } from '../helpers/browser';
import { PASSWORD } from '../helpers/dashboard';
import {
  dashboardPerFile,
  expectCleanPage,
  expectUsableEverywhere,
  offlinePage,
  signedInPage,
  waitUntil,
} from '../helpers/dashboard-browser';

const d = dashboardPerFile();
const SHOTS = process.env.SLINK_AUDIT_SHOTS;

/**
 * An admin stored as the first run's setup stores one, without an entry, and signed in with its
 * password: making an account or a key is a change the log keeps, so the usual signed-in page
 * would not show a fresh log's empty state.
 */
async function adminWithoutEntries(): Promise<OfflinePage> {
  const p = await offlinePage(d.browser);
  const admin = {
    id: newId('acc'),
    email: 'first-admin@example.com',
    passwordHash: await fixturePasswordHash(),
    role: 'admin' as const,
    createdAt: d.t.deps.clock.now(),
    lastSignInAt: null,
    disabledAt: null,
    projects: null,
  };
  await d.t.deps.stores.accounts.insert(admin);
  const res = await p.page.request.post(`${d.origin}/api/app/session`, {
    data: { email: admin.email, password: PASSWORD },
    headers: { 'sec-fetch-site': 'same-origin' },
  });
  expect(res.status()).toBe(200);
  return p;
}

test('the audit log: empty, then every change newest first, filtered, a page at a time', async () => {
  const p = await adminWithoutEntries();
  const { page } = p;
  await page.goto(`${d.origin}/app/settings/audit`);
  await page.getByRole('heading', { name: 'No changes yet' }).waitFor();
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/audit-empty-light.png`, fullPage: true });

  const editor = await makeKey(d.t, 'write');
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${d.origin}/api/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${editor.key}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.status).toBeLessThan(300);
    return res.json() as Promise<any>;
  };
  // 51 links in one request (a page is 50), then a project and a change to one link.
  const text = Array.from({ length: 51 }, (_, i) => `https://example.com/page-${i}`).join('\n');
  const made = await call('POST', '/links/bulk/create', { text });
  const first = made.created[0].link;
  d.t.clock.advance(60_000);
  await call('POST', '/projects', { name: 'Spring <b>sale</b>' });
  d.t.clock.advance(60_000);
  await call('PATCH', `/links/${first.id}`, { title: 'Renamed', tags: ['a'] });

  await page.goto(`${d.origin}/app/settings/audit`);
  const rows = page.locator('tbody tr');
  await waitUntil(async () => (await rows.count()) === 50);
  const top = rows.nth(0);
  expect(await top.locator('td').allInnerTexts()).toEqual([
    expect.stringMatching(/^2026-11-21 12:02:00$/),
    editor.account.email,
    'API',
    'link.update',
    first.slug,
    'tags, title',
  ]);
  expect(await top.getByRole('link', { name: first.slug }).getAttribute('href')).toBe(`/app/links/${first.id}`);
  expect(await rows.nth(1).locator('td').nth(3).textContent()).toBe('project.create');
  // Older changes on demand: the 55th entry (the editor's account, made before its key) is the last.
  await page.getByRole('button', { name: 'Load older changes' }).click();
  await waitUntil(async () => (await rows.count()) === 55);
  expect(await page.getByRole('button', { name: 'Load older changes' }).count()).toBe(0);

  await page.getByLabel('Action').selectOption('project.create');
  await waitUntil(async () => (await rows.count()) === 1);
  expect(await rows.nth(0).locator('td').nth(4).textContent()).toMatch(/^prj_/);
  await page.getByLabel('Action').selectOption('');
  await page.getByLabel('Target').selectOption('webhook');
  await page.getByRole('heading', { name: 'No changes match' }).waitFor();
  await page.getByLabel('Target').selectOption('');
  await page.getByLabel('Who').selectOption({ label: editor.account.email });
  await waitUntil(async () => (await rows.count()) === 50);

  await page.getByLabel('Who').selectOption('');
  const show = async () => {
    await page.goto(`${d.origin}/app/settings/audit`);
    await waitUntil(async () => (await rows.count()) > 0);
  };
  await expectUsableEverywhere(page, show);
  if (SHOTS) {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await show();
      await page.screenshot({ path: `${SHOTS}/audit-${colorScheme}.png` });
    }
  }
  await expectCleanPage(p);
  await page.close();
}, 90_000);

test('an editor neither sees the entry in Settings nor reads the page', async () => {
  const p = await signedInPage(d, false);
  await p.page.goto(`${d.origin}/app/settings`);
  await p.page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'API keys' }).waitFor();
  expect(await p.page.getByRole('link', { name: 'Audit log' }).count()).toBe(0);
  await p.page.goto(`${d.origin}/app/settings/audit`);
  await p.page.getByRole('heading', { name: 'Only admins can read the audit log', level: 1 }).waitFor();
  expect(await p.page.locator('tbody tr').count()).toBe(0);
  await p.page.close();
}, 60_000);
