/**
 * Writes screenshots of the projects, tags, bulk create and selected-links pages:
 * `bun run test/browser/screenshots-pages.ts [out-dir]` (default docs/screenshots). The real app
 * in Chromium with no internet, a real session, example data seeded through the API; 1280x800
 * light and dark, and 375x800 light.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { api } from '../helpers/app';
import { signedInPage, startDashboard } from '../helpers/dashboard-browser';
import { ROOT } from '../helpers/proc';

const outDir = process.argv[2] ?? join(ROOT, 'docs', 'screenshots');
mkdirSync(outDir, { recursive: true });
const SIZES = [
  { width: 1280, colorScheme: 'light' },
  { width: 1280, colorScheme: 'dark' },
  { width: 375, colorScheme: 'light' },
] as const;

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
  for (const [destination, title, projectId, tags] of seed) {
    await api(d.t, 'POST', '/links', { key, body: { destination, title, projectId, tags } });
  }

  const shots: [string, string, (page: Page) => Promise<void>][] = [
    ['projects', '/app/projects', (page) => page.getByRole('link', { name: 'Spring campaign' }).waitFor()],
    ['tags', '/app/tags', (page) => page.getByRole('link', { name: 'spring' }).waitFor()],
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
