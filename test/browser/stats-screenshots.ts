/**
 * Writes the statistics pages' screenshots: `bun run test/browser/stats-screenshots.ts [out-dir]`
 * (default docs/screenshots), at 1280x800 light and dark and 375x800 light, rendered by the real
 * app in Chromium with no internet, for a busy workspace seeded through the real redirect:
 * stats-* is the top of the workspace's page (the pointer on the chart), link-stats-* one link's
 * page scrolled to its world map and countries, and *-variants-* each page scrolled to its
 * variants (the workspace's per link, the link's with its own clicks as a row).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { buildDashboard } from '../../scripts/build-dashboard';
import { ROOT } from '../helpers/proc';

// The app serves the generated bundle: bring it up to date before the app (and it) is loaded.
await buildDashboard({ ifStale: true });
const { signedInPage, startDashboard, waitUntil } = await import('../helpers/dashboard-browser');
const { seedBusyWorkspace } = await import('../helpers/stats-seed');

const outDir = process.argv[2] ?? join(ROOT, 'docs', 'screenshots');
mkdirSync(outDir, { recursive: true });

async function pointAtChart(page: Page) {
  const box = (await page.locator('.stats-chart canvas').first().boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.8, box.y + box.height / 2);
}

async function showMap(page: Page) {
  await page.evaluate("document.getElementById('bd-country').closest('section').scrollIntoView()");
}

async function showVariants(page: Page) {
  await page.evaluate("document.getElementById('bd-variant').closest('section').scrollIntoView()");
}

const d = await startDashboard({ SLINK_TRUST_PROXY: '1' });
try {
  const p = await signedInPage(d);
  const [sale] = await seedBusyWorkspace(d.t, p.key);
  const pages = [
    { name: 'stats', path: '/app/stats?range=30d', arrange: pointAtChart },
    { name: 'link-stats', path: `/app/links/${sale}/stats?range=30d`, arrange: showMap },
    { name: 'stats-variants', path: '/app/stats?range=30d', arrange: showVariants },
    { name: 'link-stats-variants', path: `/app/links/${sale}/stats?range=30d`, arrange: showVariants },
  ];
  const shots = [
    { width: 1280, colorScheme: 'light' },
    { width: 1280, colorScheme: 'dark' },
    { width: 375, colorScheme: 'light' },
  ] as const;
  for (const { name, path, arrange } of pages) {
    for (const { width, colorScheme } of shots) {
      await p.page.setViewportSize({ width, height: 800 });
      await p.page.emulateMedia({ colorScheme });
      await p.page.goto(`${d.origin}${path}`);
      await p.page.locator('.stats-chart canvas').first().waitFor();
      await waitUntil(async () => (await p.page.locator('.world-map path.q5').count()) > 0);
      await arrange(p.page);
      const file = join(outDir, `${name}-${width}-${colorScheme}.png`);
      await p.page.screenshot({ path: file });
      console.log(file);
    }
  }
} finally {
  await d.close();
}
