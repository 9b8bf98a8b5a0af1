/**
 * Invites as people live them: an admin invites from Settings › Accounts and copies the address
 * shown once; the invited person opens it in a browser of their own, sees the email and role,
 * chooses a password and is signed in with that role. A used, revoked, expired or unknown
 * address says which and what to do. (The API's rules, on both engines: test/modules/invites.)
 */
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { api } from '../helpers/app';
import {
  dashboardPerFile,
  expectCleanPage,
  expectUsableEverywhere,
  offlinePage,
  signedInPage,
} from '../helpers/dashboard-browser';

const d = dashboardPerFile();
/** The app's addresses name SLINK_APP_HOST; the browser reaches the same app on loopback. */
const here = (url: string) => url.replace(/^https:\/\/app\.sl\.test/, d.origin);

async function heading(page: Page, name: string | RegExp): Promise<void> {
  await page.getByRole('heading', { name, level: 1 }).waitFor();
}

test('an admin invites from Accounts; the address, opened in a fresh browser, makes a signed-in viewer of the chosen project', async () => {
  const admin = await signedInPage(d);
  const project = await api(d.t, 'POST', '/projects', { key: admin.key, body: { name: 'Spring campaign' } });
  expect(project.status).toBe(201);
  await admin.page.goto(`${d.origin}/app/settings/accounts`);
  await admin.page.getByRole('button', { name: 'Invite', exact: true }).click();
  const dialog = admin.page.getByRole('dialog', { name: 'Invite someone' });
  await dialog.getByLabel('Email').fill('new.viewer@example.com');
  await dialog.getByLabel('Role').selectOption('viewer');
  await dialog.getByLabel('Only these').check();
  await dialog.getByLabel('Spring campaign').check();
  await dialog.getByRole('button', { name: 'Create invite' }).click();
  const address = dialog.getByRole('textbox', { name: 'Invite address' });
  await address.waitFor();
  const url = await address.inputValue();
  expect(url).toMatch(/^https:\/\/app\.sl\.test\/app\/invite\/[A-Za-z0-9_-]{43}$/);
  await dialog.getByRole('button', { name: 'Done' }).click();
  const pending = admin.page.getByRole('row').filter({ hasText: 'new.viewer@example.com' });
  await pending.waitFor();
  expect(await pending.textContent()).toContain('Viewer');
  // The list never shows the address.
  expect(await admin.page.content()).not.toContain(url.slice(-43));
  await expectCleanPage(admin);

  const invited = await offlinePage(d.browser);
  await invited.page.goto(here(url));
  await heading(invited.page, 'You are invited to Slink');
  expect(await invited.page.getByText('new.viewer@example.com').count()).toBeGreaterThan(0);
  expect(await invited.page.getByText('Viewer', { exact: true }).count()).toBe(1);
  await invited.page.getByLabel('Choose a password').fill('my own good password');
  await invited.page.getByRole('button', { name: 'Create my account' }).click();
  await heading(invited.page, 'Links');
  const me = await invited.page.request.get(`${d.origin}/api/app/session`);
  expect(((await me.json()) as { account: unknown }).account).toMatchObject({
    email: 'new.viewer@example.com',
    role: 'viewer',
    projects: [project.body.id],
  });
  await expectCleanPage(invited);

  // Accepted: gone from the pending list, and the address now says it was used.
  await admin.page.reload();
  await admin.page.getByRole('heading', { name: 'Pending invites' }).waitFor();
  await admin.page.getByText('No pending invites.').waitFor();
  const again = await offlinePage(d.browser);
  await again.page.goto(here(url));
  await heading(again.page, 'This invite was used already');
  expect(await again.page.getByText(/ask an admin for a new invite/).count()).toBe(1);
  await expectCleanPage(again);
  for (const p of [admin, invited, again]) await p.page.close();
}, 90_000);

test('revoked from the list, the address says revoked; an unknown address says so; the invite page is usable light, dark and narrow', async () => {
  const admin = await signedInPage(d);
  const made = await api(d.t, 'POST', '/invites', {
    key: admin.key,
    body: { email: 'to.revoke@example.com', role: 'editor' },
  });
  expect(made.status).toBe(201);
  const visitor = await offlinePage(d.browser);
  await expectUsableEverywhere(visitor.page, async () => {
    await visitor.page.goto(here(made.body.url));
    await heading(visitor.page, 'You are invited to Slink');
  });
  await admin.page.goto(`${d.origin}/app/settings/accounts`);
  await admin.page.getByRole('button', { name: 'Revoke the invite of to.revoke@example.com' }).click();
  await admin.page.getByRole('dialog').getByRole('button', { name: 'Revoke invite' }).click();
  await admin.page.getByText('No pending invites.').waitFor();
  await visitor.page.goto(here(made.body.url));
  await heading(visitor.page, 'This invite was revoked');
  expect(await visitor.page.getByText('Ask an admin for a new invite.').count()).toBe(1);
  await visitor.page.goto(`${d.origin}/app/invite/${'x'.repeat(43)}`);
  await heading(visitor.page, 'This invite address is not known');
  await expectCleanPage(visitor);
  for (const p of [admin, visitor]) await p.page.close();
}, 90_000);

test('past its 7 days the address says expired, and asks for a new invite', async () => {
  const admin = await signedInPage(d);
  const made = await api(d.t, 'POST', '/invites', {
    key: admin.key,
    body: { email: 'too.late@example.com', role: 'viewer' },
  });
  expect(made.status).toBe(201);
  const visitor = await offlinePage(d.browser);
  const now = d.t.clock.now();
  try {
    d.t.clock.set(made.body.expiresAt);
    await visitor.page.goto(here(made.body.url));
    await heading(visitor.page, 'This invite expired');
    expect(await visitor.page.getByText('Invites work for 7 days. Ask an admin for a new invite.').count()).toBe(1);
    await expectCleanPage(visitor);
  } finally {
    d.t.clock.set(now);
  }
  for (const p of [admin, visitor]) await p.page.close();
}, 60_000);
