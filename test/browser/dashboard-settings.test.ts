/**
 * Settings pages in Chromium. Their /api/app endpoints are not part of this app yet: each test
 * answers them as the dashboard's contract describes, so what runs for real is the client (and
 * /api/v1/workspace, through the stand-in session's key).
 */
import { expect, test } from 'bun:test';
import type { Page, Route } from 'playwright-core';
import type { AccountItem } from '../../src/modules/dashboard/client/api/types';
import { dashboardPerFile, expectCleanPage, seriousA11yViolations, signedInPage } from '../helpers/dashboard-browser';

const d = dashboardPerFile();

const KEY = {
  id: 'key_1',
  name: 'ci',
  prefix: 'slk_AbCdEfGh',
  scope: 'read',
  status: 'active',
  createdAt: Date.UTC(2026, 0, 2),
  lastUsedAt: null,
  expiresAt: null,
  revokedAt: null,
};

/** Answers `method path` under /api/app with `answer(route)`; records every call. */
function fake(page: Page, calls: string[], handlers: Record<string, (route: Route) => unknown>) {
  return page.route(`${d.origin}/api/app/**`, (route) => {
    const { pathname } = new URL(route.request().url());
    const name = `${route.request().method()} ${pathname}`;
    const handler = handlers[name];
    if (!handler) return route.fallback();
    calls.push(`${name} ${route.request().postData() ?? ''}`.trim());
    return handler(route);
  });
}

