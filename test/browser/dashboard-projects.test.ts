/**
 * The projects and tags pages in Chromium against the real app and a real session: projects
 * created, renamed and deleted through the page (and the API agrees), tag counts, and both
 * leading to the filtered links list. Offline, axe in light and dark, 375 px, keyboard.
 */
import { expect, test } from 'bun:test';
import { api } from '../helpers/app';
import {
  dashboardPerFile,
  expectCleanPage,
  expectUsableEverywhere,
  signedInPage,
  waitUntil,
  XSS_PROBE as XSS,
} from '../helpers/dashboard-browser';

const d = dashboardPerFile();

test('projects: create, rename and delete through the page; the API agrees each time', async () => {
  const p = await signedInPage(d);
  const projects = async () => (await api(d.t, 'GET', '/projects', { key: p.key })).body;
  await p.page.goto(`${d.origin}/app/projects`);
  await p.page.getByRole('heading', { name: 'No projects yet' }).waitFor();

  await p.page.getByRole('button', { name: 'New project' }).click();
  let dialog = p.page.getByRole('dialog', { name: 'New project' });
  await dialog.getByLabel('Name').fill('  Spring  ');
  await dialog.getByRole('button', { name: 'Create project' }).click();
  await p.page.getByRole('link', { name: 'Spring', exact: true }).waitFor();
  expect(await p.page.getByRole('status').first().textContent()).toBe('Created project Spring.');
  const [created] = (await projects()).projects;
  expect([created.name, created.linkCount]).toEqual(['Spring', 0]);

  // A taken name (any case) is the API's 409, shown under the field it names.
  await p.page.getByRole('button', { name: 'New project' }).click();
  dialog = p.page.getByRole('dialog', { name: 'New project' });
  await dialog.getByLabel('Name').fill('SPRING');
  await dialog.getByRole('button', { name: 'Create project' }).click();
  await dialog.getByText('A project named "Spring" already exists').waitFor();
  expect(await dialog.getByLabel('Name').getAttribute('aria-invalid')).toBe('true');
  await p.page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  expect(await p.page.evaluate('document.activeElement.textContent')).toBe('New project');
  expect((await projects()).projects).toHaveLength(1);

  const link = await api(d.t, 'POST', '/links', {
    key: p.key,
    body: { destination: 'https://example.com/in-spring', projectId: created.id },
  });
  await p.page.reload();
  const row = p.page.getByRole('row', { name: /Spring/ });
  expect(await row.getByRole('cell').nth(1).textContent()).toBe('1 link');

  await p.page.getByRole('button', { name: 'Rename project Spring' }).click();
  dialog = p.page.getByRole('dialog', { name: 'Rename Spring' });
  expect(await dialog.getByLabel('Name').inputValue()).toBe('Spring');
  await dialog.getByLabel('Name').fill('Spring 2026');
  await dialog.getByRole('button', { name: 'Rename' }).click();
  await p.page.getByRole('link', { name: 'Spring 2026' }).waitFor();
  expect((await projects()).projects.map((x: any) => x.name)).toEqual(['Spring 2026']);

  // The project leads to the links list filtered by it.
  await p.page.getByRole('link', { name: 'Spring 2026' }).click();
  await waitUntil(async () => new URL(p.page.url()).search === `?project=${created.id}`);
  await p.page.locator('.link-item').first().waitFor();
  expect(await p.page.locator('.link-item').count()).toBe(1);
  // The select's options come with the projects, in an answer of their own: read it once the
  // project's option is there (a select holds no value its options do not offer).
  const projectFilter = p.page.getByLabel('Project', { exact: true });
  await projectFilter.locator(`option[value="${created.id}"]`).waitFor({ state: 'attached' });
  expect(await projectFilter.inputValue()).toBe(created.id);

  await p.page.goBack();
  await p.page.getByRole('button', { name: 'Delete project Spring 2026' }).click();
  dialog = p.page.getByRole('dialog', { name: 'Delete project Spring 2026?' });
  await dialog.getByText('Its links (1 link) stay, in no project').waitFor();
  await dialog.getByRole('button', { name: 'Delete project' }).click();
  await p.page.getByText('Deleted project Spring 2026; its link is now in no project.').waitFor();
  await p.page.getByRole('heading', { name: 'No projects yet' }).waitFor();
  expect(await projects()).toMatchObject({ projects: [], unfiledCount: 1 });
  expect((await api(d.t, 'GET', `/links/${link.body.id}`, { key: p.key })).body.projectId).toBeNull();
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('tags: counts, most used first, each leading to its links', async () => {
  const p = await signedInPage(d);
  for (const [path, tags] of [
    ['a', ['tag-alpha', 'tag-beta']],
    ['b', ['tag-alpha']],
    ['c', ['tag-alpha', XSS]],
  ] as const) {
    const body = { destination: `https://example.com/tags/${path}`, tags };
    expect((await api(d.t, 'POST', '/links', { key: p.key, body })).status).toBe(201);
  }
  await p.page.goto(`${d.origin}/app/tags`);
  await p.page.getByRole('link', { name: 'tag-alpha' }).waitFor();
  const rows = await p.page
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
  expect(rows.filter(([tag]) => tag?.startsWith('tag-') || tag === XSS)).toEqual([
    ['tag-alpha', '3'],
    // Ties in plain string order: '<' before 't'.
    [XSS, '1'],
    ['tag-beta', '1'],
  ]);
  await p.page.getByRole('link', { name: 'tag-beta' }).click();
  await waitUntil(async () => new URL(p.page.url()).search === '?tag=tag-beta');
  await p.page.locator('.link-item').first().waitFor();
  expect(await p.page.locator('.link-item').count()).toBe(1);
  // The Tag select's options come with the tags, in an answer of their own.
  const tagFilter = p.page.getByLabel('Tag', { exact: true });
  await tagFilter.locator('option[value="tag-beta"]').waitFor({ state: 'attached' });
  expect(await tagFilter.inputValue()).toBe('tag-beta');
  expect(await p.page.evaluate('window.__xss')).toBeUndefined();
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);

test('names and tags people typed are text; the pages pass axe in light and dark and fit 375 px', async () => {
  const p = await signedInPage(d);
  const project = await api(d.t, 'POST', '/projects', { key: p.key, body: { name: XSS } });
  expect(project.status).toBe(201);
  await api(d.t, 'POST', '/links', {
    key: p.key,
    body: { destination: 'https://example.com/x', projectId: project.body.id, tags: [XSS], title: XSS },
  });
  await expectUsableEverywhere(p.page, async () => {
    await p.page.goto(`${d.origin}/app/projects`);
    await p.page.getByRole('link', { name: XSS }).waitFor();
  });
  await p.page.getByRole('button', { name: `Delete project ${XSS}` }).click();
  await p.page.getByRole('dialog', { name: `Delete project ${XSS}?` }).waitFor();
  await p.page.keyboard.press('Escape');
  expect(await p.page.evaluate('document.activeElement.getAttribute("aria-label")')).toBe(`Delete project ${XSS}`);

  await expectUsableEverywhere(p.page, async () => {
    await p.page.goto(`${d.origin}/app/tags`);
    await p.page.getByRole('link', { name: XSS }).waitFor();
  });
  await p.page.getByRole('link', { name: XSS }).click();
  await p.page.locator('.link-item').getByText(XSS, { exact: true }).first().waitFor();
  expect(await p.page.evaluate('window.__xss')).toBeUndefined();
  await expectCleanPage(p);
  await p.page.close();
}, 120_000);

test('a tag with &, #, + and % survives the way from the tags page to the filtered list', async () => {
  const p = await signedInPage(d);
  const TAG = 'a&b #1+%';
  // Links whose tags are what a mangled address would ask for instead: "a", "a&b", "a&b #1 %".
  for (const [path, tags] of [
    ['both-1', [TAG]],
    ['both-2', [TAG, 'other']],
    ['just-a', ['a']],
    ['a-and-b', ['a&b']],
    ['spaced', ['a&b #1 %']],
  ] as const) {
    const body = { destination: `https://example.com/odd/${path}`, tags };
    expect((await api(d.t, 'POST', '/links', { key: p.key, body })).status).toBe(201);
  }
  await p.page.goto(`${d.origin}/app/tags`);
  await p.page.getByRole('link', { name: TAG, exact: true }).click();
  await p.page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  await waitUntil(async () => (await p.page.getByLabel('Tag', { exact: true }).inputValue()) === TAG);
  await waitUntil(async () => (await p.page.locator('.link-item').count()) === 2);
  const shown = await p.page.locator('.link-destination').allTextContents();
  expect(shown.sort()).toEqual(['https://example.com/odd/both-1', 'https://example.com/odd/both-2']);
  expect(new URL(p.page.url()).searchParams.get('tag')).toBe(TAG);
  await expectCleanPage(p);
  await p.page.close();
}, 90_000);
