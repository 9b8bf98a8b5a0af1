/** /projects: folders for links. Deleting one unfiles its links, never deletes them. */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { LinkModel } from '../../src/modules/links/model';
import { ProjectDeletedModel, ProjectListModel, ProjectModel } from '../../src/modules/projects/model';
import { api, makeKey, makeTestApp, T0, type TestApp } from '../helpers/app';
import { engineBlind, forEachEngine } from '../helpers/engines';
import { expectError, expectExactKeys, expectSchema } from '../helpers/schema';

const PROJECT_KEYS = ['id', 'name', 'linkCount', 'createdAt', 'updatedAt'] as const;

function expectProject(body: any): void {
  expectSchema(ProjectModel, body);
  expectExactKeys(body, PROJECT_KEYS);
  for (const k of ['linkCount', 'createdAt', 'updatedAt'] as const) expect(Number.isSafeInteger(body[k])).toBe(true);
}

let t: TestApp;
let su: string;

forEachEngine((engine) => {
  // Request validation, name trimming and scopes (`blind`): SQLite only; what is stored, counted, renamed and deleted: both engines.
  const blind = engineBlind(engine);
  beforeEach(async () => {
    t = await makeTestApp({}, { engine });
    su = (await makeKey(t, 'write', { superuser: true })).key;
  });
  afterEach(() => t.close());

  async function createProject(name: string): Promise<any> {
    const res = await api(t, 'POST', '/projects', { key: su, body: { name } });
    expect(res.status).toBe(201);
    expectProject(res.body);
    return res.body;
  }

  async function createLink(body: Record<string, unknown> = {}): Promise<any> {
    const res = await api(t, 'POST', '/links', { key: su, body: { destination: 'https://example.com/', ...body } });
    expect(res.status).toBe(201);
    expectSchema(LinkModel, res.body);
    return res.body;
  }

  async function getLink(id: string): Promise<any> {
    const res = await api(t, 'GET', `/links/${id}`, { key: su });
    expect(res.status).toBe(200);
    return res.body;
  }

  async function listProjects(): Promise<any> {
    const res = await api(t, 'GET', '/projects', { key: su });
    expect(res.status).toBe(200);
    expectSchema(ProjectListModel, res.body);
    expectExactKeys(res.body, ['projects', 'unfiledCount', 'totalCount']);
    for (const p of res.body.projects) expectProject(p);
    return res.body;
  }

  describe('POST /projects', () => {
    test('201 Project', async () => {
      const res = await api(t, 'POST', '/projects', { key: su, body: { name: 'Spring campaign' } });
      expect(res.status).toBe(201);
      expectProject(res.body);
      const { id, ...rest } = res.body;
      expect(id).toEqual(expect.any(String));
      expect(rest).toEqual({ name: 'Spring campaign', linkCount: 0, createdAt: T0, updatedAt: T0 });
    });

    blind('the name is trimmed', async () => {
      const p = await createProject('  Padded  ');
      expect(p.name).toBe('Padded');
    });

    test('100 characters is the longest name', async () => {
      const p = await createProject('n'.repeat(100));
      expect(p.name).toBe('n'.repeat(100));
    });

    test('a duplicate name -> 409 conflict (field name), also in another case or with spaces', async () => {
      const first = await createProject('Ads');
      for (const name of ['Ads', 'ads', 'ADS', '  Ads ']) {
        expectError(await api(t, 'POST', '/projects', { key: su, body: { name } }), 409, 'conflict', 'name');
      }
      expect((await listProjects()).projects).toEqual([first]);
    });

    const badNames: [string, unknown][] = [
      ['empty', ''],
      ['blank', '   '],
      ['101 characters', 'n'.repeat(101)],
      ['a control character', 'a\u0000b'],
      ['a number', 5],
      ['null', null],
    ];
    for (const [what, name] of badNames) {
      blind(`a name that is ${what} -> 400 invalid_request (field name)`, async () => {
        expectError(await api(t, 'POST', '/projects', { key: su, body: { name } }), 400, 'invalid_request', 'name');
        expect((await listProjects()).projects).toEqual([]);
      });
    }

    blind('a missing name -> 400 field name', async () => {
      expectError(await api(t, 'POST', '/projects', { key: su, body: {} }), 400, 'invalid_request', 'name');
    });

    blind('a read key cannot create a project', async () => {
      const { key } = await makeKey(t, 'read');
      expectError(await api(t, 'POST', '/projects', { key, body: { name: 'Nope' } }), 403, 'insufficient_scope', null);
      expect((await listProjects()).projects).toEqual([]);
    });
  });

  describe('GET /projects', () => {
    test('empty workspace', async () => {
      expect(await listProjects()).toEqual({ projects: [], unfiledCount: 0, totalCount: 0 });
    });

    test('projects with link counts (archived included), unfiled and total counts, sorted by name', async () => {
      const zebra = await createProject('zebra');
      const apple = await createProject('Apple');
      const empty = await createProject('middle');
      await createLink({ projectId: zebra.id });
      await createLink({ projectId: zebra.id });
      const archived = await createLink({ projectId: zebra.id });
      await createLink({ projectId: apple.id });
      await createLink();
      const paused = await createLink();
      expect((await api(t, 'PATCH', `/links/${archived.id}`, { key: su, body: { status: 'archived' } })).status).toBe(
        200,
      );
      expect((await api(t, 'PATCH', `/links/${paused.id}`, { key: su, body: { status: 'paused' } })).status).toBe(200);
      expect(await listProjects()).toEqual({
        projects: [
          { ...apple, linkCount: 1 },
          { ...empty, linkCount: 0 },
          { ...zebra, linkCount: 3 },
        ],
        unfiledCount: 2,
        totalCount: 6,
      });
    });

    blind('a read key may list', async () => {
      const p = await createProject('Visible');
      const { key } = await makeKey(t, 'read');
      const res = await api(t, 'GET', '/projects', { key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ projects: [p], unfiledCount: 0, totalCount: 0 });
    });
  });

  describe('links filed in projects', () => {
    test('projectId on create sets projectId and projectName', async () => {
      const p = await createProject('Newsletter');
      const link = await createLink({ projectId: p.id });
      expect([link.projectId, link.projectName]).toEqual([p.id, 'Newsletter']);
      expect(await getLink(link.id)).toEqual(link);
    });

    test('PATCH projectId files a link, moves it, and null unfiles it', async () => {
      const a = await createProject('A');
      const b = await createProject('B');
      const link = await createLink();
      expect([link.projectId, link.projectName]).toEqual([null, null]);

      const filed = await api(t, 'PATCH', `/links/${link.id}`, { key: su, body: { projectId: a.id } });
      expect(filed.status).toBe(200);
      expect([filed.body.projectId, filed.body.projectName]).toEqual([a.id, 'A']);
      expect((await listProjects()).projects.map((p: any) => p.linkCount)).toEqual([1, 0]);

      const moved = await api(t, 'PATCH', `/links/${link.id}`, { key: su, body: { projectId: b.id } });
      expect([moved.body.projectId, moved.body.projectName]).toEqual([b.id, 'B']);
      expect((await listProjects()).projects.map((p: any) => p.linkCount)).toEqual([0, 1]);

      // Other PATCHes leave the project alone.
      const titled = await api(t, 'PATCH', `/links/${link.id}`, { key: su, body: { title: 't' } });
      expect([titled.body.projectId, titled.body.projectName]).toEqual([b.id, 'B']);

      const unfiled = await api(t, 'PATCH', `/links/${link.id}`, { key: su, body: { projectId: null } });
      expect(unfiled.status).toBe(200);
      expect([unfiled.body.projectId, unfiled.body.projectName]).toEqual([null, null]);
      const list = await listProjects();
      expect(list.projects.map((p: any) => p.linkCount)).toEqual([0, 0]);
      expect([list.unfiledCount, list.totalCount]).toEqual([1, 1]);
    });

    test('an unknown projectId on create or PATCH -> 400 field projectId', async () => {
      expectError(
        await api(t, 'POST', '/links', {
          key: su,
          body: { destination: 'https://example.com/', projectId: 'prj_nope' },
        }),
        400,
        'invalid_request',
        'projectId',
      );
      const link = await createLink();
      expectError(
        await api(t, 'PATCH', `/links/${link.id}`, { key: su, body: { projectId: 'prj_nope' } }),
        400,
        'invalid_request',
        'projectId',
      );
      expect(await getLink(link.id)).toEqual(link);
    });

    test('list filters project=<id> and project=none', async () => {
      const p = await createProject('P');
      const inside = await createLink({ projectId: p.id });
      const outside = await createLink();
      const byProject = await api(t, 'GET', `/links?project=${p.id}`, { key: su });
      expect(byProject.status).toBe(200);
      expect(byProject.body.items.map((l: any) => l.id)).toEqual([inside.id]);
      const none = await api(t, 'GET', '/links?project=none', { key: su });
      expect(none.body.items.map((l: any) => l.id)).toEqual([outside.id]);
    });
  });

  describe('PATCH /projects/{id}', () => {
    test('200 renamed project; links show the new name at once', async () => {
      const p = await createProject('Old name');
      const link = await createLink({ projectId: p.id });
      await createLink({ projectId: p.id });
      t.clock.advance(7_000);
      const res = await api(t, 'PATCH', `/projects/${p.id}`, { key: su, body: { name: '  New name ' } });
      expect(res.status).toBe(200);
      expectProject(res.body);
      expect(res.body).toEqual({ ...p, name: 'New name', linkCount: 2, updatedAt: T0 + 7_000 });
      expect((await getLink(link.id)).projectName).toBe('New name');
      const list = await api(t, 'GET', `/links?project=${p.id}`, { key: su });
      expect(list.body.items.map((l: any) => l.projectName)).toEqual(['New name', 'New name']);
      expect((await listProjects()).projects).toEqual([res.body]);
    });

    test('renaming to its own name in another case is allowed', async () => {
      const p = await createProject('Ads');
      t.clock.advance(1_000);
      const res = await api(t, 'PATCH', `/projects/${p.id}`, { key: su, body: { name: 'ADS' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...p, name: 'ADS', updatedAt: T0 + 1_000 });
    });

    test('renaming to the same name changes nothing', async () => {
      const p = await createProject('Same');
      t.clock.advance(1_000);
      const res = await api(t, 'PATCH', `/projects/${p.id}`, { key: su, body: { name: 'Same' } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(p);
    });

    test("renaming to another project's name -> 409 conflict (field name), in any case", async () => {
      const a = await createProject('Alpha');
      const b = await createProject('Beta');
      for (const name of ['Alpha', 'alpha', ' ALPHA ']) {
        expectError(await api(t, 'PATCH', `/projects/${b.id}`, { key: su, body: { name } }), 409, 'conflict', 'name');
      }
      expect((await listProjects()).projects).toEqual([a, b]);
    });

    blind('an invalid name -> 400 field name', async () => {
      const p = await createProject('Valid');
      for (const name of ['', '  ', 'n'.repeat(101)]) {
        expectError(
          await api(t, 'PATCH', `/projects/${p.id}`, { key: su, body: { name } }),
          400,
          'invalid_request',
          'name',
        );
      }
      expectError(await api(t, 'PATCH', `/projects/${p.id}`, { key: su, body: {} }), 400, 'invalid_request', 'name');
      expect((await listProjects()).projects).toEqual([p]);
    });

    test('unknown project -> 404 not_found', async () => {
      expectError(
        await api(t, 'PATCH', '/projects/prj_doesnotexist00', { key: su, body: { name: 'x' } }),
        404,
        'not_found',
        null,
      );
    });
  });

  describe('DELETE /projects/{id}', () => {
    test('200; links inside are unfiled, never deleted', async () => {
      const p = await createProject('Doomed');
      const keep = await createProject('Kept');
      const l1 = await createLink({ projectId: p.id, title: 'one' });
      const l2 = await createLink({ projectId: p.id, title: 'two' });
      const l3 = await createLink({ projectId: keep.id });
      const res = await api(t, 'DELETE', `/projects/${p.id}`, { key: su });
      expect(res.status).toBe(200);
      expectSchema(ProjectDeletedModel, res.body);
      expect(res.body).toEqual({ id: p.id, deleted: true, unfiledLinks: 2 });

      for (const l of [l1, l2]) {
        const got = await getLink(l.id);
        expect(got).toMatchObject({ id: l.id, title: l.title, projectId: null, projectName: null });
      }
      expect((await getLink(l3.id)).projectId).toBe(keep.id);
      expect(await listProjects()).toEqual({ projects: [{ ...keep, linkCount: 1 }], unfiledCount: 2, totalCount: 3 });
      const none = await api(t, 'GET', '/links?project=none', { key: su });
      expect(none.body.items.map((l: any) => l.id).sort()).toEqual([l1.id, l2.id].sort());
      const gone = await api(t, 'GET', `/links?project=${p.id}`, { key: su });
      expect(gone.body.items).toEqual([]);
    });

    test('links with clicks are unfiled too (never deleted)', async () => {
      const p = await createProject('Clicked');
      const link = await createLink({ projectId: p.id, tags: ['t'] });
      expect((await api(t, 'DELETE', `/projects/${p.id}`, { key: su })).status).toBe(200);
      const got = await getLink(link.id);
      expect(got).toMatchObject({ projectId: null, projectName: null, tags: ['t'] });
    });

    test('a second delete, or an unknown id -> 404 not_found', async () => {
      const p = await createProject('Once');
      expect((await api(t, 'DELETE', `/projects/${p.id}`, { key: su })).status).toBe(200);
      expectError(await api(t, 'DELETE', `/projects/${p.id}`, { key: su }), 404, 'not_found', null);
      expectError(await api(t, 'DELETE', '/projects/prj_doesnotexist00', { key: su }), 404, 'not_found', null);
      expectError(await api(t, 'PATCH', `/projects/${p.id}`, { key: su, body: { name: 'x' } }), 404, 'not_found', null);
    });

    test('the name is free again after a delete, and the old id no longer files links', async () => {
      const p = await createProject('Reuse');
      expect((await api(t, 'DELETE', `/projects/${p.id}`, { key: su })).status).toBe(200);
      const again = await createProject('reuse');
      expect(again.id).not.toBe(p.id);
      expectError(
        await api(t, 'POST', '/links', { key: su, body: { destination: 'https://example.com/', projectId: p.id } }),
        400,
        'invalid_request',
        'projectId',
      );
    });

    blind('a read key cannot delete a project', async () => {
      const p = await createProject('Safe');
      const { key } = await makeKey(t, 'read');
      expectError(await api(t, 'DELETE', `/projects/${p.id}`, { key }), 403, 'insufficient_scope', null);
      expect((await listProjects()).projects).toEqual([p]);
    });
  });
});
