/**
 * Settings › Import in Chromium, as a person uses it (fill a field, click once): a CSV file
 * tried with a dry run (nothing written), then imported (its links in the list); a Shlink read
 * through its API (its fake, test/fakes/shlink.ts, on loopback) shown running then done, with
 * the history noted on the link's page; another cancelled while it runs; one failed, saying why;
 * the API's 400 under the field it names; a YOURLS read with a username and password instead of
 * its signature; and an editor told why the page is not theirs.
 * Screenshots go to SLINK_IMPORT_SHOTS when it names a folder.
 */
import { afterAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { startShlinkFake } from '../fakes/shlink';
import { startYourlsFake } from '../fakes/yourls';
import { api } from '../helpers/app';
import type { OfflinePage } from '../helpers/browser';
import {
  dashboardPerFile,
  expectCleanPage,
  expectUsableEverywhere,
  type RealSession,
  signedInPage,
  waitUntil,
} from '../helpers/dashboard-browser';
import { heldProxy } from './held-proxy';

// The fakes answer on loopback, an address import sources refuse unless allowed.
const d = dashboardPerFile({ SLINK_UPSTREAM_ALLOW_PRIVATE: '1' });
const SHOTS = process.env.SLINK_IMPORT_SHOTS;
const IMPORT = '/app/settings/import';

/** The run's sentence once it has ended (or "Running: ..."), in the run's status line. */
const runStatus = (page: Page) => page.locator('.import-run [role="status"]');

/** How many links the account's key sees whose destination contains `q`. */
async function linksMatching(p: RealSession, q: string): Promise<number> {
  const res = await api(d.t, 'GET', `/links?q=${encodeURIComponent(q)}`, { key: p.key });
  expect(res.status).toBe(200);
  return res.body.items.length;
}

let admin: OfflinePage & RealSession;
const adminPage = async () => {
  admin ??= await signedInPage(d);
  return admin;
};

const visit = (date: string) => ({ date, referer: 'https://news.example.com/', countryCode: 'DE', cityName: 'Berlin' });

// 51 links (two pages of the 50 a run reads at a time), two visits each.
// Pages of 50 (a Shlink may give fewer than asked): the run is seen with its first page done.
const shlinkFake = startShlinkFake({
  apiKey: 'shlink-secret-key',
  generated: { links: 51, visitsPerLink: 2 },
  pageCap: 50,
});
// In front of it, a proxy that holds a link's visits while a test looks at the run going.
const shlink = heldProxy(shlinkFake.url);
afterAll(() => {
  shlink.stop();
  shlinkFake.stop();
});

async function chooseFile(page: Page, source: 'CSV file' | 'Slink export', name: string, text: string) {
  await page.getByRole('radio', { name: source }).check();
  await page
    .getByLabel('File', { exact: true })
    .setInputFiles({ name, mimeType: 'text/csv', buffer: Buffer.from(text) });
}

const CSV = [
  'Long URL,Title,Tags,Clicks',
  'https://shop.example.com/csv/boots,Boots from the CSV,csv|boots,12',
  'https://shop.example.com/csv/hats,Hats from the CSV,csv,3',
].join('\n');

test('a dry run says what a CSV import would do and writes nothing; Import then makes the links', async () => {
  const p = await adminPage();
  const { page } = p;
  await page.goto(`${d.origin}${IMPORT}`);
  await page.getByRole('heading', { name: 'No imports yet' }).waitFor();
  await chooseFile(page, 'CSV file', 'links.csv', CSV);

  await page.getByRole('button', { name: 'Dry run' }).click();
  await page.getByRole('heading', { name: 'Dry run from CSV file' }).waitFor();
  await waitUntil(async () => /^Dry run: nothing was written\./.test((await runStatus(page).textContent()) ?? ''));
  expect(await runStatus(page).textContent()).toBe('Dry run: nothing was written. 2 links would be created.');
  // A dry run brings no clicks over: it counts none.
  expect(await page.locator('.import-run dd').allInnerTexts()).toEqual(['2', '2', '0', '0']);
  expect(await linksMatching(p, '/csv/')).toBe(0);
  // Listed with the past runs, as a dry run.
  await page.getByRole('cell', { name: /CSV file\s*Dry run/ }).waitFor();
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/import-dry-run-light.png`, fullPage: true });

  // The file is still chosen: one click imports it.
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await page.getByRole('heading', { name: 'Import from CSV file' }).waitFor();
  await waitUntil(async () => (await runStatus(page).textContent()) === 'Done: 2 links created.');
  expect(await page.locator('.import-run progress').getAttribute('value')).toBe('1');
  await waitUntil(async () => (await page.locator('.import-runs tbody tr').count()) === 2);
  // Each past run says where it read from: a file, for these two (started the same second: in either order).
  expect((await page.locator('.import-runs td.import-source').allInnerTexts()).sort()).toEqual([
    'CSV file\na file',
    'CSV file Dry run\na file',
  ]);
  const report = page.locator('.import-run').getByRole('link', { name: 'Download report (CSV)' });
  const reportRes = await p.page.request.get(`${d.origin}${await report.getAttribute('href')}`);
  expect(reportRes.status()).toBe(200);
  expect(await reportRes.text()).toMatch(
    /^row 1 https:\/\/shop\.example\.com\/csv\/boots,created,https:\/\/sl\.test\/\w+,\r?$/m,
  );
  expect(await linksMatching(p, '/csv/')).toBe(2);

  // The same file again: nothing new, and the run says why it skipped every link (none is a refusal).
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  await waitUntil(async () => (await page.locator('.import-runs tbody tr').count()) === 3);
  await waitUntil(async () => /^Done/.test((await runStatus(page).textContent()) ?? ''));
  expect(await runStatus(page).textContent()).toBe(
    'Done: Nothing new. All 2 links were already imported by an earlier run of this source.',
  );
  expect(await page.locator('.import-run dd').allInnerTexts()).toEqual(['2', '0', '2', '0', '0']);
  expect(await page.getByRole('heading', { name: 'Not imported' }).count()).toBe(0);
  expect(await linksMatching(p, '/csv/')).toBe(2);

  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Links' }).click();
  await page.getByText('Boots from the CSV').waitFor();
  await page.getByText('Hats from the CSV').waitFor();
  // With the clicks column's totals.
  expect(await page.getByText('12 clicks').count()).toBe(1);
  expect(await page.getByText('3 clicks').count()).toBe(1);
  await expectCleanPage(p);
}, 90_000);

test('a Shlink read through its API: running with its progress, then done, its history noted on the link', async () => {
  const p = await adminPage();
  const { page } = p;
  // The last link's visits wait: the run is seen going, its first page of links done.
  const release = shlink.hold('/short-urls/g50/visits');
  await page.goto(`${d.origin}${IMPORT}`);
  await page.getByRole('radio', { name: 'Shlink' }).check();
  await page.getByLabel('Shlink address').fill(shlink.url);
  await page.getByLabel('API key').fill('shlink-secret-key');
  await page.getByRole('button', { name: 'Import', exact: true }).click();

  // While they are held, the run is running: the bar, the numbers of the first page, Cancel.
  await page.getByRole('heading', { name: 'Import from Shlink' }).waitFor();
  await waitUntil(async () => (await runStatus(page).textContent()) === 'Running: 50 links read so far.');
  expect(await page.locator('.import-run .badge').textContent()).toBe('Running');
  expect(await page.getByRole('progressbar', { name: 'Progress' }).count()).toBe(1);
  expect(await page.locator('.import-run dd').allInnerTexts()).toEqual(['50', '50', '0', '0', '100']);
  // Its row in the list below says the same.
  const row = page.locator('.import-runs tbody tr', { hasText: 'Running' });
  // Where it reads from under the source's name: the address as given (it has no user, password or query).
  expect((await row.locator('td').allInnerTexts()).slice(1, 7)).toEqual([
    `Shlink\n${shlink.url.replace(/\/+$/, '')}`,
    'Running',
    '50',
    '0',
    '0',
    '100',
  ]);
  expect(await page.getByRole('button', { name: 'Cancel import' }).count()).toBe(1);
  // The token was sent once: the field is empty again, and nothing on the page holds it.
  expect(await page.getByLabel('API key').inputValue()).toBe('');
  expect(await page.content()).not.toContain('shlink-secret-key');
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/import-running-light.png`, fullPage: true });

  release();
  await waitUntil(async () => (await runStatus(page).textContent()) === 'Done: 51 links created.');
  expect(await page.locator('.import-run dd').allInnerTexts()).toEqual(['51', '51', '0', '0', '102']);
  expect(await page.locator('.import-run progress').getAttribute('value')).toBe('1');
  expect(await page.getByRole('button', { name: 'Cancel import' }).count()).toBe(0);

  // The link's page says where its earlier clicks came from.
  const found = await api(d.t, 'GET', '/links?q=example.com%2Fpage%2F7', { key: p.key });
  const link = found.body.items.find((l: { destination: string }) => l.destination === 'https://example.com/page/7');
  await page.goto(`${d.origin}/app/links/${link.id}`);
  await page.getByText(/imported from Shlink/).waitFor();
  expect(await page.locator('.imported-note').textContent()).toMatch(
    /^2 clicks before 2026-11-21 UTC imported from Shlink\.$/,
  );
  await expectCleanPage(p);
}, 90_000);

