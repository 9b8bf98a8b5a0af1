/**
 * Settings › Domains and the domain controls of the link pages, in Chromium against the real app
 * (nothing stubbed): a person adds a domain and reads what to set up, sees that no request has
 * reached it yet, edits its targets and app-link files (a JSON error under its field), creates a
 * link on it, moves a link there after a confirmation naming both addresses, filters the links
 * list by it, and deletes an empty domain; an account that is not a superuser reads the list
 * without write controls. What the page says is checked against what the API then holds. The
 * engine does not matter here (the API's own tests hold both): SQLite only.
 */
import { beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { api, apiExpecting } from '../helpers/app';
import { dashboardPerFile, expectCleanPage, seriousA11yViolations, signedInPage } from '../helpers/dashboard-browser';
import { DESKTOP_CHROME } from '../helpers/dashboard-process';
import { totals } from '../helpers/stats-page';

const d = dashboardPerFile();
let admin = '';

beforeAll(async () => {
  admin = (await signedInPage(d)).key;
});

/** Records `METHOD /path body` of every /api/v1/domains and /api/v1/links write the page makes. */
function recordWrites(page: Page): string[] {
  const calls: string[] = [];
  page.on('request', (r) => {
    const { pathname } = new URL(r.url());
    if (r.method() !== 'GET' && /^\/api\/v1\/(domains|links)/.test(pathname))
      calls.push(`${r.method()} ${pathname} ${r.postData() ?? ''}`.trim());
  });
  return calls;
}

const domainRow = (page: Page, host: string) =>
  page.getByRole('row').filter({ has: page.getByRole('cell', { name: host, exact: false }) });

test('add a domain: the steps to point it here, listed with no request yet; edit its targets and files', async () => {
  const p = await signedInPage(d);
  const writes = recordWrites(p.page);
  await p.page.goto(`${d.origin}/app/settings`);
  await p.page.getByRole('link', { name: 'Domains' }).first().click();
  await p.page.getByRole('heading', { name: 'Domains', level: 1 }).waitFor();
  const first = domainRow(p.page, 'sl.test');
  await first.getByText('Default', { exact: true }).waitFor();

  await p.page.getByRole('button', { name: 'Add domain' }).click();
  const add = p.page.getByRole('dialog', { name: 'Add a domain' });
  await add.getByLabel('Origin').fill('go.example.com/spring');
  await add.getByRole('button', { name: 'Add domain' }).click();
  // The API's word on an origin with a path, under the field (a host alone is taken as https://).
  await add.getByText('Origin must be only a scheme, a host and a port: no path, query or fragment').waitFor();
  expect(await add.getByLabel('Origin').getAttribute('aria-invalid')).toBe('true');
  expect(await add.getByLabel('Origin').inputValue()).toBe('https://go.example.com/spring');
  await add.getByLabel('Origin').fill('go.example.com');
  await add.getByRole('button', { name: 'Add domain' }).click();
  await add.getByText('Added go.example.com.').waitFor();
  const steps = (await add.locator('ol.steps').textContent()) ?? '';
  for (const part of [
    'A record',
    'AAAA record',
    'CNAME record for go.example.com to app.sl.test',
    'Host header',
    'docs/operations.md',
  ]) {
    expect(steps).toContain(part);
  }
  expect(await seriousA11yViolations(p.page)).toEqual([]);
  await add.getByRole('button', { name: 'Done' }).click();

  const row = domainRow(p.page, 'go.example.com');
  await row.getByText('No request has reached this domain yet: its DNS or proxy does not point here yet.').waitFor();
  expect(await row.getByRole('link', { name: '0 links on go.example.com' }).getAttribute('href')).toBe(
    '/app?domain=go.example.com',
  );
  // The steps stay at hand, folded, until a request arrives.
  await p.page.getByText('How to point go.example.com here').click();
  const help = p.page.locator('details.domain-help').filter({ hasText: 'How to point go.example.com here' });
  await help.locator('ol.steps').getByText('CNAME record for go.example.com to app.sl.test').waitFor();
  const listed = await apiExpecting(d.t, admin, 'GET', '/domains/go.example.com');
  expect(listed).toMatchObject({ origin: 'https://go.example.com', default: false, lastSeenAt: null, linkCount: 0 });

  // Edit: a file that is not JSON is said under its field, and nothing is sent.
  await row.getByRole('button', { name: 'Edit go.example.com' }).click();
  const edit = p.page.getByRole('dialog', { name: 'Edit go.example.com' });
  await edit.getByLabel('Root URL').fill('https://example.com/home');
  await edit.getByLabel('Not-found URL').fill('https://example.com/missing');
  const apple = edit.getByLabel('Apple app-site-association (JSON)');
  await apple.fill('{"applinks": ');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await edit.getByText(/^Apple app-site-association is not valid JSON: /).waitFor();
  expect(await apple.getAttribute('aria-invalid')).toBe('true');
  expect(writes.filter((w) => w.startsWith('PATCH'))).toEqual([]);
  // JSON of the wrong shape: the API's error, in the form's words, under the field.
  await apple.fill('["not", "an object"]');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await edit.getByText('Apple app-site-association must be a JSON object or null').waitFor();
  expect(await apple.getAttribute('aria-invalid')).toBe('true');
  expect((await apiExpecting(d.t, admin, 'GET', '/domains/go.example.com')).rootUrl).toBeNull();

  const aasa = { applinks: { details: [{ appIDs: ['ABCDE12345.com.example.app'], components: [{ '/': '/*' }] }] } };
  const assetLinks = [
    { relation: ['delegate_permission/common.handle_all_urls'], target: { namespace: 'android_app' } },
  ];
  await apple.fill(JSON.stringify(aasa));
  await edit.getByLabel('Android asset links (JSON)').fill(JSON.stringify(assetLinks));
  // The old service of read-through: an origin, nothing after it (the API's words under the field).
  const upstream = edit.getByLabel('Old service (read-through)');
  await upstream.fill('https://old.example.net/some/path');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await edit.getByText(/^Old service must be/).waitFor();
  expect(await upstream.getAttribute('aria-invalid')).toBe('true');
  await upstream.fill('https://old.example.net');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await edit.waitFor({ state: 'hidden' });
  await p.page.getByRole('status').filter({ hasText: 'Saved go.example.com.' }).waitFor();
  const patches = writes.filter((w) => w.startsWith('PATCH'));
  expect(patches).toHaveLength(3);
  expect(JSON.parse(patches[2]!.slice(patches[2]!.indexOf('{')))).toEqual({
    rootUrl: 'https://example.com/home',
    notFoundUrl: 'https://example.com/missing',
    upstream: 'https://old.example.net',
    appleAppSiteAssociation: aasa,
    assetLinks,
  });
  expect(await apiExpecting(d.t, admin, 'GET', '/domains/go.example.com')).toMatchObject({
    rootUrl: 'https://example.com/home',
    notFoundUrl: 'https://example.com/missing',
    expiredUrl: null,
    upstream: 'https://old.example.net',
    appleAppSiteAssociation: aasa,
    assetLinks,
  });

  // Opened again, the form shows what is stored; clearing a field sends null for it alone.
  await row.getByRole('button', { name: 'Edit go.example.com' }).click();
  expect(JSON.parse(await apple.inputValue())).toEqual(aasa);
  expect(await upstream.inputValue()).toBe('https://old.example.net');
  await edit.getByLabel('Not-found URL').fill('');
  await edit.getByRole('button', { name: 'Save changes' }).click();
  await edit.waitFor({ state: 'hidden' });
  expect(writes.at(-1)).toBe('PATCH /api/v1/domains/go.example.com {"notFoundUrl":null}');
  expect((await apiExpecting(d.t, admin, 'GET', '/domains/go.example.com')).notFoundUrl).toBeNull();
  await expectCleanPage(p);
  await p.page.close();
}, 120_000);

test('a link created on a domain, a link moved there after a confirmation, the list filtered by domain', async () => {
  await ensureDomain('https://go.example.com');
  const p = await signedInPage(d);
  const writes = recordWrites(p.page);
  await p.page.goto(`${d.origin}/app`);
  await p.page.getByRole('button', { name: 'New link' }).click();
  const dialog = p.page.getByRole('dialog', { name: 'New link' });
  await dialog.getByLabel('Destination').fill('https://example.com/on-go');
  const domain = dialog.getByLabel('Domain');
  // The default domain is chosen first.
  expect(await domain.inputValue()).toBe('sl.test');
  await domain.selectOption('go.example.com');
  await dialog.getByLabel('Custom slug').fill('on-go');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await p.page.getByText('Link created.').waitFor();
  expect(await p.page.locator('.short-url code').textContent()).toBe('https://go.example.com/on-go');
  const created = JSON.parse(writes.at(-1)!.slice(writes.at(-1)!.indexOf('{')));
  expect(created).toMatchObject({ destination: 'https://example.com/on-go', domain: 'go.example.com', slug: 'on-go' });

  // Move another link there: one PATCH, after a confirmation naming both addresses.
  const spring = await apiExpecting(d.t, admin, 'POST', '/links', {
    destination: 'https://example.com/spring',
    slug: 'spring',
  });
  expect(spring.domain).toBe('sl.test');
  await p.page.goto(`${d.origin}/app/links/${spring.id}`);
  const details = p.page.getByRole('region', { name: 'Details' });
  await details.getByLabel('Domain').selectOption('go.example.com');
  await details.getByRole('button', { name: 'Save changes' }).click();
  const confirm = p.page.getByRole('dialog', { name: 'Move the link to go.example.com?' });
  await confirm.waitFor();
  const text = (await confirm.textContent()) ?? '';
  for (const part of [
    'Old addresshttps://sl.test/spring',
    'New addresshttps://go.example.com/spring',
    'The old address https://sl.test/spring stops working the moment you save',
    'keeps its clicks and statistics',
  ]) {
    expect(text).toContain(part);
  }
  expect(await seriousA11yViolations(p.page)).toEqual([]);
  // Nothing is sent before the answer.
  expect(writes.filter((w) => w.startsWith('PATCH'))).toEqual([]);
  await confirm.getByRole('button', { name: 'Move link' }).click();
  await details.getByText('Saved.').waitFor();
  expect(writes.filter((w) => w.startsWith('PATCH'))).toEqual([
    `PATCH /api/v1/links/${spring.id} {"domain":"go.example.com"}`,
  ]);
  expect(await p.page.locator('.short-url code').textContent()).toBe('https://go.example.com/spring');
  expect((await apiExpecting(d.t, admin, 'GET', `/links/${spring.id}`)).domain).toBe('go.example.com');

  // The list: a Domain filter, kept in the address, with the count of what it holds.
  await apiExpecting(d.t, admin, 'POST', '/links', { destination: 'https://example.com/stays', slug: 'stays' });
  await p.page.goto(`${d.origin}/app`);
  await p.page.getByRole('link', { name: 'sl.test/stays', exact: true }).waitFor();
  await p.page.getByRole('search').getByLabel('Domain').selectOption('go.example.com');
  await p.page.waitForURL(/\/app\?domain=go\.example\.com$/);
  await p.page.getByText('2 links', { exact: true }).waitFor();
  const shown = await p.page.locator('.link-title a').allTextContents();
  expect(shown.sort()).toEqual(['go.example.com/on-go', 'go.example.com/spring']);
  // And from the Domains page, the count leads to the same filtered list.
  await p.page.goto(`${d.origin}/app/settings/domains`);
  await domainRow(p.page, 'go.example.com').getByRole('link', { name: '2 links on go.example.com' }).click();
  await p.page.waitForURL(/\/app\?domain=go\.example\.com$/);
  expect(await p.page.getByRole('search').getByLabel('Domain').inputValue()).toBe('go.example.com');
  await expectCleanPage(p);
  await p.page.close();
}, 120_000);

test('delete only an empty, non-default domain; a domain with links says why it stays', async () => {
  await ensureDomain('https://go.example.com');
  await apiExpecting(d.t, admin, 'POST', '/links', {
    destination: 'https://example.com/kept',
    domain: 'go.example.com',
  });
  await ensureDomain('https://empty.example.com');
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app/settings/domains`);
  const empty = domainRow(p.page, 'empty.example.com');
  await empty.waitFor();
  const go = domainRow(p.page, 'go.example.com');
  expect(await go.getByRole('button', { name: 'Delete go.example.com' }).count()).toBe(0);
  expect(await go.textContent()).toMatch(/Cannot be deleted while \d+ links? (is|are) on it: move or delete/);
  expect(await domainRow(p.page, 'sl.test').textContent()).toContain('The default domain cannot be deleted.');

  await empty.getByRole('button', { name: 'Delete empty.example.com' }).click();
  const dialog = p.page.getByRole('dialog', { name: 'Delete empty.example.com?' });
  await dialog.waitFor();
  // The safe choice has the focus, and nothing is deleted before the answer.
  expect(await p.page.evaluate('document.activeElement.textContent')).toBe('Cancel');
  expect((await api(d.t, 'GET', '/domains/empty.example.com', { key: admin })).status).toBe(200);
  await dialog.getByRole('button', { name: 'Delete domain' }).click();
  await p.page.getByRole('status').filter({ hasText: 'Deleted domain empty.example.com.' }).waitFor();
  await empty.waitFor({ state: 'detached' });
  expect((await api(d.t, 'GET', '/domains/empty.example.com', { key: admin })).status).toBe(404);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('an account that is not an admin is told the domains are for admins, and moves no link', async () => {
  await ensureDomain('https://go.example.com');
  const p = await signedInPage(d, false);
  await p.page.goto(`${d.origin}/app/settings/domains`);
  await p.page.getByRole('heading', { name: 'Only admins can manage short domains', level: 1 }).waitFor();
  const main = p.page.getByRole('main');
  expect(await main.getByRole('button').count()).toBe(0);
  expect(await domainRow(p.page, 'go.example.com').count()).toBe(0);
  expect(await seriousA11yViolations(p.page)).toEqual([]);

  // A link of their own: it may be created on any domain, but only a superuser moves it.
  const link = await apiExpecting(d.t, p.key, 'POST', '/links', { destination: 'https://example.com/mine' });
  await p.page.goto(`${d.origin}/app/links/${link.id}`);
  const details = p.page.getByRole('region', { name: 'Details' });
  await details.getByLabel('Title').waitFor();
  expect(await details.getByLabel('Domain').count()).toBe(0);
  await p.page.goto(`${d.origin}/app`);
  await p.page.getByRole('button', { name: 'New link' }).click();
  expect(await p.page.getByRole('dialog', { name: 'New link' }).getByLabel('Domain').inputValue()).toBe('sl.test');
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

/** Adds the domain through the API unless an earlier test did. */
async function ensureDomain(origin: string): Promise<void> {
  const host = new URL(origin).hostname;
  if ((await api(d.t, 'GET', `/domains/${host}`, { key: admin })).status === 200) return;
  await apiExpecting(d.t, admin, 'POST', '/domains', { origin });
}

test('workspace statistics: a Domain choice, kept in the address, counts the links of that domain only', async () => {
  await ensureDomain('https://go.example.com');
  const here = await apiExpecting(d.t, admin, 'POST', '/links', {
    destination: 'https://example.com/s1',
    slug: 'st-here',
  });
  const there = await apiExpecting(d.t, admin, 'POST', '/links', {
    destination: 'https://example.com/s2',
    slug: 'st-there',
    domain: 'go.example.com',
  });
  const hit = (url: string) => d.t.app.handle(new Request(url, { headers: { 'user-agent': DESKTOP_CHROME } }));
  for (const url of [here.shortUrl, there.shortUrl, there.shortUrl]) expect((await hit(url)).status).toBe(302);
  expect(await d.t.deps.clicks.flusher.flush()).toBe(true);
  const asked = (await apiExpecting(d.t, admin, 'GET', '/workspace/stats?domain=go.example.com')).totals.clicks;

  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app/stats`);
  await p.page.getByRole('heading', { name: 'Statistics', level: 1 }).waitFor();
  await p.page.getByLabel('Domain').selectOption('go.example.com');
  await p.page.waitForURL(/\/app\/stats\?domain=go\.example\.com$/);
  const topLinks = p.page.getByRole('region', { name: 'Top links' });
  await topLinks.getByRole('link', { name: 'st-there', exact: true }).waitFor();
  // The whole workspace's numbers stay until the domain's arrive.
  await topLinks.getByRole('link', { name: 'st-here', exact: true }).waitFor({ state: 'detached' });
  expect(await totals(p.page)).toMatchObject({ Clicks: String(asked) });
  // The window keeps the domain, and the domain the window.
  await p.page.getByLabel('Range').selectOption('7d');
  await p.page.waitForURL(/\/app\/stats\?range=7d&domain=go\.example\.com$/);
  await p.page.getByLabel('Domain').selectOption('');
  await p.page.waitForURL(/\/app\/stats\?range=7d$/);
  await topLinks.getByRole('link', { name: 'st-here', exact: true }).waitFor();
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('bulk create puts every link on the domain chosen', async () => {
  await ensureDomain('https://go.example.com');
  const p = await signedInPage(d);
  const writes = recordWrites(p.page);
  await p.page.goto(`${d.origin}/app/bulk`);
  const domain = p.page.getByLabel('Domain');
  await domain.selectOption('go.example.com');
  await p.page.getByLabel('URLs').fill('https://example.com/bulk-a\nhttps://example.com/bulk-b');
  await p.page.getByRole('button', { name: 'Preview' }).click();
  await p.page.getByRole('button', { name: 'Create 2 links' }).click();
  const created = p.page.getByRole('list', { name: 'Created links' });
  await created.waitFor();
  const shown = await created.locator('.bulk-line-head a').allTextContents();
  expect(shown).toHaveLength(2);
  for (const text of shown) expect(text).toMatch(/^go\.example\.com\/[A-Za-z0-9_-]+$/);
  const sent = writes.find((w) => w.startsWith('POST /api/v1/links/bulk/create'))!;
  expect(JSON.parse(sent.slice(sent.indexOf('{'))).domain).toBe('go.example.com');
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);
