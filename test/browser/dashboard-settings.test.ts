/**
 * Settings pages in Chromium against the real /api/app and /api/v1 (a real session, nothing
 * stubbed): API keys, sessions, the password, the workspace and the accounts.
 */
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { createAccount, findAccountByEmail } from '../../src/modules/auth/accounts';
import { createApiKey } from '../../src/modules/auth/keys';
import { listSessions } from '../../src/modules/sessions/service';
import { api } from '../helpers/app';
import { dash, PASSWORD } from '../helpers/dashboard';
import { dashboardPerFile, expectCleanPage, seriousA11yViolations, signedInPage } from '../helpers/dashboard-browser';

const d = dashboardPerFile();
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

/** Records `METHOD /path body` of every /api/app call the page makes. */
function recordCalls(page: Page): string[] {
  const calls: string[] = [];
  page.on('request', (r) => {
    const { pathname } = new URL(r.url());
    if (pathname.startsWith('/api/app/')) calls.push(`${r.method()} ${pathname} ${r.postData() ?? ''}`.trim());
  });
  return calls;
}

/** How far the page's table scrolls sideways: 0 when every column shows. */
const hiddenSideways = (page: Page) =>
  page.evaluate(
    '(() => { const t = document.querySelector(".table-wrap"); return t.scrollWidth - t.clientWidth; })()',
  ) as Promise<number>;

