/**
 * Writes screenshots of a protected link's password form, as first shown and after a wrong
 * password: `bun run test/browser/password-screenshots.ts [out-dir]` (default docs/screenshots).
 * The real app in Chromium with no internet; 1280x800 light and dark, and 375x800 light.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { offlinePage } from '../helpers/browser';
import { LINK_SLUG, startPasswordSite } from '../helpers/password-site';
import { ROOT } from '../helpers/proc';

const outDir = process.argv[2] ?? join(ROOT, 'docs', 'screenshots');
mkdirSync(outDir, { recursive: true });
const SIZES = [
  { width: 1280, colorScheme: 'light' },
  { width: 1280, colorScheme: 'dark' },
  { width: 375, colorScheme: 'light' },
] as const;

const site = await startPasswordSite();
try {
  const { page } = await offlinePage(site.browser);
  for (const state of ['form', 'wrong'] as const) {
    for (const { width, colorScheme } of SIZES) {
      await page.setViewportSize({ width, height: 800 });
      await page.emulateMedia({ colorScheme });
      await page.goto(`${site.origin}/${LINK_SLUG}`);
      if (state === 'wrong') {
        await page.getByLabel('Password').fill('a wrong guess');
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.getByRole('alert').waitFor();
      }
      const file = join(outDir, `password-${state}-${width}-${colorScheme}.png`);
      await page.screenshot({ path: file });
      console.log(file);
    }
  }
} finally {
  await site.close();
}
