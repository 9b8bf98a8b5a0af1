/**
 * Settings › Domains (the list, a domain just added with its steps, the edit form with a JSON
 * error) and a link's page with its Domain choice and the move's confirmation, from the real app
 * in Chromium: `bun run test/browser/screenshots-domains.ts [folder]` (default docs/screenshots).
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { api } from '../helpers/app';
import { signedInPage, startDashboard } from '../helpers/dashboard-browser';
import { DESKTOP_CHROME } from '../helpers/dashboard-process';
import { SIZES, screenshotDir } from './screenshot-sizes';

const outDir = screenshotDir();

const d = await startDashboard();
try {
  const p = await signedInPage(d);
  const key = p.key;
  const post = async (path: string, body: unknown) => (await api(d.t, 'POST', path, { key, body })).body;
  await post('/domains', { origin: 'https://go.example.com' });
  await post('/domains', { origin: 'https://promo.example.com' });
  const link = await post('/links', {
    destination: 'https://shop.example.com/spring/shoes',
    title: 'Spring shoes',
    slug: 'spring-shoes',
  });
  for (const [destination, domain] of [
    ['https://shop.example.com/summer', 'go.example.com'],
    ['https://shop.example.com/summer/hats', 'go.example.com'],
  ] as const) {
    await post('/links', { destination, domain });
  }
  // A request reaches the default domain and go.example.com; promo.example.com has none yet.
  for (const url of ['https://sl.test/spring-shoes', 'https://go.example.com/']) {
    await d.t.app.handle(new Request(url, { headers: { 'user-agent': DESKTOP_CHROME } }));
  }
  await d.t.deps.clicks.flusher.flush();
  let extra = 0;

  const shots: [string, string, (page: Page) => Promise<void>][] = [
    [
      'domains',
      '/app/settings/domains',
      (page) => page.getByRole('cell', { name: 'promo.example.com', exact: true }).waitFor(),
    ],
    [
      'domains-add',
      '/app/settings/domains',
      async (page) => {
        await page.getByRole('button', { name: 'Add domain' }).click();
        const dialog = page.getByRole('dialog', { name: 'Add a domain' });
        await dialog.getByLabel('Origin').fill(`https://links${++extra}.example.com`);
        await dialog.getByRole('button', { name: 'Add domain' }).click();
        await dialog.locator('ol.steps').waitFor();
      },
    ],
    [
      'domains-edit',
      '/app/settings/domains',
      async (page) => {
        await page.getByRole('button', { name: 'Edit go.example.com' }).click();
        const dialog = page.getByRole('dialog', { name: 'Edit go.example.com' });
        await dialog.getByLabel('Root URL').fill('https://shop.example.com/');
        await dialog.getByLabel('Apple app-site-association (JSON)').fill('{\n  "applinks": {\n    "details": [\n');
        await dialog.getByRole('button', { name: 'Save changes' }).click();
        await dialog.getByText(/is not valid JSON/).waitFor();
      },
    ],
    [
      'link-domain',
      `/app/links/${link.id}`,
      async (page) => {
        const details = page.getByRole('region', { name: 'Details' });
        await details.getByLabel('Domain').selectOption('go.example.com');
        await details.getByLabel('Domain').scrollIntoViewIfNeeded();
      },
    ],
    [
      'link-move',
      `/app/links/${link.id}`,
      async (page) => {
        const details = page.getByRole('region', { name: 'Details' });
        await details.getByLabel('Domain').selectOption('go.example.com');
        await details.getByRole('button', { name: 'Save changes' }).click();
        await page.getByRole('dialog', { name: 'Move the link to go.example.com?' }).waitFor();
      },
    ],
  ];

  for (const [name, path, ready] of shots) {
    for (const { width, colorScheme } of SIZES) {
      await p.page.setViewportSize({ width, height: 800 });
      await p.page.emulateMedia({ colorScheme });
      await p.page.goto(`${d.origin}${path}`);
      await ready(p.page);
      if (!name.startsWith('link-domain')) await p.page.evaluate('window.scrollTo(0, 0)');
      await p.page.evaluate('document.activeElement.blur()');
      await p.page.mouse.move(0, 0);
      const file = join(outDir, `${name}-${width}-${colorScheme}.png`);
      await p.page.screenshot({ path: file });
      console.log(file);
    }
  }
} finally {
  await d.close();
}
