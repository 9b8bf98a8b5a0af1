/**
 * A person's first day with Slink, in Chromium against the service started as its own process
 * on loopback (`bun src/index.ts serve` in an empty folder, on SQLite and on PostgreSQL), nothing
 * stubbed: first-run setup from the address in the log, sign out and in, a link with utm params,
 * a real click on its short link, the click in the link's numbers, in the links list and the
 * workspace's statistics, a read key shown once and revoked, the link deleted with its clicks,
 * and sign-out. Its PostgreSQL pass is the dashboard's smoke test on that engine (the other
 * browser tests run on SQLite).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../helpers/browser';
import { expectCleanPage, offlinePage, waitUntil } from '../helpers/dashboard-browser';
import { DESKTOP_CHROME, firstSteps, type ServedProcess, serveProcess } from '../helpers/dashboard-process';
import { databaseEnv, forEachEngine } from '../helpers/engines';
import { BUN, cleanEnv, ROOT, run } from '../helpers/proc';
import { breakdownRows, totals } from '../helpers/stats-page';

const EMAIL = 'owner@example.com';
const PASSWORD = 'a long first password';

let served: ServedProcess;
let browser: Browser;
// Where the link leads: a page of its own on another loopback port, so the redirect completes.
let landing: ReturnType<typeof Bun.serve>;

/** GET /api/v1<path> with a key, as a script would. */
const withKey = (path: string, key: string) =>
  fetch(`${served.origin}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });

/** The number the link page shows under `label` (Clicks, Unique visitors, ...). */
const shownNumber = (page: Page, label: string) =>
  page
    .locator('.numbers div', { has: page.getByText(label, { exact: true }) })
    .locator('dd')
    .textContent();

/** The click as a person sees it: the link page's numbers, then its statistics page and chart. */
async function expectClickInStatistics(page: Page, linkId: string): Promise<void> {
  await waitUntil(async () => {
    await page.goto(`${served.origin}/app/links/${linkId}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    return (await shownNumber(page, 'Clicks')) === '1';
  });
  expect(await shownNumber(page, 'Unique visitors')).toBe('1');
  expect(await shownNumber(page, 'Bot hits')).toBe('0');
  // The link's statistics: the totals, the chart drawn, and its table holding the one click.
  await page.goto(`${served.origin}/app/links/${linkId}/stats?range=24h`);
  expect(await totals(page)).toMatchObject({ Clicks: '1', 'Unique visitors': '1', 'Bot hits': '0' });
  await page.locator('.stats-chart canvas').first().waitFor();
  await page.getByRole('button', { name: 'Show as table' }).click();
  const cells = await page
    .locator('#series-table tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '')),
    );
  const withClicks = cells.filter((row) => row[0] === '1');
  expect(withClicks).toEqual([['1', '1']]);
}

// One Chromium for both engines' journeys (each page has a context of its own).
beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