test('API keys: create shows the secret once, with a copy button; revoke asks first', async () => {
  const p = await signedInPage(d);
  const calls: string[] = [];
  let items = [KEY];
  await fake(p.page, calls, {
    'GET /api/app/keys': (r) => r.fulfill({ json: { items } }),
    'POST /api/app/keys': (r) => {
      const item = { ...KEY, id: 'key_2', name: 'deploy', scope: 'write', prefix: 'slk_ZyXwVuTs' };
      items = [...items, item];
      return r.fulfill({ status: 201, json: { key: 'slk_ZyXwVuTs_the_whole_secret', item } });
    },
    'DELETE /api/app/keys/key_1': (r) => {
      items = items.map((k) => (k.id === 'key_1' ? { ...k, status: 'revoked' } : k));
      return r.fulfill({ status: 204 });
    },
  });
  await p.page.goto(`${d.origin}/app/settings/keys`);
  await p.page.getByRole('cell', { name: 'slk_AbCdEfGh…' }).waitFor();
  expect(await seriousA11yViolations(p.page)).toEqual([]);

  await p.page.getByRole('button', { name: 'Create key' }).click();
  const dialog = p.page.getByRole('dialog', { name: 'New API key' });
  await dialog.getByLabel('Name').fill('deploy');
  await dialog.getByLabel('Write: also creates, changes and deletes').check();
  await dialog.getByRole('button', { name: 'Create', exact: true }).click();
  const secret = dialog.getByLabel('Your new API key');
  await secret.waitFor();
  expect(await secret.inputValue()).toBe('slk_ZyXwVuTs_the_whole_secret');
  expect(await dialog.getByRole('button', { name: 'Copy API key' }).isVisible()).toBe(true);
  expect(calls).toContain('POST /api/app/keys {"name":"deploy","scope":"write","expiresAt":null}');
  await dialog.getByRole('button', { name: 'Done' }).click();
  await p.page.getByRole('cell', { name: 'slk_ZyXwVuTs…' }).waitFor();
  expect(await p.page.content()).not.toContain('the_whole_secret');

  await p.page.getByRole('button', { name: 'Revoke key ci' }).click();
  await p.page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
  await p.page.getByRole('cell', { name: 'Revoked' }).waitFor();
  expect(calls).toContain('DELETE /api/app/keys/key_1');
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('sessions: end another one; sign out everywhere leads to sign-in', async () => {
  const p = await signedInPage(d);
  const calls: string[] = [];
  const t0 = Date.UTC(2026, 0, 5);
  const session = (id: string, userAgent: string, current: boolean) => ({
    id,
    userAgent,
    current,
    createdAt: t0,
    lastSeenAt: t0,
    expiresAt: t0 + 30 * 86_400_000,
  });
  let items = [session('ses_a', 'Firefox on Linux', true), session('ses_b', 'Safari on iPhone', false)];
  await fake(p.page, calls, {
    'GET /api/app/sessions': (r) => r.fulfill({ json: { items } }),
    'DELETE /api/app/sessions/ses_b': (r) => {
      items = items.filter((s) => s.id !== 'ses_b');
      return r.fulfill({ status: 204 });
    },
    'DELETE /api/app/sessions': (r) => r.fulfill({ status: 204 }),
  });
  await p.page.goto(`${d.origin}/app/settings/sessions`);
  await p.page.getByText('Safari on iPhone').waitFor();
  await p.page.getByRole('button', { name: 'End the session of Safari on iPhone' }).click();
  await p.page.getByText('Safari on iPhone').waitFor({ state: 'detached' });
  await p.page.getByRole('button', { name: 'Sign out everywhere' }).click();
  await p.page.getByRole('dialog').getByRole('button', { name: 'Sign out everywhere' }).click();
  await p.page.getByText('You were signed out on every device.').waitFor();
  expect(calls).toEqual([
    'GET /api/app/sessions',
    'DELETE /api/app/sessions/ses_b',
    'GET /api/app/sessions',
    'DELETE /api/app/sessions',
  ]);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('password: a wrong current password shows under its field; a change leads to sign-in', async () => {
  const p = await signedInPage(d);
  const calls: string[] = [];
  let attempts = 0;
  await fake(p.page, calls, {
    'POST /api/app/password': (r) =>
      ++attempts === 1
        ? r.fulfill({
            status: 400,
            json: {
              error: { code: 'invalid_request', message: 'Current password is wrong', field: 'currentPassword' },
            },
          })
        : r.fulfill({ status: 204 }),
  });
  await p.page.goto(`${d.origin}/app/settings/account`);
  await p.page.getByLabel('Current password').fill('nope');
  await p.page.getByLabel('New password', { exact: true }).fill('a much better one');
  await p.page.getByLabel('New password again').fill('a much better one');
  await p.page.getByRole('button', { name: 'Change password' }).click();
  await p.page.getByText('Current password is wrong').waitFor();
  expect(await p.page.getByLabel('Current password').getAttribute('aria-invalid')).toBe('true');
  await p.page.getByLabel('Current password').fill('the right one');
  await p.page.getByRole('button', { name: 'Change password' }).click();
  await p.page.getByText('Your password was changed. Sign in with the new one.').waitFor();
  expect(calls.at(-1)).toBe(
    'POST /api/app/password {"currentPassword":"the right one","newPassword":"a much better one"}',
  );
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('workspace and accounts', async () => {
  const p = await signedInPage(d);
  const account = p.account;
  const calls: string[] = [];
  const other = {
    id: 'acc_2',
    email: 'bo@example.com',
    superuser: false,
    createdAt: 0,
    lastSignInAt: null,
    disabledAt: null,
  };
  let items: AccountItem[] = [{ ...account, createdAt: 0, lastSignInAt: 0, disabledAt: null }, other];
  await fake(p.page, calls, {
    'GET /api/app/accounts': (r) => r.fulfill({ json: { items } }),
    'PATCH /api/app/accounts/acc_2': (r) => {
      items = items.map((a) => (a.id === 'acc_2' ? { ...a, disabledAt: 1 } : a));
      return r.fulfill({ json: { item: items[1] } });
    },
  });
  await p.page.goto(`${d.origin}/app/settings/workspace`);
  await p.page.getByText('https://app.sl.test').waitFor();
  expect(await p.page.getByText('https://sl.test', { exact: true }).isVisible()).toBe(true);
  await p.page.getByRole('link', { name: 'Accounts' }).click();
  await p.page.getByRole('cell', { name: 'bo@example.com', exact: true }).waitFor();
  // Nobody can disable their own account: only the other one has the button.
  expect(await p.page.getByRole('button', { name: `Disable ${account.email}` }).count()).toBe(0);
  await p.page.getByRole('button', { name: 'Disable bo@example.com' }).click();
  await p.page.getByRole('button', { name: 'Enable bo@example.com' }).waitFor();
  expect(calls).toContain('PATCH /api/app/accounts/acc_2 {"disabled":true}');
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);
