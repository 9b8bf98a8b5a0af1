/**
 * A link's raw clicks on its statistics page in Chromium against the real app: the list read a
 * page at a time with the API's cursor, each value shown as text, bot hits only when asked for,
 * and the CSV download (same window, the session cookie authenticating it) holding the same rows.
 */
import { beforeAll, expect, test } from 'bun:test';
import { parse } from 'csv-parse/sync';
import { CLICK_FIELDS } from '../../src/modules/webhooks/click-record';
import { dashboardPerFile, expectCleanPage, signedInPage, waitUntil } from '../helpers/dashboard-browser';
import { createLink, createVariant, PLACES, visit } from '../helpers/stats-seed';
import { UA } from '../modules/clicks/support';

const d = dashboardPerFile({ SLINK_TRUST_PROXY: '1' });
const ids = { busy: '', mixed: '' };

beforeAll(async () => {
  const { key } = await signedInPage(d);
  ids.busy = await createLink(d.t, key, { slug: 'busy' });
  // Phones are sent by the link's first rule.
  ids.mixed = await createLink(d.t, key, {
    slug: 'mixed',
    rules: [{ when: { device: ['mobile'] }, destination: 'https://m.example.com/' }],
  });
  await createVariant(d.t, key, ids.mixed, { code: 'fb', params: {} });
  await visit(
    d.t,
    Array.from({ length: 55 }, (_, i) => ({ path: '/busy', ip: `10.0.0.${i + 1}` })),
  );
  d.t.clock.advance(60_000);
  await visit(d.t, [
    { path: '/mixed', ip: PLACES.london, ua: UA.chromeWin, referer: 'https://news.example.com/a', lang: 'en-GB' },
    { path: '/mixed/fb', ip: PLACES.mountainView, ua: UA.safariIphone },
    { path: '/mixed/zz', ip: PLACES.private, ua: UA.firefoxLinux, referer: 'https://t.co/x' },
    { path: '/mixed', ip: PLACES.sydney, ua: UA.googlebot },
  ]);
});

async function clicksOf(linkId: string, query = '') {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app/links/${linkId}/stats${query}`);
  const list = p.page.getByRole('region', { name: 'Clicks', exact: true });
  await list.getByRole('table').waitFor();
  const rows = async () =>
    Promise.all((await list.locator('tbody tr').all()).map((row) => row.locator('td').allTextContents()));
  return { ...p, list, rows };
}

test('the clicks list pages with its cursor: 50, then the last 5, then no more', async () => {
  const p = await clicksOf(ids.busy);
  expect(await p.rows()).toHaveLength(50);
  await p.list.getByRole('button', { name: 'Load more clicks' }).click();
  await waitUntil(async () => (await p.rows()).length === 55);
  expect(await p.list.getByRole('button', { name: 'Load more clicks' }).count()).toBe(0);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('each click: variant, rule, place, device, referrer, traffic, language; bot hits only with bots', async () => {
  const p = await clicksOf(ids.mixed);
  const shown = (await p.rows()).map((r) => r.slice(1));
  expect(shown).toEqual([
    ['zz (unrecognised)', '—', 'Unknown', 'Desktop · Linux · Firefox', 't.co', 'Social', 'Not given', 'No'],
    [
      'fb',
      'Rule 1',
      'Mountain View, United States',
      'Mobile · iOS · Mobile Safari',
      'Direct (no referrer)',
      'Direct',
      'Not given',
      'No',
    ],
    [
      '—',
      '—',
      'London, United Kingdom',
      'Desktop · Windows · Chrome',
      'news.example.com',
      'Referral',
      'British English (en-GB)',
      'No',
    ],
  ]);
  await p.page.getByLabel('Include bots').check();
  await waitUntil(async () => (await p.rows()).length === 4);
  expect((await p.rows())[0]!.slice(3)).toEqual([
    'Sydney, Australia',
    // A bot hit's browser is the bot's name.
    'Googlebot',
    'Direct (no referrer)',
    'Direct',
    'Not given',
    'Bot',
  ]);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('the CSV download is the window shown, authenticated by the session cookie', async () => {
  const p = await clicksOf(ids.mixed, '?range=7d');
  const link = p.list.getByRole('link', { name: 'Download CSV' });
  const href = (await link.getAttribute('href'))!;
  expect(href).toBe(`/api/v1/links/${ids.mixed}/export.csv?range=7d`);
  expect(await link.getAttribute('download')).toBe('mixed-clicks.csv');
  const res = await p.page.request.get(`${d.origin}${href}`);
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toBe('text/csv; charset=utf-8');
  expect(res.headers()['content-disposition']).toBe('attachment; filename="mixed-clicks.csv"');
  const [header, ...records] = parse(await res.text(), { relax_column_count: false }) as string[][];
  expect(header).toEqual([...CLICK_FIELDS]);
  const col = (name: string) => records.map((r) => r[CLICK_FIELDS.indexOf(name as never)]);
  expect(col('slug')).toEqual(['mixed', 'mixed', 'mixed']);
  expect(col('country')).toEqual(['', 'US', 'GB']);
  expect(col('referrer')).toEqual(['t.co', '', 'news.example.com']);
  expect(col('variantCode')).toEqual(['zz', 'fb', '']);
  expect(col('rule')).toEqual(['', '0', '']);
  expect(col('bot')).toEqual(['false', 'false', 'false']);
  // With bots in the window, the download follows.
  await p.page.getByLabel('Include bots').check();
  await waitUntil(async () => (await link.getAttribute('href'))!.endsWith('?range=7d&bots=1'));
  const withBots = parse(await (await p.page.request.get(`${d.origin}${await link.getAttribute('href')}`)).text());
  expect(withBots).toHaveLength(5);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);
