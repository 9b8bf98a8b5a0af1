/**
 * Settings › Import (a run done with the links it did not import, and one running) and a link
 * whose clicks were imported, from the real app in Chromium, reading a fake Shlink on loopback:
 * `bun run test/browser/screenshots-imports.ts [folder]` (default docs/screenshots).
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startShlinkFake } from '../fakes/shlink';
import { api } from '../helpers/app';
import { signedInPage, startDashboard, waitUntil } from '../helpers/dashboard-browser';
import { heldProxy } from './held-proxy';
import { SIZES, screenshotDir } from './screenshot-sizes';

const outDir = screenshotDir();

const day = (n: number) => new Date(Date.UTC(2026, 2, 1 + n, 12)).toISOString().replace('.000Z', '+00:00');
const visits = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    date: day(i),
    referer: 'https://news.example.com/',
    countryCode: 'DE',
    cityName: 'Berlin',
  }));
const created = '2026-03-01T10:00:00+00:00';
const shlink = startShlinkFake({
  apiKey: 'shlink-key',
  links: [
    {
      shortCode: 'spring-sale',
      longUrl: 'https://shop.example.com/spring/sale',
      title: 'Spring sale',
      dateCreated: created,
      visits: visits(14),
    },
    {
      shortCode: 'launch',
      longUrl: 'https://blog.example.com/2026/launch',
      title: 'Launch post',
      dateCreated: created,
      visits: visits(6),
    },
    {
      shortCode: 'press-kit',
      longUrl: 'https://files.example.com/press/2026/kit-with-a-rather-long-name-for-every-outlet-that-asked.zip',
      title: 'Press kit',
      dateCreated: created,
    },
    // Taken here already: skipped with its reason.
    { shortCode: 'pricing', longUrl: 'https://shop.example.com/pricing', dateCreated: created, visits: visits(3) },
    // Refused by Slink's rules: skipped with its reason.
    { shortCode: 'old-ftp', longUrl: 'ftp://files.example.com/price-list.pdf', dateCreated: created },
  ],
});
// 60 links: the second run shows its first page of 50 done while the rest waits.
const otherFake = startShlinkFake({ apiKey: 'other-key', generated: { links: 60, visitsPerLink: 3 }, pageCap: 50 });
// The second run's last link's visits wait, so it is shown running.
const running = heldProxy(otherFake.url);

// The fakes answer on loopback, an address import sources refuse unless allowed.
const d = await startDashboard({ SLINK_UPSTREAM_ALLOW_PRIVATE: '1' });
try {
  const p = await signedInPage(d);
  const key = p.key;
  const post = async (path: string, body: unknown) => (await api(d.t, 'POST', path, { key, body })).body;
  await post('/domains', { origin: 'https://go.example.com' });
  await post('/projects', { name: 'Moved from Shlink' });
  await post('/links', { destination: 'https://shop.example.com/pricing-2026', slug: 'pricing' });

  const { page } = p;
  const status = page.locator('.import-run [role="status"]');
  const start = async (origin: string, token: string) => {
    await page.goto(`${d.origin}/app/settings/import`);
    await page.getByLabel('Shlink address').fill(origin);
    await page.getByLabel('API key').fill(token);
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.locator('.import-run').waitFor();
    return new URL(page.url()).searchParams.get('run');
  };
  const done = await start(shlink.url, 'shlink-key');
  await waitUntil(async () => (await status.textContent())?.startsWith('Done') === true, 60_000);
  const release = running.hold('/short-urls/g59/visits');
  const going = await start(running.url, 'other-key');
  const imported = (await api(d.t, 'GET', '/links?q=spring%2Fsale', { key })).body.items[0];

  const shots: [string, string, (page: Page) => Promise<void>][] = [
    ['import', `/app/settings/import?run=${done}`, async () => status.getByText(/^Done/).waitFor()],
    [
      'import-running',
      `/app/settings/import?run=${going}`,
      async () => status.getByText('Running: 50 links read so far.').waitFor(),
    ],
    ['link-imported', `/app/links/${imported.id}`, async () => page.locator('.imported-note').waitFor()],
  ];
  for (const [name, path, ready] of shots) {
    for (const { width, colorScheme } of SIZES) {
      await page.setViewportSize({ width, height: 800 });
      await page.emulateMedia({ colorScheme });
      await page.goto(`${d.origin}${path}`);
      await ready(page);
      // The run is what the page is about: in view, as after pressing Import.
      if (name.startsWith('import')) await page.locator('.import-run').scrollIntoViewIfNeeded();
      await page.evaluate('document.activeElement.blur()');
      await page.mouse.move(0, 0);
      const file = join(outDir, `${name}-${width}-${colorScheme}.png`);
      await page.screenshot({ path: file });
      console.log(file);
    }
  }
  release();
} finally {
  await d.close();
  shlink.stop();
  running.stop();
  otherFake.stop();
}
