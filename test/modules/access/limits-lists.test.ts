/**
 * Project and domain limits on lists and counts, on both engines (each store adds the limits to
 * its own statements): GET /links (every page), /links/count, /links/tags, /projects and
 * /domains count only the links a limited caller sees; an unlimited caller still sees them all.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApiKey } from '../../../src/modules/auth/keys';
import { api, disposeTestApp, makeAccount, makeTestApp, type TestApp } from '../../helpers/app';
import { databaseEnv, forEachEngine } from '../../helpers/engines';

forEachEngine((engine) => {
  describe('project and domain limits on lists and counts', () => {
    let t: TestApp;
    let admin: string;
    /** Account limited to project A: a1, a2. */
    let editorA: string;
    /** Key limited to go.test: a2, u1. */
    let goKey: string;
    /** Account limited to A, its key to go.test: a2. */
    let aGoKey: string;
    let projectA: string;
    let projectB: string;
    const ids: Record<string, string> = {};

    const get = async (key: string, path: string) => {
      const res = await api(t, 'GET', path, { key });
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      return res.body;
    };
    /** Every page of GET /links, one link a page, as names. */
    const listed = async (key: string, query = '') => {
      const names: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { items: { id: string }[]; cursor: string | null } = await get(
          key,
          `/links?limit=1${query}${cursor ? `&cursor=${cursor}` : ''}`,
        );
        for (const item of page.items) names.push(Object.keys(ids).find((n) => ids[n] === item.id) ?? item.id);
        cursor = page.cursor;
      } while (cursor !== null);
      return names.sort();
    };

    beforeAll(async () => {
      t = await makeTestApp(await databaseEnv(engine));
      const adminAccount = await makeAccount(t, { role: 'admin' });
      admin = (await createApiKey(t.deps, { accountId: adminAccount.id, scope: 'write' })).key;
      expect((await api(t, 'POST', '/domains', { key: admin, body: { origin: 'https://go.test' } })).status).toBe(201);
      projectA = (await api(t, 'POST', '/projects', { key: admin, body: { name: 'A' } })).body.id;
      projectB = (await api(t, 'POST', '/projects', { key: admin, body: { name: 'B' } })).body.id;
      const links: [string, Record<string, unknown>][] = [
        ['a1', { projectId: projectA, tags: ['t1'] }],
        ['a2', { projectId: projectA, domain: 'go.test', tags: ['t1', 't2'] }],
        ['b1', { projectId: projectB, tags: ['t1'] }],
        ['u1', { domain: 'go.test', tags: ['t3'] }],
      ];
      for (const [name, fields] of links) {
        const res = await api(t, 'POST', '/links', {
          key: admin,
          body: { destination: `https://example.com/${name}`, ...fields },
        });
        expect(res.status).toBe(201);
        ids[name] = res.body.id;
      }
      const accountA = await makeAccount(t, { role: 'editor', projects: [projectA] });
      editorA = (await createApiKey(t.deps, { accountId: accountA.id, scope: 'read' })).key;
      aGoKey = (await createApiKey(t.deps, { accountId: accountA.id, scope: 'read', domains: ['go.test'] })).key;
      const editor = await makeAccount(t, { role: 'editor' });
      goKey = (await createApiKey(t.deps, { accountId: editor.id, scope: 'read', domains: ['go.test'] })).key;
    });
    afterAll(() => disposeTestApp(t));

    test('GET /links and /links/count list and count only the links the caller sees, with any filter', async () => {
      expect(await listed(admin)).toEqual(['a1', 'a2', 'b1', 'u1']);
      expect(await listed(editorA)).toEqual(['a1', 'a2']);
      expect(await listed(goKey)).toEqual(['a2', 'u1']);
      expect(await listed(aGoKey)).toEqual(['a2']);
      expect(await listed(editorA, `&project=${projectB}`)).toEqual([]);
      expect(await listed(editorA, '&domain=go.test')).toEqual(['a2']);
      expect(await listed(goKey, '&project=none')).toEqual(['u1']);
      expect(await listed(editorA, '&tag=t1&sort=clicks')).toEqual(['a1', 'a2']);
      const counts = await Promise.all(
        [admin, editorA, goKey, aGoKey].map(async (key) => (await get(key, '/links/count')).count),
      );
      expect(counts).toEqual([4, 2, 2, 1]);
      expect((await get(editorA, `/links/count?project=${projectB}`)).count).toBe(0);
      expect((await get(goKey, '/links/count?tag=t1')).count).toBe(1);
    });

    test('GET /links/tags counts the tags of the links the caller sees', async () => {
      expect((await get(admin, '/links/tags')).tags).toEqual([
        { tag: 't1', count: 3 },
        { tag: 't2', count: 1 },
        { tag: 't3', count: 1 },
      ]);
      expect((await get(editorA, '/links/tags')).tags).toEqual([
        { tag: 't1', count: 2 },
        { tag: 't2', count: 1 },
      ]);
      expect((await get(goKey, '/links/tags')).tags).toEqual([
        { tag: 't1', count: 1 },
        { tag: 't2', count: 1 },
        { tag: 't3', count: 1 },
      ]);
      expect((await get(aGoKey, '/links/tags')).tags).toEqual([
        { tag: 't1', count: 1 },
        { tag: 't2', count: 1 },
      ]);
    });

    test("GET /projects lists a project-limited caller's projects; its counts count what the caller sees", async () => {
      const counted = (body: {
        projects: { name: string; linkCount: number }[];
        unfiledCount: number;
        totalCount: number;
      }) => ({
        projects: body.projects.map((p) => [p.name, p.linkCount]),
        unfiled: body.unfiledCount,
        total: body.totalCount,
      });
      expect(counted(await get(admin, '/projects'))).toEqual({
        projects: [
          ['A', 2],
          ['B', 1],
        ],
        unfiled: 1,
        total: 4,
      });
      expect(counted(await get(editorA, '/projects'))).toEqual({ projects: [['A', 2]], unfiled: 0, total: 2 });
      expect(counted(await get(goKey, '/projects'))).toEqual({
        projects: [
          ['A', 1],
          ['B', 0],
        ],
        unfiled: 1,
        total: 2,
      });
      expect(counted(await get(aGoKey, '/projects'))).toEqual({ projects: [['A', 1]], unfiled: 0, total: 1 });
    });

    test('GET /domains and /domains/{host} count the links the caller sees on each', async () => {
      const counted = async (key: string) =>
        ((await get(key, '/domains')).domains as { host: string; linkCount: number }[]).map((d) => [
          d.host,
          d.linkCount,
        ]);
      expect(await counted(admin)).toEqual([
        ['sl.test', 2],
        ['go.test', 2],
      ]);
      expect(await counted(editorA)).toEqual([
        ['sl.test', 1],
        ['go.test', 1],
      ]);
      expect(await counted(goKey)).toEqual([['go.test', 2]]);
      expect(await counted(aGoKey)).toEqual([['go.test', 1]]);
      expect((await get(editorA, '/domains/sl.test')).linkCount).toBe(1);
      expect((await get(aGoKey, '/domains/go.test')).linkCount).toBe(1);
      expect((await get(admin, '/domains/go.test')).linkCount).toBe(2);
    });
  });
});
