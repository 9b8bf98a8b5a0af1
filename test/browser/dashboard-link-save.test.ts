/**
 * Saving a link's long Details form in Chromium against the real app: a failed Save takes the
 * person to the first field in error (focused, in view, and said beside the button), and edits
 * not saved are asked about before the person leaves (an in-app link, Back, a page unload), never
 * after a successful Save. The engine does not matter here: SQLite only.
 */
import { beforeAll, expect, test } from 'bun:test';
import type { Dialog, Page } from 'playwright-core';
import { api } from '../helpers/app';
import { dashboardPerFile, expectCleanPage, signedInPage, waitUntil } from '../helpers/dashboard-browser';

const d = dashboardPerFile();
let key = '';
const LEAVE = 'Leave this page? Your changes are not saved.';

beforeAll(async () => {
  key = (await signedInPage(d)).key;
});

/** A link (with a rule, so the form is as long as a real one) and its page, signed in. */
async function linkPage(slug: string, viewport = { width: 1280, height: 700 }) {
  const p = await signedInPage(d);
  await p.page.setViewportSize(viewport);
  const created = await api(d.t, 'POST', '/links', {
    key,
    body: {
      destination: `https://example.com/${slug}`,
      slug,
      rules: [{ when: { device: ['mobile'] }, destination: 'https://m.example.com/' }],
    },
  });
  expect(created.status).toBe(201);
  // Reached from the list, as a person does: Back has somewhere to go.
  await p.page.goto(`${d.origin}/app?q=${slug}`);
  await p.page.getByRole('link', { name: `sl.test/${slug}`, exact: true }).click();
  await p.page.getByRole('heading', { name: slug, level: 1 }).waitFor();
  const read = async () => (await api(d.t, 'GET', `/links/${created.body.id}`, { key })).body;
  return { ...p, id: created.body.id as string, read, details: p.page.getByRole('region', { name: 'Details' }) };
}

/** Whether the element is inside the viewport now. */
const inView = (page: Page, selector: string) =>
  page.locator(selector).evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.top >= 0 && r.bottom <= el.ownerDocument.documentElement.clientHeight;
  });

/** Every dialog the page opens, answered by `answer` (true accepts). */
function answerDialogs(page: Page, answer: () => boolean): Dialog[] {
  const seen: Dialog[] = [];
  page.on('dialog', (dialog) => {
    seen.push(dialog);
    void (answer() ? dialog.accept() : dialog.dismiss());
  });
  return seen;
}

test('a failed Save focuses the first field in error, scrolls it into view and says so beside the button', async () => {
  const p = await linkPage('far-error');
  const destination = p.details.getByLabel('Destination');
  await destination.fill('ftp://example.com/file');
  await p.details.getByLabel('Title').fill('Kept title');
  const save = p.details.getByRole('button', { name: 'Save changes' });
  await save.scrollIntoViewIfNeeded();
  // The field in error is far above the button the person presses: out of view.
  const destinationId = await destination.getAttribute('id');
  expect(await inView(p.page, `[id="${destinationId}"]`)).toBe(false);
  await save.click();
  await p.page.waitForSelector('input[aria-invalid="true"]');
  await waitUntil(async () => (await p.page.evaluate('document.activeElement?.id')) === destinationId);
  expect(await inView(p.page, `[id="${destinationId}"]`)).toBe(true);
  // Its error is read with it, and the button's status line says the save failed.
  const described = (await destination.getAttribute('aria-describedby')) ?? '';
  const errorId = described.split(' ').find((id) => id.endsWith('-error'));
  expect(await p.page.locator(`[id="${errorId}"]`).textContent()).toContain('http or https');
  const status = p.details.locator('form > .actions > [role="status"]');
  expect(await status.textContent()).toStartWith('Not saved: ');
  expect(await status.textContent()).toContain('http or https');
  expect((await p.read()).title).toBeNull();
  await expectCleanPage(p);
  await p.page.close();
}, 60_000);

test('leaving with unsaved edits asks: cancel keeps them, confirm leaves; Back asks too', async () => {
  const p = await linkPage('leave-me');
  let accept = false;
  const dialogs = answerDialogs(p.page, () => accept);
  const title = p.details.getByLabel('Title');
  await title.fill('Not saved yet');
  const linkUrl = p.page.url();

  await p.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click();
  await waitUntil(async () => dialogs.length === 1);
  expect([dialogs[0]!.type(), dialogs[0]!.message()]).toEqual(['confirm', LEAVE]);
  expect(p.page.url()).toBe(linkUrl);
  expect(await title.inputValue()).toBe('Not saved yet');

  // Back: the address returns to the link's page, the edits stay.
  await p.page.goBack();
  await waitUntil(async () => dialogs.length === 2);
  await waitUntil(async () => p.page.url() === linkUrl);
  expect(await title.inputValue()).toBe('Not saved yet');

  accept = true;
  await p.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Projects' }).click();
  await p.page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
  expect(dialogs.length).toBe(3);
  expect(p.page.url()).toBe(`${d.origin}/app/projects`);
  expect((await p.read()).title).toBeNull();

  // A button that edits (Add rule) counts as an edit too.
  await p.page.goBack();
  await p.page.getByRole('heading', { name: 'leave-me', level: 1 }).waitFor();
  accept = false;
  await p.details.getByRole('button', { name: 'Add rule' }).click();
  await p.page.getByRole('link', { name: 'Links', exact: true }).first().click();
  await waitUntil(async () => dialogs.length === 4);
  expect(p.page.url()).toBe(linkUrl);
  await expectCleanPage(p);
  await p.page.close();
}, 60_000);

test('a page unload with unsaved edits asks (beforeunload); after a successful Save nothing asks', async () => {
  const p = await linkPage('unload-me');
  const dialogs = answerDialogs(p.page, () => false);
  // Clicked, then typed: a browser asks on unload only on a page the person has interacted with.
  const title = p.details.getByLabel('Title');
  await title.click();
  await title.fill('Edited');
  const linkUrl = p.page.url();
  // A page load elsewhere (typed address, reload): the browser's prompt; staying keeps the edits.
  expect(await p.page.goto(`${d.origin}/app/projects`).catch((err: Error) => err.message)).toContain('ERR_ABORTED');
  expect(dialogs.map((dialog) => dialog.type())).toEqual(['beforeunload']);
  expect(p.page.url()).toBe(linkUrl);
  expect(await title.inputValue()).toBe('Edited');

  // Saved: an in-app link and a page load go through without a question.
  await p.details.getByRole('button', { name: 'Save changes' }).click();
  await p.details.getByText('Saved.').waitFor();
  expect((await p.read()).title).toBe('Edited');
  await p.page.getByRole('link', { name: 'Links', exact: true }).first().click();
  await p.page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  await p.page.goBack();
  await p.page.getByRole('heading', { name: 'Edited', level: 1 }).waitFor();
  await p.page.goto(`${d.origin}/app/projects`);
  await p.page.getByRole('heading', { name: 'Projects', level: 1 }).waitFor();
  expect(dialogs.length).toBe(1);
  await expectCleanPage(p);
  await p.page.close();
}, 60_000);
