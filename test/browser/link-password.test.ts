/**
 * A protected link in Chromium with no internet: the password form renders under its CSP with
 * nothing blocked and no serious axe finding (light and dark, 375 px wide), a wrong password
 * shows the message tied to the field, and a person who types the password and clicks
 * `Continue` once lands on the destination (a local page), with one click recorded; the unlock
 * cookie then takes them straight through. A check that gets no slot in time shows the 503
 * page, as clean as the form.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { apiExpecting, makeKey } from '../helpers/app';
import { expectCleanPage, expectUsableEverywhere, offlinePage } from '../helpers/dashboard-browser';
import { DESKTOP_CHROME } from '../helpers/dashboard-process';
import { holdChecks } from '../helpers/held-checks';
import {
  LANDING_HEADING,
  LINK_PASSWORD,
  LINK_SLUG,
  type PasswordSite,
  startPasswordSite,
} from '../helpers/password-site';

let site: PasswordSite;
beforeAll(async () => {
  site = await startPasswordSite();
});
afterAll(() => site.close());

async function counts() {
  expect(await site.t.deps.clicks.flusher.flush()).toBe(true);
  const { key } = await makeKey(site.t, 'read', { superuser: true });
  const link = await apiExpecting(site.t, key, 'GET', `/links/${site.linkId}`);
  return { clickCount: link.clickCount, botCount: link.botCount };
}

test('a person types the password, clicks Continue once, and lands on the destination', async () => {
  // A desktop browser's agent: HeadlessChrome's own is a bot, whose click would not count as one.
  const p = await offlinePage(site.browser, { userAgent: DESKTOP_CHROME });
  const { page } = p;
  const form = await page.goto(`${site.origin}/${LINK_SLUG}`);
  expect(form?.status()).toBe(200);
  expect(await page.title()).toBe('Password required');
  await page.getByRole('heading', { name: 'Password required' }).waitFor();
  // The field has the focus at once, by its label.
  expect(await page.evaluate('document.activeElement.id')).toBe('password');
  await expectUsableEverywhere(page, async () => {
    await page.goto(`${site.origin}/${LINK_SLUG}`);
  });
  await expectCleanPage(p);

  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('alert').waitFor();
  expect(await page.getByRole('alert').textContent()).toBe('That password is not right. Try again.');
  expect(await page.getByLabel('Password').getAttribute('aria-describedby')).toBe('password-error');
  expect(await page.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');
  await expectUsableEverywhere(page, async () => {});
  await expectCleanPage(p);
  expect(await counts()).toEqual({ clickCount: 0, botCount: 0 });

  await page.getByLabel('Password').fill(LINK_PASSWORD);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByRole('heading', { name: LANDING_HEADING }).waitFor();
  expect(page.url()).toBe(site.destination);
  expect(await counts()).toEqual({ clickCount: 1, botCount: 0 });

  // The unlock cookie: straight through, without the form, counted again.
  await page.goto(`${site.origin}/${LINK_SLUG}`);
  await page.getByRole('heading', { name: LANDING_HEADING }).waitFor();
  expect(page.url()).toBe(site.destination);
  expect(await counts()).toEqual({ clickCount: 2, botCount: 0 });
  expect(p.blocked).toEqual([]);
  await page.close();
}, 90_000);

test('a check that gets no slot in time: the 503 page, in the form page’s style, clean in light and dark', async () => {
  const verify = site.t.deps.verifyPassword;
  const slots = site.t.deps.verificationSlots;
  const waitMs = slots.limits.waitMs;
  // Every slot held by a guess the test keeps open; a wait that has certainly passed meanwhile.
  const checks = holdChecks(site.t);
  slots.limits.waitMs = 1;
  try {
    const held = Array.from({ length: slots.limits.verifying }, () =>
      fetch(`${site.origin}/${LINK_SLUG}`, { headers: { 'x-slink-password': 'a guess held open' } }),
    );
    await checks.nth(slots.limits.verifying - 1);
    const p = await offlinePage(site.browser, { userAgent: DESKTOP_CHROME });
    const { page } = p;
    const submitted = async () => {
      await page.goto(`${site.origin}/${LINK_SLUG}`);
      await page.getByLabel('Password').fill(LINK_PASSWORD);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('alert').waitFor();
    };
    const answer = page.waitForResponse((res) => res.request().method() === 'POST');
    await submitted();
    expect({ status: (await answer).status(), retryAfter: (await answer).headers()['retry-after'] }).toEqual({
      status: 503,
      retryAfter: '5',
    });
    expect(await page.getByRole('alert').textContent()).toBe(
      'The server is too busy to check the password right now. Try again in 5 seconds.',
    );
    expect(await page.getByLabel('Password').getAttribute('aria-invalid')).toBe('true');
    await expectUsableEverywhere(page, submitted);
    await expectCleanPage(p);
    await page.close();
    checks.answerAll(() => false);
    expect((await Promise.all(held)).map((r) => r.status)).toEqual(Array(slots.limits.verifying).fill(401));
  } finally {
    slots.limits.waitMs = waitMs;
    site.t.deps.verifyPassword = verify;
  }
}, 90_000);