test('Cancel stops a run that is still going', async () => {
  const p = await adminPage();
  const { page } = p;
  const otherFake = startShlinkFake({
    apiKey: 'another-key',
    links: [
      {
        shortCode: 'autumn',
        longUrl: 'https://shop.example.com/imported/autumn',
        dateCreated: '2026-03-01T10:00:00+00:00',
        visits: [visit('2026-03-02T12:00:00+00:00')],
      },
    ],
  });
  const other = heldProxy(otherFake.url);
  const release = other.hold('itemsPerPage=200');
  try {
    await page.goto(`${d.origin}${IMPORT}`);
    await page.getByLabel('Shlink address').fill(other.url);
    await page.getByLabel('API key').fill('another-key');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('button', { name: 'Cancel import' }).click();
    await waitUntil(async () => (await runStatus(page).textContent())?.startsWith('Cancelled') === true);
    expect(await page.locator('.import-run .badge').textContent()).toBe('Cancelled');
    expect(await page.getByRole('button', { name: 'Cancel import' }).count()).toBe(0);

    // The run as its address shows it again (?run=), with the past runs: light, dark, narrow.
    const runAddress = page.url();
    const show = async () => {
      await page.goto(runAddress);
      await page.locator('.import-run .badge', { hasText: 'Cancelled' }).waitFor();
      await page.locator('.import-runs tbody tr').first().waitFor();
    };
    await expectUsableEverywhere(page, show);
    // On a desktop screen the past runs fit whole, a dry run's mark and a cancelled run among
    // them: their Report buttons are not cut off at the edge.
    await show();
    const wrap = page.locator('.import-runs .table-wrap');
    expect(await wrap.evaluate((el) => el.scrollWidth - el.clientWidth)).toBe(0);
    if (SHOTS) {
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        await show();
        await page.screenshot({ path: `${SHOTS}/import-cancelled-${colorScheme}.png`, fullPage: true });
      }
      await page.emulateMedia({ colorScheme: 'light' });
    }
    await expectCleanPage(p);
  } finally {
    release();
    other.stop();
    otherFake.stop();
  }
}, 60_000);

