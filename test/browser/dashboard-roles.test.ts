/**
 * The dashboard shows a person only what their role and project limit let them do (the API
 * refuses the rest: docs/behaviour.md, "Who may do what"), in Chromium against the real app with
 * real sessions: a viewer sees no create, edit, delete or bulk controls and reads why; a non-admin
 * sees no Domains, Webhooks or Accounts settings, and their addresses say "Only admins can ...";
 * an editor reads why there is no custom slug; a person limited to a project picks only it.
 */
import { beforeAll, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import type { AccountRow } from '../../src/modules/auth/table';
import { api, makeAccount, makeKey } from '../helpers/app';
import { PASSWORD } from '../helpers/dashboard';
import { dashboardPerFile, expectCleanPage, expectUsableEverywhere, offlinePage } from '../helpers/dashboard-browser';

const d = dashboardPerFile();
let adminKey: string;
let projectA: { id: string; name: string };
let linkInA: { id: string; slug: string };

beforeAll(async () => {
  adminKey = (await makeKey(d.t, 'write', { superuser: true })).key;
  const made = async (path: string, body: unknown) => (await api(d.t, 'POST', path, { key: adminKey, body })).body;
  projectA = await made('/projects', { name: 'Alpha' });
  await made('/projects', { name: 'Beta' });
  linkInA = await made('/links', { destination: 'https://example.com/alpha', projectId: projectA.id });
});

/** A browser signed in as a new account of `role` (limited to `projects` when given). */
async function signedInAs(role: AccountRow['role'], projects: string[] | null = null) {
  const account = await makeAccount(d.t, { role, projects });
  const p = await offlinePage(d.browser);
  const res = await p.page.request.post(`${d.origin}/api/app/session`, {
    data: { email: account.email, password: PASSWORD },
    headers: { 'sec-fetch-site': 'same-origin' },
  });
  expect(res.status()).toBe(200);
  return { ...p, account };
}

const navLabels = async (page: Page) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents();

async function expectAdminsOnlySettings(page: Page): Promise<void> {
  await page.goto(`${d.origin}/app/settings`);
  await page.getByRole('link', { name: 'API keys' }).first().waitFor();
  for (const name of ['Domains', 'Webhooks', 'Accounts']) {
    expect({ name, shown: await page.getByRole('link', { name, exact: true }).count() }).toEqual({ name, shown: 0 });
  }
  for (const [path, heading] of [
    ['/app/settings/domains', 'Only admins can manage short domains'],
    ['/app/settings/webhooks', 'Only admins can manage webhooks'],
    ['/app/settings/accounts', 'Only admins can manage accounts'],
  ] as const) {
    await page.goto(`${d.origin}${path}`);
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
    expect(await page.getByText('Ask an admin if you need a change here.').count()).toBe(1);
  }
}

test('a viewer reads links, projects and a link, with no control to change them and a line saying why', async () => {
  const p = await signedInAs('viewer');
  await p.page.goto(`${d.origin}/app`);
  await p.page.getByText('You can view links; ask an admin to change them.').waitFor();
  await p.page.getByRole('link', { name: `sl.test/${linkInA.slug}`, exact: true }).waitFor();
  expect(await p.page.getByRole('button', { name: 'New link' }).count()).toBe(0);
  expect(await p.page.getByRole('checkbox').count()).toBe(0);
  expect(await navLabels(p.page)).not.toContain('Bulk create');

  await p.page.goto(`${d.origin}/app/links/${linkInA.id}`);
  await p.page.getByText('You can view this link; ask an admin to change it.').waitFor();
  expect(await p.page.getByLabel('Destination').isDisabled()).toBe(true);
  for (const name of ['Save changes', 'Add variant', 'Pause', 'Archive', 'Delete link', 'Delete']) {
    expect({ name, shown: await p.page.getByRole('button', { name, exact: true }).count() }).toEqual({
      name,
      shown: 0,
    });
  }
  await p.page.getByRole('link', { name: 'Statistics', exact: true }).first().waitFor();

  await p.page.goto(`${d.origin}/app/projects`);
  await p.page.getByText('You can view projects; ask an admin to change them.').waitFor();
  await p.page.getByRole('link', { name: 'Alpha', exact: true }).waitFor();
  expect(await p.page.getByRole('button', { name: /New project|Rename|Delete/ }).count()).toBe(0);

  await p.page.goto(`${d.origin}/app/bulk`);
  await p.page.getByRole('heading', { name: 'Only editors and admins can create links', level: 1 }).waitFor();
  expect(await p.page.getByText('Your account is a viewer.').count()).toBe(1);

  await expectAdminsOnlySettings(p.page);
  await expectUsableEverywhere(p.page, async () => {
    await p.page.goto(`${d.origin}/app`);
    await p.page.getByText('You can view links; ask an admin to change them.').waitFor();
  });
  await expectCleanPage(p);
  await p.page.close();
});

test('an editor limited to a project makes a link there: only its project to pick, no custom slug and why', async () => {
  const p = await signedInAs('editor', [projectA.id]);
  await p.page.goto(`${d.origin}/app`);
  await p.page.getByRole('button', { name: 'New link' }).click();
  const dialog = p.page.getByRole('dialog', { name: 'New link' });
  await dialog.getByText('Only admins can choose a custom slug: this link gets a random one.').waitFor();
  expect(await dialog.getByLabel('Custom slug').count()).toBe(0);
  const project = dialog.getByLabel('Project');
  expect(await project.locator('option').allTextContents()).toEqual(['Alpha']);
  expect(await project.inputValue()).toBe(projectA.id);
  await dialog.getByLabel('Destination').fill('https://example.com/made-by-editor');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await p.page.getByText('Link created.').waitFor();
  const listed = await api(d.t, 'GET', '/links?q=made-by-editor', { key: adminKey });
  expect(listed.body.items.map((l: any) => [l.destination, l.projectId])).toEqual([
    ['https://example.com/made-by-editor', projectA.id],
  ]);

  await p.page.goto(`${d.origin}/app/projects`);
  await p.page.getByText('You work in these projects; ask an admin to create or delete one.').waitFor();
  await p.page.getByRole('link', { name: 'Alpha', exact: true }).waitFor();
  expect(await p.page.getByRole('row', { name: /Beta|No project/ }).count()).toBe(0);
  expect(await p.page.getByRole('button', { name: 'Rename project Alpha' }).count()).toBe(1);
  expect(await p.page.getByRole('button', { name: /New project|Delete project/ }).count()).toBe(0);

  await expectAdminsOnlySettings(p.page);
  await expectCleanPage(p);
  await p.page.close();
});
