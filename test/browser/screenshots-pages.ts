import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { api } from '../helpers/app';
import { signedInPage, startDashboard } from '../helpers/dashboard-browser';
import { DESKTOP_CHROME } from '../helpers/dashboard-process';
import { SIZES, screenshotDir } from './screenshot-sizes';

const outDir = screenshotDir();

const BULK_TEXT = [
  'https://shop.example.com/spring?utm_source=newsletter&utm_campaign=spring\tSpring sale',
  'https://shop.example.com/summer\tSummer preview',
  'https://shop.example.com/spring?utm_source=newsletter&utm_campaign=spring\tSpring sale',
  'https://blog.example.com/launch',
  'ftp://files.example.com/price-list.pdf',
].join('\n');

const d = await startDashboard();
try {
  const p = await signedInPage(d);
  const key = p.key;
  const project = async (name: string) => (await api(d.t, 'POST', '/projects', { key, body: { name } })).body.id;
  const spring = await project('Spring campaign');
  const blog = await project('Blog');
  await project('Partners');
  const seed = [
    ['https://shop.example.com/spring/shoes', 'Spring shoes', spring, ['spring', 'shoes']],
    ['https://shop.example.com/spring/jackets', 'Spring jackets', spring, ['spring']],
    ['https://shop.example.com/spring/bags', 'Spring bags', spring, ['spring', 'bags']],
    ['https://blog.example.com/2026/release-notes', 'Release notes', blog, ['release']],
    ['https://blog.example.com/2026/roadmap', 'Roadmap', blog, []],
    ['https://blog.example.com/launch', 'Launch post', null, ['release']],
  ] as const;
  const slugs: string[] = [];
  for (const [destination, title, projectId, tags] of seed) {
    slugs.push((await api(d.t, 'POST', '/links', { key, body: { destination, title, projectId, tags } })).body.slug);
  }
  // Clicks on the first two links: a bulk delete keeps them.
  for (const [slug, clicks] of [
    [slugs[0]!, 12],
    [slugs[1]!, 3],
  ] as const) {
    for (let i = 0; i < clicks; i++) {
      await d.t.app.handle(new Request(`https://sl.test/${slug}`, { headers: { 'user-agent': DESKTOP_CHROME } }));
    }
  }
  await d.t.deps.clicks.flusher.flush();

  const shots: [string, string, (page: Page) => Promise<void>][] = [
    ['projects', '/app/projects', (page) => page.getByRole('link', { name: 'Spring campaign' }).waitFor()],
    ['tags', '/app/tags', (page) => page.getByRole('link', { name: 'spring' }).waitFor()],
    ['settings', '/app/settings', (page) => page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor()],
    // The seeding above is the log: three projects and six links created through the API.
    ['audit', '/app/settings/audit', (page) => page.getByRole('cell').first().waitFor()],
    [
      'new-link',
      '/app',
      async (page) => {
        await page.getByRole('button', { name: 'New link' }).click();
        const dialog = page.getByRole('dialog', { name: 'New link' });
        await dialog.getByLabel('Destination').fill('https://shop.example.com/summer/hats');
        await dialog.getByText('More options').click();
        await dialog.getByLabel('Click limit').fill('500');
        await dialog.getByLabel('Fallback address').fill('https://shop.example.com/summer');
        await page.evaluate('document.activeElement.blur()');
      },
    ],
    [
      'bulk',
      '/app/bulk',
      async (page) => {
        await page.getByLabel('URLs').fill(BULK_TEXT);
        await page.getByLabel('Tags').fill('summer');
        await page.getByRole('button', { name: 'Preview' }).click();
        await page.getByRole('button', { name: 'Create 2 links' }).waitFor();
      },
    ],
    [
      'links-selected',
      '/app',
      async (page) => {
        // The first three rows: the seeded links share one creation time, so their order varies.
        await page.locator('.link-item').nth(5).waitFor();
        for (let i = 0; i < 3; i++) await page.locator('.link-check input').nth(i).check();
        await page.getByText('3 links selected').waitFor();
        await page.evaluate('document.activeElement.blur()');
        // No hover left on a button the layout moved under the pointer.
        await page.mouse.move(0, 0);
      },
    ],
    [
      'links-kept',
      '/app',
      async (page) => {
        // A link without clicks to delete on each run, beside the two that have clicks.
        const socks = { destination: 'https://shop.example.com/spring/socks', title: 'Spring socks', tags: ['spring'] };
        const fresh = (await api(d.t, 'POST', '/links', { key, body: socks })).body.slug;
        await page.reload();
        await page.locator('.link-item').nth(6).waitFor();
        for (const slug of [slugs[0], slugs[1], fresh]) {
          await page.getByRole('checkbox', { name: `Select sl.test/${slug}` }).check();
        }
        await page.getByRole('button', { name: 'Delete', exact: true }).click();
        await page.getByRole('button', { name: 'Delete links' }).click();
        await page.getByText('2 links were kept because they have clicks:').waitFor();
        await page.evaluate('document.activeElement.blur()');
        // No hover left on a button the layout moved under the pointer.
        await page.mouse.move(0, 0);
      },
    ],
  ];

  for (const [name, path, ready] of shots) {
    for (const { width, colorScheme } of SIZES) {
      await p.page.setViewportSize({ width, height: 800 });
      await p.page.emulateMedia({ colorScheme });
      await p.page.goto(`${d.origin}${path}`);
      await ready(p.page);
      await p.page.evaluate('window.scrollTo(0, 0)');
      const file = join(outDir, `${name}-${width}-${colorScheme}.png`);
      await p.page.screenshot({ path: file, fullPage: name === 'bulk' });
      console.log(file);
    }
  }
} finally {
  await d.close();
}