forEachEngine((engine) => {
  beforeAll(async () => {
    served = await serveProcess([BUN, `${ROOT}/src/index.ts`], cleanEnv(await databaseEnv(engine)));
    landing = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: () =>
        new Response('<!doctype html><title>Landed</title><h1>Landed</h1>', {
          headers: { 'content-type': 'text/html' },
        }),
    });
  }, 60_000);

  afterAll(async () => {
    landing?.stop(true);
    await served?.close();
  }, 30_000);

  test('setup, a link and its click, a key shown once, delete with clicks, sign out', async () => {
    // A person's browser: a desktop user agent, so the click below counts as a human's.
    const p = await offlinePage(browser, { userAgent: DESKTOP_CHROME, viewport: { width: 1280, height: 800 } });
    const { page } = p;
    await firstSteps(page, served, EMAIL, PASSWORD);
    // The operator's key, for checking from outside what the dashboard did.
    const cli = await run([BUN, `${ROOT}/src/index.ts`, 'key', 'create', '--user', EMAIL, '--scope', 'read'], {
      cwd: served.dir,
      env: served.env,
    });
    expect(cli.code).toBe(0);
    const operatorKey = cli.stdout.trim();

    // A link with utm params: pasted, they move into the params editor before anything is saved.
    const destination = `http://127.0.0.1:${landing.port}/spring?plan=pro`;
    await page.getByRole('button', { name: 'New link' }).click();
    const dialog = page.getByRole('dialog', { name: 'New link' });
    await dialog.getByLabel('Destination').fill(`${destination}&utm_source=newsletter&utm_campaign=spring`);
    await dialog.getByText('Moved utm_source, utm_campaign').waitFor();
    expect(await dialog.getByLabel('Destination').inputValue()).toBe(destination);
    expect(await dialog.getByLabel('Parameter 1 name').inputValue()).toBe('utm_source');
    expect(await dialog.getByLabel('Parameter 1 value').inputValue()).toBe('newsletter');
    expect(await dialog.getByLabel('Parameter 2 name').inputValue()).toBe('utm_campaign');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await page.getByText('Link created.').waitFor();
    const linkId = new URL(page.url()).pathname.split('/').pop()!;
    const shortUrl = (await page.locator('.short-url code').textContent())!;
    const slug = shortUrl.slice(served.origin.length + 1);
    expect(shortUrl).toBe(`${served.origin}/${slug}`);

    // Its short link, opened as a browser opens it: the redirect adds the params back.
    await page.goto(shortUrl);
    await page.getByRole('heading', { name: 'Landed' }).waitFor();
    expect(page.url()).toBe(`${destination}&utm_source=newsletter&utm_campaign=spring`);
    await expectClickInStatistics(page, linkId);
    // The links list holds it, and the workspace's statistics count its click under Top links.
    await page.goto(`${served.origin}/app`);
    await page.locator('.link-item').filter({ hasText: slug }).waitFor();
    await page.goto(`${served.origin}/app/stats?range=24h`);
    expect(await totals(page)).toMatchObject({ Clicks: '1', 'Unique visitors': '1', 'Bot hits': '0' });
    expect((await breakdownRows(page, 'Top links')).map((row) => row.slice(0, 2))).toEqual([[slug, '1']]);

    // A read key: its secret shown once, working, then nowhere after a reload; revoked, it fails.
    await page.goto(`${served.origin}/app/settings/keys`);
    await page.getByRole('button', { name: 'Create key' }).click();
    const keyDialog = page.getByRole('dialog', { name: 'New API key' });
    await keyDialog.getByLabel('Name').fill('journey');
    await keyDialog.getByRole('button', { name: 'Create', exact: true }).click();
    const secret = await keyDialog.getByLabel('Your new API key').inputValue();
    expect(secret).toMatch(/^slk_[A-Za-z0-9]{40}$/);
    const me = await withKey('/me', secret);
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ scope: 'read', account: { email: EMAIL } });
    await keyDialog.getByRole('button', { name: 'Done' }).click();
    await page.reload();
    await page.getByRole('button', { name: 'Revoke key journey' }).waitFor();
    const everything = await page.evaluate(
      `document.documentElement.outerHTML + [...document.querySelectorAll('input, textarea')].map((e) => e.value).join()`,
    );
    expect(everything).not.toContain(secret.slice(4));
    await page.getByRole('button', { name: 'Revoke key journey' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await page.getByRole('cell', { name: 'Revoked' }).waitFor();
    expect((await withKey('/me', secret)).status).toBe(401);

    // Deleting the link with its human click: only after typing its slug.
    await page.goto(`${served.origin}/app/links/${linkId}`);
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const confirm = page.getByRole('dialog').getByRole('button', { name: 'Delete link' });
    expect(await confirm.isDisabled()).toBe(true);
    await page.getByLabel('Type the slug to confirm').fill(slug);
    await confirm.click();
    await page.getByRole('heading', { name: 'No links yet' }).waitFor();
    expect((await withKey(`/links/${linkId}`, operatorKey)).status).toBe(404);

    // Signed out: the dashboard shows sign-in, and the session is gone on the server too.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await page.goto(`${served.origin}/app`);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/app/sign-in');
    expect((await page.request.get(`${served.origin}/api/app/session`)).status()).toBe(403);
    await expectCleanPage(p);
    await page.close();
  }, 120_000);
});
