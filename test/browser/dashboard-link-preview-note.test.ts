/**
 * A link's password and social preview in Chromium: the password wins (a protected link never
 * shows its card), and the preview fields say so whenever a card is filled in and the link has a
 * password or one is typed to be saved with it; not otherwise. One engine: the page, not the store, is under test.
 */
import { expect, test } from 'bun:test';
import { api } from '../helpers/app';
import { dashboardPerFile, expectCleanPage, expectUsableEverywhere, signedInPage } from '../helpers/dashboard-browser';

const NOTE =
  'The password wins: while the link has one, crawlers get the password form like everyone, never this card (it would tell what the password guards). The card is kept and shown again once the password is removed.';

const d = dashboardPerFile();

test('the preview fields say the password wins while the link has, or is about to have, a password', async () => {
  const p = await signedInPage(d);
  const created = await api(d.t, 'POST', '/links', {
    key: p.key,
    body: { destination: 'https://example.com/plans', slug: 'plans', preview: { title: 'Our secret plans' } },
  });
  expect(created.status).toBe(201);
  const show = async () => {
    await p.page.goto(`${d.origin}/app/links/${created.body.id}`);
    await p.page.getByRole('heading', { name: 'plans', level: 1 }).waitFor();
  };
  await show();
  const details = p.page.getByRole('region', { name: 'Details' });
  const preview = details.getByRole('group', { name: 'Social preview' });
  const note = preview.getByRole('note');
  expect(await preview.getByLabel('Preview heading').inputValue()).toBe('Our secret plans');
  expect(await note.count()).toBe(0);

  // A password typed, not saved yet: the note already says what saving it will do.
  await details.getByLabel('Set a password').fill('team offsite 2027');
  await note.waitFor();
  expect(await note.textContent()).toBe(NOTE);
  await details.getByLabel('Set a password').fill('');
  await note.waitFor({ state: 'detached' });

  await details.getByLabel('Set a password').fill('team offsite 2027');
  await details.getByRole('button', { name: 'Save changes' }).click();
  await details.getByText('Saved.').waitFor();
  const saved = (await api(d.t, 'GET', `/links/${created.body.id}`, { key: p.key })).body;
  expect({ passwordProtected: saved.passwordProtected, preview: saved.preview }).toEqual({
    passwordProtected: true,
    preview: { title: 'Our secret plans' },
  });
  // Protected: the note stays, and the page is usable with it in light, dark and at 375 px.
  await expectUsableEverywhere(p.page, async () => {
    await show();
    await note.waitFor();
  });
  expect(await note.textContent()).toBe(NOTE);

  // Removing the password (on Save), or the card, takes the note away at once.
  await details.getByRole('button', { name: 'Remove password' }).click();
  await note.waitFor({ state: 'detached' });
  await details.getByRole('button', { name: 'Keep the password' }).click();
  await note.waitFor();
  await preview.getByRole('button', { name: 'Remove preview' }).click();
  await note.waitFor({ state: 'detached' });
  await preview.getByLabel('Preview heading').fill('Our secret plans');
  await note.waitFor();
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);
