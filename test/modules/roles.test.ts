/**
 * Account roles at the API edge, on both engines (a key's account and its role are read by the
 * store's join): a viewer's session and keys read links and statistics but every write is 403
 * insufficient_scope; a viewer cannot make a write key; it still manages its own keys and
 * sessions; an admin keeps every power (custom slugs, accounts, any scope).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApiKey } from '../../src/modules/auth/keys';
import { api, disposeTestApp, makeAccount, makeTestApp, type TestApp } from '../helpers/app';
import { dash } from '../helpers/dashboard';
import { databaseEnv, forEachEngine } from '../helpers/engines';
import { expectError } from '../helpers/schema';
import { sessionFor, type TestSession } from '../helpers/session';

forEachEngine((engine) => {
  describe('roles', () => {
    let t: TestApp;
    let viewer: TestSession;
    let viewerKey: string;
    let linkId: string;
    beforeAll(async () => {
      t = await makeTestApp(await databaseEnv(engine));
      const editor = await makeAccount(t, { role: 'editor' });
      const editorKey = await createApiKey(t.deps, { accountId: editor.id, scope: 'write' });
      const made = await api(t, 'POST', '/links', {
        key: editorKey.key,
        body: { destination: 'https://example.com/a' },
      });
      expect(made.status).toBe(201);
      linkId = made.body.id;
      viewer = await sessionFor(t, { role: 'viewer' });
      viewerKey = (await createApiKey(t.deps, { accountId: viewer.accountId, scope: 'read' })).key;
    });
    afterAll(() => disposeTestApp(t));

    test("a viewer's key and session read links and statistics, and /me says viewer", async () => {
      const me = await api(t, 'GET', '/me', { key: viewerKey });
      expect(me.status).toBe(200);
      expect(me.body.account).toEqual({
        id: viewer.accountId,
        email: viewer.email,
        superuser: false,
        role: 'viewer',
        projects: null,
      });
      for (const call of [{ key: viewerKey }, { headers: { cookie: viewer.cookie } }]) {
        const list = await api(t, 'GET', '/links', call);
        expect(list.status).toBe(200);
        expect(list.body.items.map((l: { id: string }) => l.id)).toContain(linkId);
        expect((await api(t, 'GET', `/links/${linkId}`, call)).status).toBe(200);
        expect((await api(t, 'GET', `/links/${linkId}/stats`, call)).status).toBe(200);
        expect((await api(t, 'GET', '/workspace/stats', call)).status).toBe(200);
      }
    });

    test("every write through a viewer's session or key is 403 insufficient_scope, and changes nothing", async () => {
      const writes: [string, string, unknown][] = [
        ['POST', '/links', { destination: 'https://example.com/new' }],
        ['PATCH', `/links/${linkId}`, { title: 'changed' }],
        ['DELETE', `/links/${linkId}`, undefined],
        ['POST', '/projects', { name: 'p' }],
      ];
      for (const [method, path, body] of writes) {
        expectError(await api(t, method, path, { key: viewerKey, body }), 403, 'insufficient_scope');
        expectError(
          await dash(t, method, `/api/v1${path}`, { cookie: viewer.cookie, body }),
          403,
          'insufficient_scope',
        );
      }
      const link = await api(t, 'GET', `/links/${linkId}`, { key: viewerKey });
      expect(link.status).toBe(200);
      expect(link.body.title ?? null).toBeNull();
    });

    test('a viewer cannot make a write key (403 insufficient_scope, field scope); it manages its own read keys and sessions', async () => {
      const refused = await dash(t, 'POST', '/keys', { cookie: viewer.cookie, body: { scope: 'write' } });
      expectError(refused, 403, 'insufficient_scope', 'scope');
      const made = await dash(t, 'POST', '/keys', { cookie: viewer.cookie, body: { scope: 'read', name: 'mine' } });
      expect(made.status).toBe(201);
      expect(made.body.item.scope).toBe('read');
      const keys = await dash(t, 'GET', '/keys', { cookie: viewer.cookie });
      expect(keys.body.items.map((k: { id: string }) => k.id)).toContain(made.body.item.id);
      expect((await dash(t, 'DELETE', `/keys/${made.body.item.id}`, { cookie: viewer.cookie })).status).toBe(204);
      expect((await api(t, 'GET', '/me', { key: made.body.key })).status).toBe(401);
      const sessions = await dash(t, 'GET', '/sessions', { cookie: viewer.cookie });
      expect(sessions.status).toBe(200);
      expect(sessions.body.items.map((s: { id: string }) => s.id)).toContain(viewer.sessionId);
    });

    test("a viewer's create key (for a form) creates links, and nothing else", async () => {
      const made = await dash(t, 'POST', '/keys', { cookie: viewer.cookie, body: { scope: 'create', name: 'form' } });
      expect(made.status).toBe(201);
      const key = made.body.key as string;
      const created = await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/from-a-form' } });
      expect([created.status, created.body.destination]).toEqual([201, 'https://example.com/from-a-form']);
      expectError(await api(t, 'GET', `/links/${created.body.id}`, { key }), 403, 'insufficient_scope');
      expectError(
        await api(t, 'PATCH', `/links/${created.body.id}`, { key, body: { title: 'x' } }),
        403,
        'insufficient_scope',
      );
    });

    test('an admin keeps every power: custom slugs, accounts, write keys', async () => {
      const admin = await sessionFor(t, { role: 'admin' });
      const me = await dash(t, 'GET', '/api/v1/me', { cookie: admin.cookie });
      expect(me.body.account).toMatchObject({ superuser: true, role: 'admin' });
      const link = await dash(t, 'POST', '/api/v1/links', {
        cookie: admin.cookie,
        body: { destination: 'https://example.com/b', slug: `admin-${engine}` },
      });
      expect(link.status).toBe(201);
      const accounts = await dash(t, 'GET', '/accounts', { cookie: admin.cookie });
      expect(accounts.status).toBe(200);
      expect(accounts.body.items.find((a: { id: string }) => a.id === viewer.accountId).role).toBe('viewer');
      const key = await dash(t, 'POST', '/keys', { cookie: admin.cookie, body: { scope: 'write' } });
      expect(key.status).toBe(201);
    });
  });
});
