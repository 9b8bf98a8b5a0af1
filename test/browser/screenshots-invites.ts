/**
 * Screenshots of invites: Settings › Accounts with the Invite dialog's one-time address and the
 * pending invites, and the invite page as the invited person sees it (pending, and expired).
 * `bun run test/browser/screenshots-invites.ts [folder]` (default docs/screenshots).
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { api } from '../helpers/app';
import { offlinePage, signedInPage, startDashboard } from '../helpers/dashboard-browser';
import { SIZES, screenshotDir } from './screenshot-sizes';

const outDir = screenshotDir();
const d = await startDashboard();
/** Invites made by the dialog's shots, one per size. */
let made = 0;
try {
  const admin = await signedInPage(d);
  const key = admin.key;
  for (const name of ['Spring campaign', 'Newsletter', 'Partners'])
    await api(d.t, 'POST', '/projects', { key, body: { name } });
  const projects = (await api(d.t, 'GET', '/projects', { key })).body.projects as { id: string }[];
  await api(d.t, 'POST', '/invites', { key, body: { email: 'maria.lopez@example.com', role: 'editor' } });
  await api(d.t, 'POST', '/invites', {
    key,
    body: { email: 'sam.viewer@example.com', role: 'viewer', projects: [projects[0]!.id, projects[1]!.id] },
  });
  const shown = await api(d.t, 'POST', '/invites', { key, body: { email: 'ada@example.com', role: 'viewer' } });
  const here = (url: string) => url.replace(/^https:\/\/app\.sl\.test/, d.origin);
  const visitor = await offlinePage(d.browser);

  const shots: [string, Page, string, (page: Page) => Promise<void>][] = [
    ['invites', admin.page, '/app/settings/accounts', (page) => page.getByText('sam.viewer@example.com').waitFor()],
    [
      'invite-dialog',
      admin.page,
      '/app/settings/accounts',
      async (page) => {
        await page.getByRole('button', { name: 'Invite', exact: true }).click();
        const dialog = page.getByRole('dialog', { name: 'Invite someone' });
        await dialog.getByLabel('Email').fill('lee@example.com');
        await dialog.getByLabel('Role').selectOption('viewer');
        await dialog.getByLabel('Only these').check();
        await dialog.getByLabel('Newsletter').check();
      },
    ],
    [
      'invite-created',
      admin.page,
      '/app/settings/accounts',
      async (page) => {
        await page.getByRole('button', { name: 'Invite', exact: true }).click();
        const dialog = page.getByRole('dialog', { name: 'Invite someone' });
        await dialog.getByLabel('Email').fill(`lee.${++made}@example.com`);
        await dialog.getByRole('button', { name: 'Create invite' }).click();
        await dialog.getByRole('textbox', { name: 'Invite address' }).waitFor();
      },
    ],
    [
      'invite-page',
      visitor.page,
      new URL(here(shown.body.url)).pathname,
      (page) => page.getByRole('heading', { name: 'You are invited to Slink' }).waitFor(),
    ],
  ];
  for (const [name, page, path, ready] of shots) {
    for (const { width, colorScheme } of SIZES) {
      await page.setViewportSize({ width, height: 800 });
      await page.emulateMedia({ colorScheme });
      await page.goto(`${d.origin}${path}`);
      await ready(page);
      const file = join(outDir, `${name}-${width}-${colorScheme}.png`);
      await page.screenshot({ path: file });
      console.log(file);
    }
  }
  // The same address a week on.
  d.t.clock.set(shown.body.expiresAt);
  for (const { width, colorScheme } of SIZES) {
    await visitor.page.setViewportSize({ width, height: 800 });
    await visitor.page.emulateMedia({ colorScheme });
    await visitor.page.goto(here(shown.body.url));
    await visitor.page.getByRole('heading', { name: 'This invite expired' }).waitFor();
    const file = join(outDir, `invite-expired-${width}-${colorScheme}.png`);
    await visitor.page.screenshot({ path: file });
    console.log(file);
  }
} finally {
  await d.close();
}
