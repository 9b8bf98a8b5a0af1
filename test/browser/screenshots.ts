/**
 * Writes the dashboard's screenshots: `bun run test/browser/screenshots.ts [out-dir]` (default
 * docs/screenshots). The sign-in page at 1280x800 and 375x800, light and dark, rendered by the
 * real app in Chromium with no internet.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { offlinePage, startDashboard } from '../helpers/dashboard-browser';
import { ROOT } from '../helpers/proc';

const outDir = process.argv[2] ?? join(ROOT, 'docs', 'screenshots');
mkdirSync(outDir, { recursive: true });
const d = await startDashboard();
try {
  const { page } = await offlinePage(d.browser);
  for (const width of [1280, 375]) {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.setViewportSize({ width, height: 800 });
      await page.emulateMedia({ colorScheme });
      await page.goto(`${d.origin}/app/sign-in`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      const file = join(outDir, `sign-in-${width}-${colorScheme}.png`);
      await page.screenshot({ path: file });
      console.log(file);
    }
  }
} finally {
  await d.close();
}
