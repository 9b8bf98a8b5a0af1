/**
 * Writes the dashboard's screenshots: `bun run test/browser/screenshots.ts [out-dir]` (default
 * docs/screenshots), rendered by the real app in Chromium with no internet. The sign-in page at
 * 1280x800 and 375x800; the links list with data (an expired link and one at its click limit
 * that sends visitors to its fallback among them, one with a password and one with rules), a
 * link's page, an expired link's page, the page of the link at its click limit (its Status panel
 * names the fallback), its slug change asking first, a link's rules with the rules test beside
 * them (also at 375x800), the API keys page with a new key shown once and an admin's view of
 * the other accounts' keys, the sessions page, a new key limited to a project, the accounts page
 * and an account being changed, at 1280x800; each light and dark.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { createAccount } from '../../src/modules/auth/accounts';
import { createApiKey } from '../../src/modules/auth/keys';
import { api } from '../helpers/app';
import { dash, PASSWORD } from '../helpers/dashboard';
import { type Dashboard, offlinePage, startDashboard } from '../helpers/dashboard-browser';
import { DESKTOP_CHROME } from '../helpers/dashboard-process';
import { ROOT } from '../helpers/proc';

const outDir = process.argv[2] ?? join(ROOT, 'docs', 'screenshots');
const SCHEMES = ['light', 'dark'] as const;
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';

const RULES = [
  {
    when: { device: ['mobile'], os: ['iOS'] },
    destination: 'https://apps.apple.com/app/example-shop',
    params: { utm_source: 'ios' },
  },
  {
    when: { country: ['FR', 'BE'], language: ['fr'], query: { ref: 'partner', promo: null } },
    destination: 'https://shop.example.com/fr/soldes',
  },
  {
    when: { after: Date.UTC(2026, 11, 1), before: Date.UTC(2026, 11, 25) },
    destination: 'https://shop.example.com/advent',
  },
];

const LINKS = [
  {
    slug: 'spring',
    title: 'Spring sale',
    destination: 'https://shop.example.com/sale?season=spring',
    tags: ['campaign'],
    clicks: 42,
    rules: RULES,
    preview: { title: 'Spring sale: 30% off', description: 'Everything in the spring collection, this week only.' },
  },
  {
    slug: 'docs',
    title: 'Getting started guide',
    destination: 'https://docs.example.com/start',
    tags: ['docs'],
    clicks: 17,
  },
  {
    slug: 'launch',
    title: 'Launch announcement',
    destination: 'https://blog.example.com/2026/launch',
    tags: ['blog', 'campaign'],
    clicks: 128,
    rules: RULES.slice(0, 2),
  },
  // Three clicks of three: visitors go to its fallback address.
  {
    slug: 'careers',
    title: null,
    destination: 'https://example.com/careers',
    tags: [],
    clicks: 3,
    clickLimit: 3,
    fallbackUrl: 'https://example.com/jobs-closed',
  },
  {
    slug: 'webinar',
    title: 'Webinar sign-up',
    destination: 'https://events.example.com/webinar?id=11',
    tags: ['events'],
    clicks: 0,
    // Without clicks: a protected link's seeded visits would get the password form.
    password: 'correct horse battery',
    // Expired an hour after it was made (the list is seen days later).
    expiresIn: 3_600_000,
  },
];

/** An account with links, clicks, keys and two sessions; returns the ids of the first and last links. */
async function seed(d: Dashboard, page: Page): Promise<{ first: string; last: string; ids: string[] }> {
  const account = await createAccount(d.t.deps, { email: 'ada@example.com', password: PASSWORD, superuser: true });
  const { key } = await createApiKey(d.t.deps, {
    accountId: account.id,
    scope: 'write',
    expiresAt: null,
    name: 'CI deploy',
  });
  // Projects, a key limited to one, and people of every role (the accounts page).
  const spring = (await api(d.t, 'POST', '/projects', { key, body: { name: 'Spring sale' } })).body.id;
  const news = (await api(d.t, 'POST', '/projects', { key, body: { name: 'Newsletter' } })).body.id;
  await createApiKey(d.t.deps, {
    accountId: account.id,
    scope: 'read',
    expiresAt: null,
    name: 'Reporting',
    projects: [spring],
  });
  const bo = await createAccount(d.t.deps, {
    email: 'bo@example.com',
    password: PASSWORD,
    role: 'editor',
    projects: [spring, news],
  });
  // Another account's key: what an admin sees under "Other accounts' keys".
  await createApiKey(d.t.deps, { accountId: bo.id, scope: 'write', name: 'Newsletter sync', projects: [news] });
  await createAccount(d.t.deps, { email: 'cy@example.com', password: PASSWORD, role: 'viewer' });
  const params = { utm_source: 'newsletter', utm_medium: 'email' };
  let first = '';
  let last = '';
  const ids: string[] = [];
  for (const { clicks, expiresIn, ...link } of LINKS) {
    // A day apart, so the list's order (newest first) and dates read naturally.
    d.t.clock.advance(86_400_000);
    const expiresAt = expiresIn === undefined ? undefined : d.t.clock.now() + expiresIn;
    const created = await api(d.t, 'POST', '/links', { key, body: { ...link, expiresAt, params } });
    first ||= created.body.id;
    last = created.body.id;
    ids.push(created.body.id);
    await api(d.t, 'POST', `/links/${created.body.id}/variants`, {
      key,
      body: { code: 'fb', params: { utm_source: 'facebook' } },
    });
    for (let i = 0; i < clicks; i++) {
      const ua = i % 3 ? DESKTOP_CHROME : IPHONE;
      await d.t.app.handle(new Request(`https://sl.test/${link.slug}`, { headers: { 'user-agent': ua } }));
    }
  }
  await d.t.deps.clicks.flusher.flush();
  // Seen a day after the last link was made: the webinar link has expired by then.
  d.t.clock.advance(86_400_000);
  const other = { email: account.email, password: PASSWORD };
  await dash(d.t, 'POST', '/session', { body: other, headers: { 'user-agent': IPHONE } });
  await page.request.post(`${d.origin}/api/app/session`, { data: other, headers: { 'sec-fetch-site': 'same-origin' } });
  return { first, last, ids };
}