test('API keys: create shows the secret once, with a copy button; revoke asks first', async () => {
  const p = await signedInPage(d);
  const calls = recordCalls(p.page);
  await p.page.goto(`${d.origin}/app/settings/keys`);
  // The seeding key of this account (named "write key" by the helper), by its public prefix.
  await p.page.getByRole('cell', { name: `${p.key.slice(0, 12)}…` }).waitFor();
  expect(await seriousA11yViolations(p.page)).toEqual([]);

  await p.page.getByRole('button', { name: 'Create key' }).click();
  const dialog = p.page.getByRole('dialog', { name: 'New API key' });
  await dialog.getByLabel('Name').fill('deploy');
  await dialog.getByLabel('Write: also creates, changes and deletes').check();
  await dialog.getByRole('button', { name: 'Create', exact: true }).click();
  const secret = dialog.getByLabel('Your new API key');
  await secret.waitFor();
  const created = await secret.inputValue();
  expect(created).toMatch(/^slk_[A-Za-z0-9]{40}$/);
  expect((await api(d.t, 'GET', '/me', { key: created })).body.scope).toBe('write');
  expect(await dialog.getByRole('button', { name: 'Copy API key' }).isVisible()).toBe(true);
  expect(calls).toContain(
    'POST /api/app/keys {"name":"deploy","scope":"write","expiresAt":null,"projects":null,"domains":null}',
  );
  await dialog.getByRole('button', { name: 'Done' }).click();
  await p.page.getByRole('cell', { name: `${created.slice(0, 12)}…` }).waitFor();
  expect(await p.page.content()).not.toContain(created.slice(12));

  await p.page.getByRole('button', { name: 'Revoke key write key' }).click();
  await p.page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
  await p.page.getByRole('cell', { name: 'Revoked' }).waitFor();
  expect(await p.page.getByRole('status').filter({ hasText: 'Revoked' }).textContent()).toBe(
    'Revoked key write key: anything still using it now gets 401.',
  );
  expect(calls.some((c) => /^DELETE \/api\/app\/keys\/\S+$/.test(c))).toBe(true);
  expect((await api(d.t, 'GET', '/me', { key: p.key })).body.error.code).toBe('key_revoked');
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('API keys: the dialog makes a create key, the one scope that only creates links', async () => {
  const p = await signedInPage(d);
  const calls = recordCalls(p.page);
  await p.page.goto(`${d.origin}/app/settings/keys`);
  await p.page.getByRole('button', { name: 'Create key' }).click();
  const dialog = p.page.getByRole('dialog', { name: 'New API key' });
  await dialog.getByLabel('Name').fill('form');
  await dialog.getByLabel('Create only: creates links, nothing else (for an extension or a form)').check();
  await dialog.getByRole('button', { name: 'Create', exact: true }).click();
  const secret = dialog.getByLabel('Your new API key');
  await secret.waitFor();
  const created = await secret.inputValue();
  expect(calls).toContain(
    'POST /api/app/keys {"name":"form","scope":"create","expiresAt":null,"projects":null,"domains":null}',
  );
  expect((await api(d.t, 'GET', '/me', { key: created })).body.scope).toBe('create');
  await dialog.getByRole('button', { name: 'Done' }).click();
  const row = p.page.getByRole('row').filter({ hasText: `${created.slice(0, 12)}…` });
  await row.getByRole('cell', { name: 'create', exact: true }).waitFor();
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('sessions: browser and system by name; end another one, said when done; sign out everywhere', async () => {
  const p = await signedInPage(d);
  const other = await dash(d.t, 'POST', '/session', {
    body: { email: p.account.email, password: PASSWORD },
    headers: { 'user-agent': IPHONE },
  });
  expect(other.status).toBe(200);
  await p.page.goto(`${d.origin}/app/settings/sessions`);
  const iphone = p.page.locator('.session-item').filter({ hasText: 'Mobile Safari on iOS' });
  await iphone.waitFor();
  expect(await p.page.getByText('This browser').count()).toBe(1);
  // The names, never the raw user agent.
  expect(await p.page.locator('main').textContent()).not.toContain('AppleWebKit');
  await iphone.getByRole('button', { name: /^End the session of Mobile Safari on iOS, signed in / }).click();
  await iphone.waitFor({ state: 'detached' });
  expect(await p.page.getByRole('status').filter({ hasText: 'Ended' }).textContent()).toBe(
    'Ended the session of Mobile Safari on iOS.',
  );
  expect((await listSessions(d.t.deps, p.account.id, '')).map((s) => s.id)).not.toContain(other.body.session.id);
  expect(await listSessions(d.t.deps, p.account.id, '')).toHaveLength(1);
  await p.page.getByRole('button', { name: 'Sign out everywhere' }).click();
  await p.page.getByRole('dialog').getByRole('button', { name: 'Sign out everywhere' }).click();
  await p.page.getByText('You were signed out on every device.').waitFor();
  expect(await listSessions(d.t.deps, p.account.id, '')).toEqual([]);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('password: a wrong current password shows under its field; a change leads to sign-in', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app/settings/account`);
  await p.page.getByLabel('Current password').fill('not the password');
  await p.page.getByLabel('New password', { exact: true }).fill('a much better one');
  await p.page.getByLabel('New password again').fill('a much better one');
  await p.page.getByRole('button', { name: 'Change password' }).click();
  await p.page.getByText('The current password is wrong').waitFor();
  expect(await p.page.getByLabel('Current password').getAttribute('aria-invalid')).toBe('true');
  await p.page.getByLabel('Current password').fill(PASSWORD);
  await p.page.getByRole('button', { name: 'Change password' }).click();
  await p.page.getByText('Your password was changed. Sign in with the new one.').waitFor();
  const signIn = (password: string) => dash(d.t, 'POST', '/session', { body: { email: p.account.email, password } });
  expect((await signIn('a much better one')).status).toBe(200);
  expect((await signIn(PASSWORD)).status).toBe(401);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('workspace and accounts; disabling asks first and says the keys will be revoked', async () => {
  const p = await signedInPage(d);
  const bo = await createAccount(d.t.deps, { email: 'bo@example.com', password: PASSWORD });
  const boKey = (await createApiKey(d.t.deps, { accountId: bo.id, scope: 'read' })).key;
  await createAccount(d.t.deps, { email: 'vi@example.com', password: PASSWORD, role: 'viewer' });
  await p.page.goto(`${d.origin}/app/settings/workspace`);
  await p.page.getByText('https://app.sl.test').waitFor();
  expect(await p.page.getByText('https://sl.test', { exact: true }).isVisible()).toBe(true);
  await p.page.getByRole('link', { name: 'Accounts' }).click();
  await p.page.getByRole('cell', { name: 'bo@example.com', exact: true }).waitFor();
  // Each account's role.
  const roleOf = async (email: string) =>
    (await p.page.getByRole('row').filter({ hasText: email }).getByRole('cell').nth(1).textContent())?.trim();
  expect([await roleOf(p.account.email), await roleOf('bo@example.com'), await roleOf('vi@example.com')]).toEqual([
    'Admin',
    'Editor',
    'Viewer',
  ]);
  // Nobody can disable their own account: only the others have the button.
  expect(await p.page.getByRole('button', { name: `Disable ${p.account.email}` }).count()).toBe(0);
  await p.page.getByRole('button', { name: 'Disable bo@example.com' }).click();
  const dialog = p.page.getByRole('dialog', { name: 'Disable bo@example.com?' });
  await dialog.waitFor();
  expect(await dialog.getByRole('paragraph').textContent()).toBe(
    'The account can no longer sign in and its sessions end now. Its API keys are revoked: anything using them ' +
      'gets 401 key_revoked, and enabling the account again does not bring them back.',
  );
  // Nothing changes until it is confirmed.
  expect((await findAccountByEmail(d.t.deps, 'bo@example.com'))?.disabledAt).toBeNull();
  expect(await seriousA11yViolations(p.page)).toEqual([]);
  await dialog.getByRole('button', { name: 'Disable account' }).click();
  await p.page.getByRole('button', { name: 'Enable bo@example.com' }).waitFor();
  expect((await findAccountByEmail(d.t.deps, 'bo@example.com'))?.disabledAt).not.toBeNull();
  // Enabling asks nothing; the key stays revoked.
  await p.page.getByRole('button', { name: 'Enable bo@example.com' }).click();
  await p.page.getByRole('button', { name: 'Disable bo@example.com' }).waitFor();
  expect((await findAccountByEmail(d.t.deps, 'bo@example.com'))?.disabledAt).toBeNull();
  expect((await api(d.t, 'GET', '/me', { key: boKey })).body.error.code).toBe('key_revoked');
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('accounts: create with a role and projects, change them, the last admin refused; a key limited to a project', async () => {
  const p = await signedInPage(d);
  const project = (await api(d.t, 'POST', '/projects', { key: p.key, body: { name: 'Launch' } })).body;
  await api(d.t, 'POST', '/projects', { key: p.key, body: { name: 'Other' } });
  await p.page.goto(`${d.origin}/app/settings/accounts`);
  await p.page.getByRole('button', { name: 'Create account' }).click();
  const create = p.page.getByRole('dialog', { name: 'New account' });
  await create.getByLabel('Email').fill('lim@example.com');
  await create.getByLabel('Password').fill(PASSWORD);
  await create.getByLabel('Role').selectOption('viewer');
  await create.getByLabel('Only these').check();
  await create.getByLabel('Launch').check();
  expect(await seriousA11yViolations(p.page)).toEqual([]);
  await create.getByRole('button', { name: 'Create account' }).click();
  const row = p.page.getByRole('row').filter({ hasText: 'lim@example.com' });
  await row.getByRole('cell', { name: 'Launch', exact: true }).waitFor();
  expect(await row.getByRole('cell', { name: 'Viewer' }).count()).toBe(1);
  const lim = (await findAccountByEmail(d.t.deps, 'lim@example.com'))!;
  expect({ role: lim.role, projects: lim.projects }).toEqual({ role: 'viewer', projects: [project.id] });

  // Back to every project, as an editor.
  await p.page.getByRole('button', { name: 'Change role and projects of lim@example.com' }).click();
  const change = p.page.getByRole('dialog', { name: 'Change lim@example.com' });
  await change.getByLabel('Role').selectOption('editor');
  await change.getByLabel('All projects').check();
  await change.getByRole('button', { name: 'Save' }).click();
  await row.getByRole('cell', { name: 'All projects' }).waitFor();
  expect(await row.getByRole('cell', { name: 'Editor' }).count()).toBe(1);

  // The only active admin cannot demote itself: the refusal shows under the role.
  for (const other of (await d.t.deps.stores.accounts.list()).filter(
    (a) => a.role === 'admin' && a.id !== p.account.id && a.disabledAt === null,
  )) {
    await api(d.t, 'PATCH', `/accounts/${other.id}`, { key: p.key, body: { role: 'editor' } });
  }
  await p.page.reload();
  await p.page.getByRole('button', { name: 'Change your role and projects' }).click();
  const mine = p.page.getByRole('dialog', { name: `Change ${p.account.email}` });
  await mine.getByLabel('Role').selectOption('viewer');
  await mine.getByRole('button', { name: 'Save' }).click();
  await mine.getByText('This is the last active admin: make another account admin first').waitFor();
  expect((await findAccountByEmail(d.t.deps, p.account.email))?.role).toBe('admin');
  await mine.getByRole('button', { name: 'Cancel' }).click();

  // A key limited to one project, explained; the list shows its limit.
  await p.page.goto(`${d.origin}/app/settings/keys`);
  await p.page.getByRole('button', { name: 'Create key' }).click();
  const key = p.page.getByRole('dialog', { name: 'New API key' });
  await key.getByText('Limited to projects, this key sees and changes only the links in them.').waitFor();
  await key.getByLabel('Name').fill('launch only');
  await key.getByRole('group', { name: 'Projects' }).getByLabel('Only these').check();
  await key.getByLabel('Launch').check();
  await key.getByRole('button', { name: 'Create', exact: true }).click();
  const secret = await key.getByLabel('Your new API key').inputValue();
  expect((await api(d.t, 'GET', '/me', { key: secret })).body.key.projects).toEqual([project.id]);
  await key.getByRole('button', { name: 'Done' }).click();
  await p.page
    .getByRole('row')
    .filter({ hasText: 'launch only' })
    .getByRole('cell', { name: 'Launch', exact: true })
    .waitFor();
  // At 1280 px both tables show every column: times break between day and hour instead.
  await p.page.setViewportSize({ width: 1280, height: 800 });
  expect({ keys: await hiddenSideways(p.page) }).toEqual({ keys: 0 });
  await p.page.goto(`${d.origin}/app/settings/accounts`);
  await p.page.getByRole('cell', { name: 'lim@example.com', exact: true }).waitFor();
  expect({ accounts: await hiddenSideways(p.page) }).toEqual({ accounts: 0 });
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test("API keys, admins: other accounts' keys with their owner, revoked after the confirmation; hidden from an editor", async () => {
  const owner = await createAccount(d.t.deps, { email: 'owner@example.com', password: PASSWORD, role: 'editor' });
  const theirs = await createApiKey(d.t.deps, { accountId: owner.id, scope: 'read', name: 'their script' });
  const p = await signedInPage(d);
  const calls = recordCalls(p.page);
  await p.page.setViewportSize({ width: 1280, height: 800 });
  await p.page.goto(`${d.origin}/app/settings/keys`);
  const others = p.page.getByRole('region', { name: "Other accounts' keys" });
  const row = others.getByRole('row').filter({ hasText: 'owner@example.com' });
  await row.getByRole('cell', { name: `${theirs.key.slice(0, 12)}…` }).waitFor();
  expect(await row.getByRole('cell', { name: 'read', exact: true }).count()).toBe(1);
  // The admin's own key is in its own table only, not again among the others'.
  expect(await others.getByText(p.account.email).count()).toBe(0);
  expect(await p.page.content()).not.toContain(theirs.key.slice(12));
  // Both tables show every column at 1280 px.
  const sideways = await p.page.evaluate(
    '[...document.querySelectorAll(".table-wrap")].map((t) => t.scrollWidth - t.clientWidth)',
  );
  expect(sideways).toEqual([0, 0]);
  expect(await seriousA11yViolations(p.page)).toEqual([]);

  await row.getByRole('button', { name: "Revoke owner@example.com's key their script" }).click();
  await p.page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
  await row.getByRole('cell', { name: 'Revoked' }).waitFor();
  expect(calls).toContain(`DELETE /api/app/keys/${theirs.row.id}`);
  expect((await api(d.t, 'GET', '/me', { key: theirs.key })).body.error.code).toBe('key_revoked');
  await expectCleanPage(p);
  await p.page.close();

  const editor = await signedInPage(d, false);
  const editorCalls = recordCalls(editor.page);
  await editor.page.goto(`${d.origin}/app/settings/keys`);
  await editor.page.getByRole('cell', { name: `${editor.key.slice(0, 12)}…` }).waitFor();
  expect(await editor.page.getByRole('heading', { name: "Other accounts' keys" }).count()).toBe(0);
  expect(editorCalls.some((c) => c.includes('/api/app/keys/all'))).toBe(false);
  await expectCleanPage(editor);
  await editor.page.close();
}, 90_000);