test('a run the source stops answering ends failed, and says why', async () => {
  const p = await adminPage();
  const { page } = p;
  const failing = heldProxy(shlinkFake.url);
  // The check before the start passes; the run's first page of links is refused.
  failing.refuse('itemsPerPage=200', 401);
  try {
    await page.goto(`${d.origin}${IMPORT}`);
    await page.getByLabel('Shlink address').fill(failing.url);
    await page.getByLabel('API key').fill('shlink-secret-key');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await waitUntil(async () => (await runStatus(page).textContent())?.startsWith('Failed') === true);
    expect(await runStatus(page).textContent()).toBe(
      'Failed: 0 links created before it stopped. The errors below say why.',
    );
    expect(await page.locator('.import-run .badge').textContent()).toBe('Failed');
    // No full bar for a run that did not finish.
    expect(await page.locator('.import-run progress').count()).toBe(0);
    const cells = await page.locator('.import-errors tbody tr').first().locator('td').allInnerTexts();
    expect(cells[0]).toBe('The run');
    expect(cells[1]).toContain('Shlink refused the API key (401');
  } finally {
    failing.stop();
  }
}, 60_000);

test("the API's 400 shows under the field it names", async () => {
  const p = await adminPage();
  const { page } = p;
  await page.goto(`${d.origin}${IMPORT}`);
  await page.getByLabel('Shlink address').fill('ftp://files.example.com');
  await page.getByLabel('API key').fill('anything');
  await page.getByRole('button', { name: 'Import', exact: true }).click();
  const address = page.getByLabel('Shlink address');
  await waitUntil(async () => (await address.getAttribute('aria-invalid')) === 'true');
  const describedBy = (await address.getAttribute('aria-describedby'))!.split(' ');
  const error = page.locator(`[id="${describedBy.at(-1)}"]`);
  expect(await error.getAttribute('class')).toBe('field-error');
  expect(await error.textContent()).toBe("Use the service's full address, such as https://s.example.com.");
  // The failed call's focus goes to the field in error (after the render that marks it); no run started.
  await waitUntil(
    async () =>
      (await page.evaluate('document.activeElement === document.querySelector("[aria-invalid=true]")')) === true,
  );
  expect(await page.locator('.import-run').count()).toBe(0);

  // A key the source refuses is said under the key, in the source's words.
  await page.getByLabel('Shlink address').fill(shlink.url);
  await page.getByLabel('API key').fill('not-the-key');
  await page.getByRole('button', { name: 'Dry run' }).click();
  const key = page.getByLabel('API key');
  await waitUntil(async () => (await key.getAttribute('aria-invalid')) === 'true');
  const keyError = page.locator(`[id="${(await key.getAttribute('aria-describedby'))!.split(' ').at(-1)}"]`);
  expect(await keyError.textContent()).toContain('Shlink refused the API key (401 Invalid API key');
  // Refused too, the key was sent once: the field is empty.
  expect(await key.inputValue()).toBe('');
  expect(await address.getAttribute('aria-invalid')).toBeNull();
  expect(await page.locator('.import-run').count()).toBe(0);

  // A file source without its file says so under File, before anything is sent.
  await page.getByRole('radio', { name: 'CSV file' }).check();
  await page.getByRole('button', { name: 'Dry run' }).click();
  await page.locator('.field-error', { hasText: 'Choose the file to import.' }).waitFor();

  await expectCleanPage(p);
}, 90_000);

