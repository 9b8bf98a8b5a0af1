/**
 * The dashboard's pages before sign-in, in Chromium with no internet: sign-in and first-run
 * setup render under the CSP with nothing blocked, pass axe (light and dark), work by keyboard
 * and at 375 px, and show the API's errors where the contract says. Nothing is stubbed: the
 * answers are the app's own.
 */
import { describe, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { endAllSessions } from '../../src/modules/sessions/service';
import { makeKey } from '../helpers/app';
import { cspViolations } from '../helpers/browser';
import { PASSWORD } from '../helpers/dashboard';
import {
  dashboardPerFile,
  expectCleanPage,
  offlinePage,
  seriousA11yViolations,
  signedInPage,
} from '../helpers/dashboard-browser';
import { fillCredentials } from '../helpers/dashboard-process';

const d = dashboardPerFile();

/** The element that has the focus: its accessible name and whether a focus ring shows. */
function focused(page: Page) {
  return page.evaluate(`(() => {
    const el = document.activeElement;
    const style = getComputedStyle(el);
    return {
      tag: el.tagName.toLowerCase(),
      label: el.labels?.[0]?.textContent ?? el.textContent.trim(),
      ring: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
    };
  })()`) as Promise<{ tag: string; label: string; ring: boolean }>;
}

describe('sign-in', () => {
  test('renders offline under the CSP, with the contract names', async () => {
    const p = await offlinePage(d.browser);
    const response = await p.page.goto(`${d.origin}/app/sign-in`);
    expect(response?.headers()['cache-control']).toBe('no-store');
    await p.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await p.page.getByLabel('Email').getAttribute('type')).toBe('email');
    expect(await p.page.getByLabel('Password').getAttribute('type')).toBe('password');
    expect(await p.page.getByRole('button', { name: 'Sign in' }).isEnabled()).toBe(true);
    expect(await p.page.title()).toBe('Sign in · Slink');
    await expectCleanPage(p);
    // The recorder does see a violation when there is one: inline code is refused.
    await p.page.evaluate(
      `document.body.append(Object.assign(document.createElement('script'), { textContent: '1' }))`,
    );
    expect((await cspViolations(p.page)).join()).toContain('script-src');
    await p.page.close();
  }, 60_000);

  test('no serious or critical axe findings, light and dark', async () => {
    const p = await offlinePage(d.browser);
    for (const colorScheme of ['light', 'dark'] as const) {
      await p.page.emulateMedia({ colorScheme });
      await p.page.goto(`${d.origin}/app/sign-in`);
      await p.page.getByRole('heading', { name: 'Sign in' }).waitFor();
      expect({ colorScheme, violations: await seriousA11yViolations(p.page) }).toEqual({
        colorScheme,
        violations: [],
      });
    }
    await p.page.close();
  }, 60_000);

  test('Tab reaches the fields and the button, each with a visible focus ring', async () => {
    const p = await offlinePage(d.browser);
    await p.page.goto(`${d.origin}/app/sign-in`);
    await p.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const reached = [];
    for (let i = 0; i < 3; i++) {
      await p.page.keyboard.press('Tab');
      reached.push(await focused(p.page));
    }
    expect(reached).toEqual([
      { tag: 'input', label: 'Email', ring: true },
      { tag: 'input', label: 'Password', ring: true },
      { tag: 'button', label: 'Sign in', ring: true },
    ]);
    await p.page.close();
  }, 60_000);

  test('fits a 375 px wide screen without sideways scrolling', async () => {
    const p = await offlinePage(d.browser);
    await p.page.setViewportSize({ width: 375, height: 800 });
    await p.page.goto(`${d.origin}/app/sign-in`);
    await p.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await p.page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await p.page.close();
  }, 60_000);

  test("shows the server's refusal as an alert and stays on the page", async () => {
    const p = await offlinePage(d.browser);
    let sent: unknown = null;
    p.page.on('request', (r) => {
      if (r.method() === 'POST' && r.url().endsWith('/api/app/session')) sent = r.postDataJSON();
    });
    await p.page.goto(`${d.origin}/app/sign-in`);
    await fillCredentials(p.page, 'who@example.com', 'not it at all', 'Sign in');
    await expect(p.page.getByRole('alert').textContent()).resolves.toBe(
      'Sign-in failed: wrong email or password, or the account is disabled',
    );
    expect(sent).toEqual({ email: 'who@example.com', password: 'not it at all' });
    expect(new URL(p.page.url()).pathname).toBe('/app/sign-in');
    await expectCleanPage(p);
    await p.page.close();
  }, 60_000);

  test('a signed-out visit to a page goes to sign-in, and back there after signing in', async () => {
    const { account } = await makeKey(d.t, 'read');
    const p = await offlinePage(d.browser);
    await p.page.goto(`${d.origin}/app/settings/keys`);
    await p.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(p.page.url()).toBe(`${d.origin}/app/sign-in?next=%2Fapp%2Fsettings%2Fkeys`);
    await fillCredentials(p.page, account.email, PASSWORD, 'Sign in');
    await p.page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    expect(new URL(p.page.url()).pathname).toBe('/app/settings/keys');
    await p.page.getByRole('button', { name: 'Create key' }).waitFor();
    await expectCleanPage(p);
    await p.page.close();
  }, 60_000);

  test('a session that ends mid-use (403 session_required) leads to sign-in, saying so', async () => {
    const p = await signedInPage(d);
    await p.page.goto(`${d.origin}/app/settings/keys`);
    await p.page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
    // Every call of the page answered (its key list drawn) before the session ends, so the
    // refusal comes from the click below and not from a load still in flight.
    await p.page.getByRole('cell', { name: /^write key/ }).waitFor();
    // Ended elsewhere (sign out everywhere on another device): the page's next call is refused.
    await endAllSessions(d.t.deps, p.account.id);
    await p.page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Sessions' }).click();
    await p.page.getByText('Your session ended. Sign in again to continue.').waitFor();
    expect(p.page.url()).toBe(`${d.origin}/app/sign-in?next=%2Fapp%2Fsettings%2Fsessions&notice=session-ended`);
    await expectCleanPage(p);
    await p.page.close();
  }, 60_000);
});