async function shoot(page: Page, name: string, width: number): Promise<void> {
  for (const colorScheme of SCHEMES) {
    await page.emulateMedia({ colorScheme });
    const file = join(outDir, `${name}-${width}-${colorScheme}.png`);
    await page.screenshot({ path: file });
    console.log(file);
  }
}

mkdirSync(outDir, { recursive: true });
const d = await startDashboard();
try {
  const signedOut = (await offlinePage(d.browser)).page;
  for (const width of [1280, 375]) {
    await signedOut.setViewportSize({ width, height: 800 });
    await signedOut.goto(`${d.origin}/app/sign-in`);
    await signedOut.getByRole('heading', { name: 'Sign in' }).waitFor();
    await shoot(signedOut, 'sign-in', width);
  }

  const { page } = await offlinePage(d.browser, { userAgent: DESKTOP_CHROME, viewport: { width: 1280, height: 800 } });
  const { first: linkId, last: expiredId, ids } = await seed(d, page);
  await page.goto(`${d.origin}/app`);
  await page
    .locator('.link-item')
    .nth(LINKS.length - 1)
    .waitFor();
  await shoot(page, 'links', 1280);

  await page.goto(`${d.origin}/app/links/${expiredId}`);
  await page.getByRole('img', { name: /QR code/ }).waitFor();
  await page.waitForSelector('img.qr-image[src]');
  await shoot(page, 'link-expired', 1280);

  // At its click limit with a fallback address: the Status panel says where visitors go.
  await page.goto(`${d.origin}/app/links/${ids[LINKS.findIndex((l) => l.slug === 'careers')]}`);
  await page.getByRole('img', { name: /QR code/ }).waitFor();
  await page.waitForSelector('img.qr-image[src]');
  await shoot(page, 'link-fallback', 1280);

  await page.goto(`${d.origin}/app/links/${linkId}`);
  await page.getByRole('img', { name: /QR code/ }).waitFor();
  await page.waitForSelector('img.qr-image[src]');
  await shoot(page, 'link', 1280);

  // The rules, with a visit filled into the rules test beside them.
  const rulesTest = page.getByRole('region', { name: 'Test the rules' });
  await rulesTest.getByLabel('User agent').fill(IPHONE);
  await rulesTest.getByLabel('Query').fill('ref=partner');
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 800 });
    await page.getByRole('group', { name: 'Rules', exact: true }).evaluate((rules) => rules.scrollIntoView());
    await page.evaluate('window.scrollBy(0, -16)');
    await page.evaluate('document.activeElement.blur()');
    await shoot(page, 'link-rules', width);
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.evaluate('window.scrollTo(0, 0)');

  // A new slug asks first: the old address, the new one, and what stops working.
  await page.getByRole('region', { name: 'Details' }).getByLabel('Slug').fill('spring-2027');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByRole('dialog', { name: "Change the short link's address?" }).waitFor();
  await shoot(page, 'link-rename', 1280);

  await page.goto(`${d.origin}/app/settings/keys`);
  await page.getByRole('button', { name: 'Create key' }).click();
  await page.getByLabel('Name').fill('Zapier');
  await page.getByRole('button', { name: 'Create', exact: true }).click();
  await page.getByLabel('Your new API key').waitFor();
  await shoot(page, 'keys', 1280);

  // An admin's view of the other accounts' keys, below their own.
  await page.getByRole('button', { name: 'Done' }).click();
  const others = page.getByRole('region', { name: "Other accounts' keys" });
  await others.getByRole('cell', { name: 'bo@example.com', exact: true }).waitFor();
  await others.scrollIntoViewIfNeeded();
  await shoot(page, 'keys-others', 1280);

  await page.goto(`${d.origin}/app/settings/sessions`);
  await page.locator('.session-item').nth(1).waitFor();
  await shoot(page, 'sessions', 1280);

  // A key limited to a project: the dialog explains what the limit means.
  await page.goto(`${d.origin}/app/settings/keys`);
  await page.getByRole('button', { name: 'Create key' }).click();
  const keyDialog = page.getByRole('dialog', { name: 'New API key' });
  await keyDialog.getByLabel('Name').fill('Spring landing page');
  await keyDialog.getByLabel('Create only').check();
  await keyDialog.getByRole('group', { name: 'Projects' }).getByLabel('Only these').check();
  await keyDialog.getByLabel('Spring sale').check();
  await shoot(page, 'key-limits', 1280);

  // Every account with its role and projects, and one being changed.
  await page.goto(`${d.origin}/app/settings/accounts`);
  await page.getByRole('cell', { name: 'Spring sale, Newsletter' }).waitFor();
  await shoot(page, 'accounts', 1280);
  await page.getByRole('button', { name: 'Change role and projects of bo@example.com' }).click();
  await page.getByRole('dialog', { name: 'Change bo@example.com' }).waitFor();
  await shoot(page, 'account-change', 1280);
} finally {
  await d.close();
}
