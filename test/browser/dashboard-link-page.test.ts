/**
 * A link's page in Chromium against the real /api/v1 and /api/app (a real session):
 * editing with field errors, status, variants, the QR code, and both ways of deleting.
 */
import { expect, test } from 'bun:test';
import { api } from '../helpers/app';
import {
  dashboardPerFile,
  expectCleanPage,
  seriousA11yViolations,
  signedInPage,
  waitUntil,
} from '../helpers/dashboard-browser';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

const d = dashboardPerFile();

async function linkPage(slug: string) {
  const p = await signedInPage(d);
  const key = p.key;
  const created = await api(d.t, 'POST', '/links', { key, body: { destination: 'https://example.com/', slug } });
  expect(created.status).toBe(201);
  await p.page.goto(`${d.origin}/app/links/${created.body.id}`);
  await p.page.getByRole('heading', { name: slug, level: 1 }).waitFor();
  const read = async () => (await api(d.t, 'GET', `/links/${created.body.id}`, { key })).body;
  return { ...p, id: created.body.id as string, read };
}

test('edit: saved fields, and the API error under the field it names', async () => {
  const p = await linkPage('promo');
  const details = p.page.getByRole('region', { name: 'Details' });
  await details.getByLabel('Title').fill('Spring promo');
  await details.getByRole('button', { name: 'Save changes' }).click();
  await p.page.getByRole('heading', { name: 'Spring promo', level: 1 }).waitFor();
  expect((await p.read()).title).toBe('Spring promo');

  // Without a scheme: taken as https://, saved with one click (no browser bubble in the way).
  await details.getByLabel('Destination').fill('acme.example/spring');
  await details.getByRole('button', { name: 'Save changes' }).click();
  await details.getByText('Saved.').waitFor();
  expect((await p.read()).destination).toBe('https://acme.example/spring');
  expect(await details.getByLabel('Destination').inputValue()).toBe('https://acme.example/spring');

  await details.getByLabel('Destination').fill('ftp://example.com/file');
  await details.getByRole('button', { name: 'Save changes' }).click();
  const destination = details.getByLabel('Destination');
  await p.page.waitForSelector('input[aria-invalid="true"]');
  expect(await destination.getAttribute('aria-invalid')).toBe('true');
  expect(await details.locator('.field-error').textContent()).toContain('http or https');

  await p.page.getByRole('button', { name: 'Pause' }).click();
  await p.page.getByRole('button', { name: 'Resume' }).waitFor();
  expect((await p.read()).status).toBe('paused');
  await p.page.getByRole('button', { name: 'Resume' }).click();
  await p.page.getByRole('button', { name: 'Pause' }).waitFor();
  expect((await p.read()).status).toBe('active');
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('variants: add with params, rename, remove', async () => {
  const p = await linkPage('launch');
  await p.page.getByRole('region', { name: 'Variants' }).getByRole('button', { name: 'Add variant' }).click();
  const dialog = p.page.getByRole('dialog', { name: 'New variant' });
  await dialog.getByLabel('Code').fill('fb');
  await dialog.getByRole('button', { name: 'Add parameter' }).click();
  await dialog.getByLabel('Parameter 1 name').fill('utm_source');
  await dialog.getByLabel('Parameter 1 value').fill('facebook');
  await dialog.getByRole('button', { name: 'Add variant' }).click();
  // The dialog's hint names the address as it is typed: wait for the dialog to close first.
  await dialog.waitFor({ state: 'hidden' });
  await p.page
    .getByRole('region', { name: 'Variants' })
    .getByText('https://sl.test/launch/fb', { exact: true })
    .waitFor();
  expect((await p.read()).variants.map((v: any) => [v.code, v.params])).toEqual([['fb', { utm_source: 'facebook' }]]);

  await p.page.getByRole('button', { name: 'Edit variant fb' }).click();
  const edit = p.page.getByRole('dialog', { name: 'Edit variant fb' });
  await edit.getByLabel('Code').fill('facebook');
  await edit.getByRole('button', { name: 'Save variant' }).click();
  await edit.waitFor({ state: 'hidden' });
  await p.page
    .getByRole('region', { name: 'Variants' })
    .getByText('https://sl.test/launch/facebook', { exact: true })
    .waitFor();

  await p.page.getByRole('button', { name: 'Remove variant facebook' }).click();
  await p.page.getByRole('dialog').getByRole('button', { name: 'Remove variant' }).click();
  await p.page.getByText('No variants.', { exact: false }).waitFor();
  expect(await p.page.getByRole('region', { name: 'Variants' }).getByRole('status').textContent()).toBe(
    'Removed variant facebook.',
  );
  expect((await p.read()).variants).toEqual([]);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('the QR code shows, and downloads as SVG at the chosen size', async () => {
  const p = await linkPage('qr-me');
  const image = p.page.getByRole('img', { name: 'QR code for https://sl.test/qr-me' });
  await image.waitFor();
  await p.page.waitForSelector('img.qr-image[src]');
  expect(await image.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
  await p.page.getByLabel('Size').selectOption('1024');
  const download = p.page.getByRole('link', { name: 'Download SVG' });
  expect(await download.getAttribute('download')).toBe('qr-me-qr-1024.svg');
  const href = (await download.getAttribute('href'))!;
  expect(href).toBe(`/api/v1/links/${p.id}/qr.svg?size=1024`);
  // What the link downloads (a same-origin GET, the session's cookie with it).
  const svg = await api(d.t, 'GET', href, { key: p.key });
  expect([svg.status, svg.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
  expect(svg.text).toContain('width="1024"');
  expect(await seriousA11yViolations(p.page)).toEqual([]);
  await p.page.emulateMedia({ colorScheme: 'dark' });
  expect(await seriousA11yViolations(p.page)).toEqual([]);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('delete without clicks goes through the public API', async () => {
  const p = await linkPage('gone-soon');
  await p.page.getByRole('button', { name: 'Delete', exact: true }).click();
  await p.page.getByRole('dialog').getByRole('button', { name: 'Delete link' }).click();
  await p.page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  // The list says what happened, and the keyboard's place is on that sentence.
  const said = p.page.getByRole('status').filter({ hasText: 'Deleted' });
  expect(await said.textContent()).toBe('Deleted sl.test/gone-soon.');
  await waitUntil(
    async () => (await p.page.evaluate('document.activeElement.textContent')) === 'Deleted sl.test/gone-soon.',
  );
  expect((await api(d.t, 'GET', `/links/${p.id}`, { key: p.key })).status).toBe(404);
  // Said once: back on the list later, it is gone.
  await p.page.reload();
  await p.page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  expect(await p.page.getByText('Deleted sl.test/gone-soon.').count()).toBe(0);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('a link with clicks asks for its slug, then goes through the dashboard endpoint', async () => {
  const p = await signedInPage(d);
  const created = await api(d.t, 'POST', '/links', {
    key: p.key,
    body: { destination: 'https://example.com/', slug: 'clicked' },
  });
  const hit = await d.t.app.handle(new Request('https://sl.test/clicked', { headers: { 'user-agent': CHROME } }));
  expect(hit.status).toBe(302);
  expect(await d.t.deps.clicks.flusher.flush()).toBe(true);
  let sent: unknown = null;
  p.page.on('request', (r) => {
    if (r.url().endsWith(`/api/app/links/${created.body.id}`)) sent = { method: r.method(), body: r.postDataJSON() };
  });
  await p.page.goto(`${d.origin}/app/links/${created.body.id}`);
  await p.page.getByRole('button', { name: 'Delete', exact: true }).click();
  const dialog = p.page.getByRole('dialog');
  const confirm = dialog.getByRole('button', { name: 'Delete link' });
  await dialog.getByText('has recorded 1 click').waitFor();
  expect(await confirm.isDisabled()).toBe(true);
  await dialog.getByLabel('Type the slug to confirm').fill('clicke');
  expect(await confirm.isDisabled()).toBe(true);
  await dialog.getByLabel('Type the slug to confirm').fill('clicked');
  await confirm.click();
  await p.page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  await p.page.getByText('Deleted sl.test/clicked and its click.').waitFor();
  expect(sent).toEqual({ method: 'DELETE', body: { slug: 'clicked' } });
  expect((await api(d.t, 'GET', `/links/${created.body.id}`, { key: p.key })).status).toBe(404);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('filing, expiry and click limit are saved; archive and restore', async () => {
  const p = await linkPage('filed');
  const project = await api(d.t, 'POST', '/projects', { key: p.key, body: { name: 'Autumn' } });
  expect(project.status).toBe(201);
  await p.page.reload();
  const details = p.page.getByRole('region', { name: 'Details' });
  await details.getByLabel('Project').locator('option', { hasText: 'Autumn' }).waitFor({ state: 'attached' });
  await details.getByLabel('Tags').fill('autumn, print');
  await details.getByLabel('Project').selectOption({ label: 'Autumn' });
  await details.getByLabel('Expires (UTC)').fill('2030-01-02T03:04');
  await details.getByLabel('Click limit').fill('25');
  await details.getByRole('button', { name: 'Save changes' }).click();
  await details.getByText('Saved.').waitFor();
  // UTC, like every time the dashboard shows, whatever the browser's own zone.
  expect(await p.read()).toMatchObject({
    tags: ['autumn', 'print'],
    projectId: project.body.id,
    expiresAt: Date.UTC(2030, 0, 2, 3, 4),
    clickLimit: 25,
  });

  // Clearing them sends nulls: no expiry, no limit.
  await details.getByLabel('Expires (UTC)').fill('');
  await details.getByLabel('Click limit').fill('');
  await details.getByRole('button', { name: 'Save changes' }).click();
  await details.getByText('Saved.').waitFor();
  expect(await p.read()).toMatchObject({ expiresAt: null, clickLimit: null });

  await p.page.getByRole('button', { name: 'Archive' }).click();
  await p.page.getByRole('button', { name: 'Restore' }).waitFor();
  expect((await p.read()).status).toBe('archived');
  await p.page.getByRole('button', { name: 'Restore' }).click();
  await p.page.getByRole('button', { name: 'Archive' }).waitFor();
  expect((await p.read()).status).toBe('active');
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('a new slug says what stops working, with the old address and its clicks, and saves only when confirmed', async () => {
  const p = await linkPage('old-name');
  await api(d.t, 'POST', `/links/${p.id}/variants`, { key: p.key, body: { code: 'fb' } });
  for (const ua of [CHROME, CHROME, 'curl/8.5.0']) {
    const hit = await d.t.app.handle(new Request('https://sl.test/old-name', { headers: { 'user-agent': ua } }));
    expect(hit.status).toBe(302);
  }
  expect(await d.t.deps.clicks.flusher.flush()).toBe(true);
  await p.page.reload();
  const details = p.page.getByRole('region', { name: 'Details' });
  await details.getByLabel('Slug').fill('new-name');
  await details.getByRole('button', { name: 'Save changes' }).click();

  const dialog = p.page.getByRole('dialog', { name: "Change the short link's address?" });
  await dialog.waitFor();
  const text = (await dialog.textContent())!;
  for (const part of [
    'Old addresshttps://sl.test/old-name',
    'New addresshttps://sl.test/new-name',
    'has had 2 clicks so far and 1 bot hit',
    'answers as an unknown slug (404',
    'every QR code already printed with it',
    'https://sl.test/old-name/fb',
  ]) {
    expect(text).toContain(part);
  }
  // The safe choice has the focus; nothing is saved yet.
  expect(await p.page.evaluate('document.activeElement.textContent')).toBe('Cancel');
  expect((await p.read()).slug).toBe('old-name');
  await p.page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'hidden' });
  expect((await p.read()).slug).toBe('old-name');

  await details.getByRole('button', { name: 'Save changes' }).click();
  await dialog.getByRole('button', { name: 'Change address' }).click();
  await details.getByText('Saved.').waitFor();
  expect((await p.read()).slug).toBe('new-name');
  await p.page.getByRole('heading', { name: 'new-name', level: 1 }).waitFor();
  expect(await p.page.locator('.short-url code').textContent()).toBe('https://sl.test/new-name');
  const old = await d.t.app.handle(new Request('https://sl.test/old-name', { headers: { 'user-agent': CHROME } }));
  expect(old.status).toBe(404);

  // Other changes alone save at once, without asking.
  await details.getByLabel('Title').fill('Renamed');
  await details.getByRole('button', { name: 'Save changes' }).click();
  await p.page.getByRole('heading', { name: 'Renamed', level: 1 }).waitFor();
  expect(await dialog.count()).toBe(0);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);
