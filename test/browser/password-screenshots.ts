import { join } from 'node:path';
import { offlinePage } from '../helpers/browser';
import { LINK_SLUG, startPasswordSite } from '../helpers/password-site';
import { SIZES, screenshotDir } from './screenshot-sizes';

const outDir = screenshotDir();

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
