/**
 * The `create` key scope: POST /links and GET /me, nothing else (403 insufficient_scope on every
 * other endpoint, reads included); a custom slug still needs a superuser account. The scope is
 * stored and read back by each engine; the refusals are the guard's and run once.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { MeModel } from '../../src/modules/auth/model';
import { api, makeKey, makeTestApp, type TestApp } from '../helpers/app';
import { engineBlind, forEachEngine } from '../helpers/engines';
import { expectError, expectSchema } from '../helpers/schema';

forEachEngine((engine) => {
  describe('a create key', () => {
    let t: TestApp;
    let create: Awaited<ReturnType<typeof makeKey>>;
    let superCreate: Awaited<ReturnType<typeof makeKey>>;
    let write: Awaited<ReturnType<typeof makeKey>>;
    let linkId: string;
    beforeAll(async () => {
      t = await makeTestApp({}, { engine });
      create = await makeKey(t, 'create');
      superCreate = await makeKey(t, 'create', { superuser: true });
      write = await makeKey(t, 'write');
      const link = await api(t, 'POST', '/links', { key: write.key, body: { destination: 'https://a.example/' } });
      expect(link.status).toBe(201);
      linkId = link.body.id;
    });
    afterAll(async () => {
      expect(t.errors).toEqual([]);
      await t.close();
    });

    test('creates a link (201) and reads /me (200, scope create)', async () => {
      const created = await api(t, 'POST', '/links', { key: create.key, body: { destination: 'https://b.example/x' } });
      expect(created.status).toBe(201);
      expect(created.body.destination).toBe('https://b.example/x');
      const seen = await api(t, 'GET', `/links/${created.body.id}`, { key: write.key });
      expect(seen.status).toBe(200);
      expect(seen.body.destination).toBe('https://b.example/x');

      const me = await api(t, 'GET', '/me', { key: create.key });
      expect(me.status).toBe(200);
      expectSchema(MeModel, me.body);
      expect(me.body.scope).toBe('create');
      expect(me.body.key).toMatchObject({ id: create.keyId, scope: 'create' });
      expect(me.body.account).toMatchObject({ id: create.account.id, superuser: false });
    });

    engineBlind(engine)('may not choose a slug unless its account is a superuser', async () => {
      const refused = await api(t, 'POST', '/links', {
        key: create.key,
        body: { destination: 'https://c.example/', slug: 'mine' },
      });
      expectError(refused, 403, 'superuser_required', 'slug');
      const allowed = await api(t, 'POST', '/links', {
        key: superCreate.key,
        body: { destination: 'https://c.example/', slug: 'mine' },
      });
      expect(allowed.status).toBe(201);
      expect(allowed.body.slug).toBe('mine');
    });

    engineBlind(engine)('every other endpoint is 403 insufficient_scope and changes nothing', async () => {
      const attempts: [string, string, unknown?][] = [
        ['GET', '/links'],
        ['GET', `/links/${linkId}`],
        ['PATCH', `/links/${linkId}`, { title: 'changed' }],
        ['DELETE', `/links/${linkId}`],
        ['GET', `/links/${linkId}/stats`],
        ['GET', `/links/${linkId}/clicks`],
        ['POST', `/links/${linkId}/rules/test`, {}],
        ['POST', `/links/${linkId}/variants`, { code: 'v2' }],
        ['POST', '/links/bulk/delete', { ids: [linkId] }],
        ['GET', '/links/count'],
        ['GET', '/workspace'],
        ['GET', '/workspace/stats'],
        ['GET', '/projects'],
        ['POST', '/projects', { name: 'Alpha' }],
        ['GET', '/webhooks'],
        ['POST', '/webhooks', { url: 'https://hooks.example.com/a', events: ['clicks'] }],
        ['GET', '/domains'],
        ['POST', '/domains', { origin: 'https://other.example' }],
        ['GET', '/events'],
      ];
      for (const [method, path, body] of attempts) {
        const res = await api(t, method, path, { key: create.key, body });
        expectError(res, 403, 'insufficient_scope', null);
        expect(res.body.error.message).toContain('create');
      }
      // A path no route has is 404 for every caller: the routes are public (OpenAPI), nothing leaks.
      expectError(await api(t, 'GET', '/no-such-route', { key: create.key }), 404, 'not_found', null);
      const after = await api(t, 'GET', `/links/${linkId}`, { key: write.key });
      expect(after.status).toBe(200);
      expect(after.body.title).toBeNull();
    });
  });
});
