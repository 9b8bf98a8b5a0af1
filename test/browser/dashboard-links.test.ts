/**
 * The links list in Chromium against the real /api/v1, signed in with a real session (the
 * page's requests carry its cookie); the test seeds through the account's write key.
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

const d = dashboardPerFile();

test('an address with utm_ keys: fill it, then ONE click on Create makes the link', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app`);
  await p.page.getByRole('heading', { name: 'No links yet' }).waitFor();
  expect(await seriousA11yViolations(p.page)).toEqual([]);

  await p.page.getByRole('button', { name: 'New link' }).click();
  const dialog = p.page.getByRole('dialog', { name: 'New link' });
  await dialog.getByLabel('Custom slug').fill('spring');
  // The destination last, as a person pastes it, and straight on to Create: nothing in between.
  await dialog.getByLabel('Destination').fill('https://example.com/spring?id=7&utm_source=news&utm_medium=email');
  await dialog.getByRole('button', { name: 'Create' }).click();

  await p.page.getByRole('heading', { name: 'spring' }).waitFor();
  const id = new URL(p.page.url()).pathname.split('/').pop()!;
  const saved = await api(d.t, 'GET', `/links/${id}`, { key: p.key });
  expect([saved.body.slug, saved.body.destination, saved.body.params]).toEqual([
    'spring',
    'https://example.com/spring?id=7',
    { utm_source: 'news', utm_medium: 'email' },
  ]);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('a pasted address shows its utm_ keys in the parameters before anything is saved', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app`);
  await p.page.getByRole('button', { name: 'New link' }).click();
  const dialog = p.page.getByRole('dialog', { name: 'New link' });
  const destination = dialog.getByLabel('Destination');
  await destination.fill('https://example.com/spring?id=7&utm_source=news&utm_medium=email');
  await dialog.getByText('Moved utm_source, utm_medium').waitFor();
  expect(await destination.inputValue()).toBe('https://example.com/spring?id=7');
  expect(await dialog.getByLabel('Parameter 1 name').inputValue()).toBe('utm_source');
  expect(await dialog.getByLabel('Parameter 2 value').inputValue()).toBe('email');
  // Typed one character at a time, nothing moves while typing or on leaving the field.
  await destination.fill('');
  await destination.pressSequentially('https://example.com/?utm_term=x');
  await p.page.keyboard.press('Tab');
  expect(await destination.inputValue()).toBe('https://example.com/?utm_term=x');
  expect(await dialog.getByLabel('Parameter 3 name').count()).toBe(0);
  await expectCleanPage(p);
  await p.page.close();
}, 60_000);

test('an address without a scheme is taken as https://; what is still wrong is said next to the field', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app`);
  await p.page.getByRole('button', { name: 'New link' }).click();
  const dialog = p.page.getByRole('dialog', { name: 'New link' });
  const destination = dialog.getByLabel('Destination');
  // Pasted (filled at once): completed as it arrives.
  await destination.fill('acme.example/pricing');
  await waitUntil(async () => (await destination.inputValue()) === 'https://acme.example/pricing');
  // Typed, then the field left: completed on the way out.
  await destination.fill('');
  await destination.pressSequentially('acme.example/typed');
  await p.page.keyboard.press('Tab');
  expect(await destination.inputValue()).toBe('https://acme.example/typed');

  // Not an address at all: our own words under the field, not the browser's bubble.
  await destination.fill('not an address');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await waitUntil(async () => (await destination.getAttribute('aria-invalid')) === 'true');
  expect(await dialog.locator('.field-error').allTextContents()).toEqual([
    'Destination must be an absolute http or https URL',
  ]);
  expect(await destination.evaluate((el) => (el as unknown as { validationMessage: string }).validationMessage)).toBe(
    '',
  );

  await destination.fill('acme.example/pricing?plan=pro');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await p.page.getByText('Link created.').waitFor();
  const id = new URL(p.page.url()).pathname.split('/').pop()!;
  expect((await api(d.t, 'GET', `/links/${id}`, { key: p.key })).body.destination).toBe(
    'https://acme.example/pricing?plan=pro',
  );
  await expectCleanPage(p);
  await p.page.close();
}, 60_000);

test('dialogs open with the focus on their first field, ready for typing', async () => {
  const p = await signedInPage(d);
  const focusedLabel = () =>
    p.page.evaluate('document.activeElement.labels?.[0]?.textContent ?? document.activeElement.textContent');
  for (const [path, opener, title, field] of [
    ['/app', 'New link', 'New link', 'Destination'],
    ['/app/projects', 'New project', 'New project', 'Name'],
    ['/app/settings/keys', 'Create key', 'New API key', 'Name'],
  ] as const) {
    await p.page.goto(`${d.origin}${path}`);
    await p.page.getByRole('button', { name: opener }).focus();
    await p.page.keyboard.press('Enter');
    const dialog = p.page.getByRole('dialog', { name: title });
    await dialog.waitFor();
    expect({ title, focused: await focusedLabel() }).toEqual({ title, focused: field });
    await p.page.keyboard.type('typed at once');
    expect(await dialog.getByLabel(field, { exact: true }).inputValue()).toBe('typed at once');
    await p.page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
  }
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('the new-link dialog keeps focus inside, closes on Esc and gives focus back', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app`);
  const opener = p.page.getByRole('button', { name: 'New link' });
  await opener.click();
  const dialog = p.page.getByRole('dialog', { name: 'New link' });
  await dialog.waitFor();
  for (let i = 0; i < 12; i++) {
    await p.page.keyboard.press('Tab');
    expect(await p.page.evaluate(`!!document.activeElement.closest('dialog')`)).toBe(true);
  }
  await p.page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  expect(await p.page.evaluate('document.activeElement.textContent')).toBe('New link');
  await p.page.close();
}, 60_000);

test('search, filters and "Load more" ask the server, a page of 50 at a time', async () => {
  const p = await signedInPage(d);
  for (let i = 0; i < 55; i++) {
    const body = {
      destination: `https://example.com/${i}`,
      title: i === 7 ? 'The needle' : `Link ${i}`,
      tags: i % 2 ? ['odd'] : [],
    };
    expect((await api(d.t, 'POST', '/links', { key: p.key, body })).status).toBe(201);
  }
  const total = (await api(d.t, 'GET', '/links?limit=100', { key: p.key })).body.items.length;
  expect(total).toBeGreaterThan(50);
  const listCalls: string[] = [];
  p.page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/api/v1/links') listCalls.push(new URL(r.url()).search);
  });
  await p.page.goto(`${d.origin}/app`);
  const items = p.page.locator('.link-item');
  await p.page.getByRole('button', { name: 'Load more' }).waitFor();
  expect(await items.count()).toBe(50);
  await p.page.getByRole('button', { name: 'Load more' }).click();
  await waitUntil(async () => (await items.count()) === total);
  expect(listCalls[1]).toContain('cursor=');

  await p.page.getByLabel('Search').fill('needle');
  await waitUntil(async () => (await items.count()) === 1);
  expect(await items.first().textContent()).toContain('The needle');
  expect(new URL(p.page.url()).search).toBe('?q=needle');
  await p.page.getByLabel('Search').fill('');
  await p.page.getByLabel('Tag', { exact: true }).selectOption('odd');
  await waitUntil(async () => (await items.count()) === 27);
  expect(listCalls.at(-1)).toContain('tag=odd');
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('what people typed is shown as text, and only http(s) destinations become links', async () => {
  const p = await signedInPage(d);
  const title = '<img src=x onerror="window.__xss=1">';
  const created = await api(d.t, 'POST', '/links', {
    key: p.key,
    body: { destination: 'https://example.com/"><script>window.__xss=2</script>', title, tags: ['<b>bold</b>'] },
  });
  expect(created.status).toBe(201);
  await p.page.goto(`${d.origin}/app?q=onerror`);
  await p.page.getByText(title).first().waitFor();
  await p.page.getByText('<b>bold</b>', { exact: true }).waitFor();
  await p.page.goto(`${d.origin}/app/links/${created.body.id}`);
  expect(await p.page.getByRole('heading', { level: 1 }).textContent()).toBe(title);
  const hrefs = (await p.page.$$eval('a[target=_blank]', (els) => els.map((e) => e.getAttribute('href')))) as string[];
  expect(hrefs.length).toBeGreaterThan(0);
  for (const href of hrefs) expect(href).toMatch(/^https?:\/\//);
  expect(await p.page.evaluate('window.__xss')).toBeUndefined();
  await expectCleanPage(p);
  await p.page.close();
}, 60_000);
