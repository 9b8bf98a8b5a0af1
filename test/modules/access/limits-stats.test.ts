/**
 * Project and domain limits on workspace statistics, on both engines (the set of links is read by
 * each store, their rollup scopes by each analytics store): a limited caller's GET
 * /workspace/stats, with or without `domain=`, sums only the links it sees, top links included;
 * an unlimited caller still reads the whole workspace.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApiKey } from '../../../src/modules/auth/keys';
import { api, disposeTestApp, makeAccount, makeTestApp, type TestApp } from '../../helpers/app';
import { databaseEnv, forEachEngine } from '../../helpers/engines';
import { clickRequest, flushOk, UA } from '../clicks/support';

forEachEngine((engine) => {
  describe('project and domain limits on statistics', () => {
    let t: TestApp;
    let admin: string;
    /** Account limited to project A: a1, a2. */
    let readerA: string;
    /** Key limited to go.test: a2, u1. */
    let goKey: string;
    /** Account limited to A, its key to go.test: a2. */
    let aGoKey: string;
    /** Account limited to project C, which has no link. */
    let readerC: string;
    const links: Record<string, { id: string; slug: string }> = {};

    const stats = async (key: string, query = '') => {
      const res = await api(t, 'GET', `/workspace/stats${query}`, { key });
      expect({ query, status: res.status }).toEqual({ query, status: 200 });
      return res.body;
    };
    /** Totals and top links by name. */
    const summary = async (key: string, query = '') => {
      const body = await stats(key, query);
      const name = (id: string) => Object.keys(links).find((n) => links[n]!.id === id) ?? id;
      return {
        clicks: body.totals.clicks,
        uniques: body.totals.uniques,
        top: body.topLinks.map((l: { id: string; clicks: number }) => [name(l.id), l.clicks]),
      };
    };

    beforeAll(async () => {
      t = await makeTestApp({ ...(await databaseEnv(engine)), SLINK_TRUST_PROXY: '1' });
      const adminAccount = await makeAccount(t, { role: 'admin' });
      admin = (await createApiKey(t.deps, { accountId: adminAccount.id, scope: 'write' })).key;
      expect((await api(t, 'POST', '/domains', { key: admin, body: { origin: 'https://go.test' } })).status).toBe(201);
      const project = async (name: string) =>
        (await api(t, 'POST', '/projects', { key: admin, body: { name } })).body.id as string;
      const [projectA, projectB, projectC] = [await project('A'), await project('B'), await project('C')];
      const made: [string, Record<string, unknown>, number][] = [
        ['a1', { projectId: projectA }, 3],
        ['a2', { projectId: projectA, domain: 'go.test' }, 2],
        ['b1', { projectId: projectB }, 4],
        ['u1', { domain: 'go.test' }, 1],
      ];
      let address = 10;
      for (const [name, fields, clicks] of made) {
        const res = await api(t, 'POST', '/links', {
          key: admin,
          body: { destination: `https://example.com/${name}`, ...fields },
        });
        expect(res.status).toBe(201);
        links[name] = res.body;
        const origin = fields.domain === 'go.test' ? 'https://go.test' : 'https://sl.test';
        for (let i = 0; i < clicks; i++) {
          const visit = await t.app.handle(
            clickRequest(`/${res.body.slug}`, { ua: UA.chromeWin, ip: `203.0.113.${address++}` }, origin),
          );
          expect(visit.status).toBe(302);
        }
      }
      await flushOk(t);
      const accountA = await makeAccount(t, { role: 'viewer', projects: [projectA] });
      readerA = (await createApiKey(t.deps, { accountId: accountA.id, scope: 'read' })).key;
      aGoKey = (await createApiKey(t.deps, { accountId: accountA.id, scope: 'read', domains: ['go.test'] })).key;
      const editor = await makeAccount(t, { role: 'editor' });
      goKey = (await createApiKey(t.deps, { accountId: editor.id, scope: 'read', domains: ['go.test'] })).key;
      const accountC = await makeAccount(t, { role: 'editor', projects: [projectC] });
      readerC = (await createApiKey(t.deps, { accountId: accountC.id, scope: 'read' })).key;
    });
    afterAll(() => disposeTestApp(t));

    test('a limited caller sums only the links it sees, with or without domain=, top links included', async () => {
      // An unlimited caller reads the whole workspace, and each domain, as ever.
      expect(await summary(admin)).toEqual({
        clicks: 10,
        uniques: 10,
        top: [
          ['b1', 4],
          ['a1', 3],
          ['a2', 2],
          ['u1', 1],
        ],
      });
      expect((await summary(admin, '?domain=go.test')).clicks).toBe(3);
      expect(await summary(readerA)).toEqual({
        clicks: 5,
        uniques: 5,
        top: [
          ['a1', 3],
          ['a2', 2],
        ],
      });
      expect(await summary(readerA, '?domain=go.test')).toEqual({ clicks: 2, uniques: 2, top: [['a2', 2]] });
      expect(await summary(readerA, '?domain=sl.test&range=all')).toEqual({ clicks: 3, uniques: 3, top: [['a1', 3]] });
      expect(await summary(goKey)).toEqual({
        clicks: 3,
        uniques: 3,
        top: [
          ['a2', 2],
          ['u1', 1],
        ],
      });
      expect(await summary(aGoKey)).toEqual({ clicks: 2, uniques: 2, top: [['a2', 2]] });
      // The series adds up to the totals, as the workspace's does.
      const body = await stats(readerA, '?range=24h');
      expect(body.series.reduce((n: number, p: { clicks: number }) => n + p.clicks, 0)).toBe(body.totals.clicks);
      expect(body.totals.clicks).toBe(5);
    });

    test('a limited caller whose links were never clicked reads zeros', async () => {
      expect(await summary(readerC)).toEqual({ clicks: 0, uniques: 0, top: [] });
      expect(await summary(readerC, '?range=all')).toEqual({ clicks: 0, uniques: 0, top: [] });
    });
  });
});