test('a YOURLS signs in with a username and password instead of its signature token', async () => {
  const p = await adminPage();
  const { page } = p;
  const yourls = startYourlsFake({
    username: 'ada',
    password: 'pa:ss word',
    links: [
      { keyword: 'yold', url: 'https://shop.example.com/yourls/old', timestamp: '2026-02-01 10:00:00', clicks: 9 },
    ],
  });
  try {
    await page.goto(`${d.origin}${IMPORT}`);
    await page.getByRole('radio', { name: 'YOURLS' }).check();
    await page.getByLabel('YOURLS address').fill(yourls.site);
    // The signature token is the first way; the other shows a username and a password instead.
    expect(await page.getByRole('radio', { name: 'Signature token' }).isChecked()).toBe(true);
    expect(await page.getByLabel('Password', { exact: true }).count()).toBe(0);
    await page.getByRole('radio', { name: 'Username and password' }).check();
    // The radio keeps its name; the token's own field is gone, one password field left.
    expect(await page.getByLabel('Signature token').count()).toBe(1);
    expect(await page.locator('input[type="password"]').count()).toBe(1);

    // A wrong password: YOURLS's refusal under Password, which is emptied; the username stays.
    await page.getByLabel('Username', { exact: true }).fill('ada');
    await page.getByLabel('Password', { exact: true }).fill('wrong');
    await page.getByRole('button', { name: 'Dry run' }).click();
    const password = page.getByLabel('Password', { exact: true });
    await waitUntil(async () => (await password.getAttribute('aria-invalid')) === 'true');
    const said = page.locator(`[id="${(await password.getAttribute('aria-describedby'))!.split(' ').at(-1)}"]`);
    expect(await said.textContent()).toContain('YOURLS refused the credentials (403 Invalid username or password)');
    expect(await password.inputValue()).toBe('');
    expect(await page.getByLabel('Username', { exact: true }).inputValue()).toBe('ada');

    // A username with a colon cannot be sent as username:password: said under Username, nothing sent.
    await page.getByLabel('Username', { exact: true }).fill('a:da');
    await page.getByLabel('Password', { exact: true }).fill('pa:ss word');
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.locator('.field-error', { hasText: 'A username cannot hold a colon.' }).waitFor();
    expect(await page.locator('.import-run').count()).toBe(0);

    // Filled then one click: the run reads YOURLS with them (a password holding a colon too).
    await page.getByLabel('Username', { exact: true }).fill('ada');
    await page.getByLabel('Password', { exact: true }).fill('pa:ss word');
    if (SHOTS) {
      for (const colorScheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme });
        await page.screenshot({ path: `${SHOTS}/import-yourls-password-${colorScheme}.png`, fullPage: true });
      }
      await page.emulateMedia({ colorScheme: 'light' });
    }
    await page.getByRole('button', { name: 'Import', exact: true }).click();
    await page.getByRole('heading', { name: 'Import from YOURLS' }).waitFor();
    // YOURLS answered its link: read, then skipped since its host is none of this Slink's domains
    // (a refusal would have failed the run).
    await waitUntil(async () => (await runStatus(page).textContent()) === 'Done: 0 links created, 1 skipped.');
    const cells = await page.locator('.import-errors tbody tr').first().locator('td').allInnerTexts();
    expect(cells).toEqual([`${yourls.site}/yold`, expect.stringContaining("is not one of this Slink's domains")]);
    expect(await page.getByLabel('Password', { exact: true }).inputValue()).toBe('');
    expect(await page.content()).not.toContain('pa:ss word');
    await expectCleanPage(p);
  } finally {
    yourls.stop();
  }
}, 60_000);

test('an editor sees why the page is not theirs, and no Import in Settings', async () => {
  const p = await signedInPage(d, false);
  await p.page.goto(`${d.origin}/app/settings`);
  await p.page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'API keys' }).waitFor();
  expect(await p.page.getByRole('link', { name: 'Import' }).count()).toBe(0);
  await p.page.goto(`${d.origin}${IMPORT}`);
  await p.page.getByRole('heading', { name: 'Only admins can import links', level: 1 }).waitFor();
  await p.page.getByText('Your account is an editor. Ask an admin if you need a change here.').waitFor();
  expect(await p.page.getByRole('button', { name: 'Import' }).count()).toBe(0);
  await p.page.close();
}, 60_000);
