/**
 * The statistics page under the privacy switches, in Chromium against the real app: an opted-out
 * click (Sec-GPC: 1) is a line of the totals, explained; with SLINK_GEO=country and
 * SLINK_REFERRER=none the city and referrer panels say "Not collected" instead of an unknown bar,
 * in light and dark (screenshots under /tmp/gpc-shots when SLINK_SHOTS is set).
 */
import { beforeAll, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { dashboardPerFile, expectCleanPage, seriousA11yViolations, signedInPage } from '../helpers/dashboard-browser';
import { breakdownRows, totals } from '../helpers/stats-page';
import { createLink, PLACES, visit } from '../helpers/stats-seed';
import { UA } from '../modules/clicks/support';

const d = dashboardPerFile({ SLINK_TRUST_PROXY: '1', SLINK_GEO: 'country', SLINK_REFERRER: 'none' });
let linkId = '';

beforeAll(async () => {
  const { key } = await signedInPage(d);
  linkId = await createLink(d.t, key, { slug: 'quiet' });
  await visit(d.t, [
    { path: '/quiet', ip: PLACES.london, ua: UA.chromeWin, referer: 'https://news.example.com/a', lang: 'en-GB' },
    { path: '/quiet', ip: PLACES.mountainView, ua: UA.safariIphone },
    { path: '/quiet', ip: PLACES.frankfurt, ua: UA.edgeMac, lang: 'de-DE', gpc: true },
  ]);
});

test('opted-out clicks are a line of the totals; not collected dimensions say so', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app/links/${linkId}/stats?range=24h`);
  await p.page.getByRole('heading', { name: 'Statistics of quiet', level: 1 }).waitFor();
  expect(await totals(p.page)).toEqual({ Clicks: '3', 'Unique visitors': '2', 'Bot hits': '0', 'Opted out': '1' });
  const panel = p.page.getByRole('region', { name: 'Totals' });
  expect(await panel.textContent()).toContain('Opted out: counted in the clicks, never profiled');
  // Countries are kept: the opted-out click is the unknown one.
  expect((await breakdownRows(p.page, 'Countries')).map((r) => r.slice(0, 2))).toEqual([
    ['United Kingdom (GB)', '1'],
    ['United States (US)', '1'],
    ['Unknown', '1'],
  ]);
  for (const title of ['Cities', 'Referrers']) {
    const region = p.page.getByRole('region', { name: title, exact: true });
    expect(await region.textContent()).toContain('Not collected.');
    expect(await breakdownRows(p.page, title)).toEqual([]);
  }
  const shots = process.env.SLINK_SHOTS ? '/tmp/gpc-shots' : null;
  if (shots) mkdirSync(shots, { recursive: true });
  for (const colorScheme of ['light', 'dark'] as const) {
    await p.page.emulateMedia({ colorScheme });
    expect({ colorScheme, violations: await seriousA11yViolations(p.page) }).toEqual({ colorScheme, violations: [] });
    if (shots) {
      await p.page.setViewportSize({ width: 1280, height: 900 });
      await p.page.getByRole('region', { name: 'Totals' }).screenshot({ path: `${shots}/totals-${colorScheme}.png` });
      await p.page
        .getByRole('region', { name: 'Cities', exact: true })
        .screenshot({ path: `${shots}/cities-${colorScheme}.png` });
      await p.page
        .getByRole('region', { name: 'Referrers', exact: true })
        .screenshot({ path: `${shots}/referrers-${colorScheme}.png` });
    }
  }
  await expectCleanPage(p);
  await p.page.close();
}, 120_000);