describe('first-run setup', () => {
  // An app of its own: setup works only while no account exists.
  const fresh = dashboardPerFile();

  test('with a token: the form, and a field error under the field it names', async () => {
    const p = await offlinePage(fresh.browser);
    await p.page.goto(`${fresh.origin}/app/setup?token=${fresh.t.deps.setupToken}`);
    await p.page.getByRole('heading', { name: 'Set up Slink' }).waitFor();
    await fillCredentials(p.page, 'first@example.com', 'short', 'Create account');
    const password = p.page.getByLabel('Password');
    await p.page.getByText('Password must be at least 8 characters').waitFor();
    expect(await password.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await password.getAttribute('aria-describedby')) ?? '';
    const errorId = describedBy.split(' ').find((id) => id.endsWith('-error'))!;
    expect(await p.page.locator(`[id="${errorId}"]`).textContent()).toBe('Password must be at least 8 characters');
    expect(await seriousA11yViolations(p.page)).toEqual([]);
    await expectCleanPage(p);
    await p.page.close();
  }, 60_000);

  test('without a token it says where the setup address is; once set up, it points to sign-in', async () => {
    const p = await offlinePage(fresh.browser);
    await p.page.goto(`${fresh.origin}/app/setup`);
    await p.page.getByText('/app/setup?token=…').waitFor();
    await makeKey(fresh.t, 'read');
    await p.page.goto(`${fresh.origin}/app/setup?token=${fresh.t.deps.setupToken}`);
    await p.page.getByRole('heading', { name: 'Slink is set up' }).waitFor();
    expect(await p.page.getByRole('link', { name: 'Go to sign-in' }).getAttribute('href')).toBe('/app/sign-in');
    await expectCleanPage(p);
    await p.page.close();
  }, 60_000);
});
