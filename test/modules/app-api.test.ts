/**
 * What only a signed-in person may do (/api/app): API keys (secret shown once; list; revoke),
 * deleting a link that has human clicks with its clicks and statistics, and, for superusers,
 * accounts (create, disable: sessions end and keys fail; enable again; never oneself).
 * Sessions come from the sessions service (helpers/session.ts): signing in itself is proven in
 * sessions.test.ts, and here once more where a re-enabled account signs in again.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { listAccounts } from '../../src/modules/auth/admin';
import { createApiKey } from '../../src/modules/auth/keys';
import { AccountItemModel, CreatedKeyModel, KeyListModel } from '../../src/modules/auth/model';
import { api, T0, type TestApp } from '../helpers/app';
import { dash, PASSWORD, signIn } from '../helpers/dashboard';
import { forEachEngine } from '../helpers/engines';
import { expectError, expectSchema } from '../helpers/schema';
import { sessionFor } from '../helpers/session';
import { storedLinkBuckets } from '../helpers/stored';
import { storedClicks } from '../helpers/stored-clicks';
import { click, flushOk, setup, UA } from './clicks/support';

let t: TestApp;
afterEach(() => {
  expect(t.errors).toEqual([]);
  return t.close();
});

forEachEngine((engine) => {
  describe('/api/app/keys', () => {
    test('create shows the secret once; the list never has it; revoke makes the key 401', async () => {
      ({ t } = await setup({}, engine));
      const { cookie, accountId } = await sessionFor(t);
      const created = await dash(t, 'POST', '/keys', { cookie, body: { name: 'CI', scope: 'write' } });
      expect(created.status).toBe(201);
      expectSchema(CreatedKeyModel, created.body);
      const { key, item } = created.body;
      expect(key).toMatch(/^slk_[A-Za-z0-9]{40}$/);
      expect(item).toEqual({
        id: expect.stringMatching(/^key_/),
        name: 'CI',
        prefix: key.slice(0, 12),
        scope: 'write',
        status: 'active',
        createdAt: T0,
        lastUsedAt: null,
        expiresAt: null,
        revokedAt: null,
        projects: null,
        domains: null,
      });
      const me = await api(t, 'GET', '/me', { key });
      expect(me.body.account.id).toBe(accountId);

      const list = await dash(t, 'GET', '/keys', { cookie });
      expect(list.status).toBe(200);
      expectSchema(KeyListModel, list.body);
      expect(list.body.items).toEqual([{ ...item, lastUsedAt: T0 }]);
      expect(list.text).not.toContain(key.slice(12));

      const revoked = await dash(t, 'DELETE', `/keys/${item.id}`, { cookie });
      expect(revoked.status).toBe(204);
      expect(revoked.text).toBe('');
      expectError(await api(t, 'GET', '/me', { key }), 401, 'key_revoked');
      expect((await dash(t, 'GET', '/keys', { cookie })).body.items[0]).toMatchObject({
        status: 'revoked',
        revokedAt: T0,
      });
    });

    test('expiry and validation: expiresAt in the future (else 400), status expired once passed; bad scope 400', async () => {
      ({ t } = await setup({}, engine));
      const { cookie } = await sessionFor(t);
      const soon = await dash(t, 'POST', '/keys', { cookie, body: { scope: 'read', expiresAt: T0 + 1000 } });
      expect(soon.body.item).toMatchObject({ status: 'active', expiresAt: T0 + 1000, name: null });
      t.clock.advance(1000);
      expect((await dash(t, 'GET', '/keys', { cookie })).body.items[0].status).toBe('expired');
      expectError(
        await dash(t, 'POST', '/keys', { cookie, body: { scope: 'read', expiresAt: T0 } }),
        400,
        'invalid_request',
        'expiresAt',
      );
      expectError(
        await dash(t, 'POST', '/keys', { cookie, body: { scope: 'admin' } }),
        400,
        'invalid_request',
        'scope',
      );
      expectError(
        await dash(t, 'POST', '/keys', { cookie, body: { scope: 'read', name: 'n'.repeat(101) } }),
        400,
        'invalid_request',
        'name',
      );
    });

    test('a create key: made with scope create, it creates links and reads nothing else', async () => {
      ({ t } = await setup({}, engine));
      const { cookie } = await sessionFor(t);
      const created = await dash(t, 'POST', '/keys', { cookie, body: { name: 'form', scope: 'create' } });
      expect(created.status).toBe(201);
      expectSchema(CreatedKeyModel, created.body);
      expect(created.body.item).toMatchObject({ name: 'form', scope: 'create', status: 'active' });
      expect((await dash(t, 'GET', '/keys', { cookie })).body.items[0].scope).toBe('create');
      const { key } = created.body;
      const link = await api(t, 'POST', '/links', { key, body: { destination: 'https://form.example/' } });
      expect(link.status).toBe(201);
      expectError(await api(t, 'GET', `/links/${link.body.id}`, { key }), 403, 'insufficient_scope', null);
    });

    test("another account's key is 404 to a person, revocable by a superuser; unknown ids 404", async () => {
      ({ t } = await setup({}, engine));
      const mine = await sessionFor(t);
      const theirs = await sessionFor(t);
      const admin = await sessionFor(t, { superuser: true });
      const made = await dash(t, 'POST', '/keys', { cookie: theirs.cookie, body: { scope: 'read' } });
      const id = made.body.item.id;
      expect((await dash(t, 'GET', '/keys', { cookie: mine.cookie })).body.items).toEqual([]);
      expectError(await dash(t, 'DELETE', `/keys/${id}`, { cookie: mine.cookie }), 404, 'not_found');
      expect((await api(t, 'GET', '/me', { key: made.body.key })).status).toBe(200);
      expect((await dash(t, 'DELETE', `/keys/${id}`, { cookie: admin.cookie })).status).toBe(204);
      expectError(await api(t, 'GET', '/me', { key: made.body.key }), 401, 'key_revoked');
      expectError(await dash(t, 'DELETE', '/keys/key_nope', { cookie: admin.cookie }), 404, 'not_found');
    });
  });
});

forEachEngine((engine) => {
  describe('DELETE /api/app/links/:id (with its clicks)', () => {
    test('the slug must match; then the link, its clicks and its statistics are gone, workspace numbers too', async () => {
      const c = await setup({}, engine);
      t = c.t;
      const { cookie } = await sessionFor(t);
      // A chosen slug (superuser key) whose upper-case spelling surely differs from it.
      const body = { destination: 'https://a.example', slug: 'Doomed-1' };
      const doomed = (await api(t, 'POST', '/links', { key: c.key, body })).body;
      const kept = (await dash(t, 'POST', '/api/v1/links', { cookie, body: { destination: 'https://b.example' } }))
        .body;
      for (const ip of ['192.0.2.1', '192.0.2.2', '192.0.2.3'])
        expect(await click(t, `/${doomed.slug}`, { ip })).toBe(302);
      expect(await click(t, `/${doomed.slug}`, { ua: UA.googlebot })).toBe(302);
      expect(await click(t, `/${kept.slug}`, { ip: '192.0.2.9' })).toBe(302);
      await flushOk(t);
      const before = await api(t, 'GET', '/workspace/stats?from=2026-11-21&to=2026-11-21', { key: c.key });
      expect(before.body.totals).toMatchObject({ clicks: 4, bots: 1 });
      expectError(await api(t, 'DELETE', `/links/${doomed.id}`, { key: c.key }), 409, 'delete_requires_dashboard');

      for (const slug of ['wrong', doomed.slug.toUpperCase(), ` ${doomed.slug}`, '']) {
        const res = await dash(t, 'DELETE', `/links/${doomed.id}`, { cookie, body: { slug } });
        expectError(res, 400, 'invalid_request', 'slug');
      }
      expectError(await dash(t, 'DELETE', `/links/${doomed.id}`, { cookie, body: {} }), 400, 'invalid_request', 'slug');
      expect((await api(t, 'GET', `/links/${doomed.id}`, { key: c.key })).status).toBe(200);

      // A human click still in the buffer goes with the link.
      expect(await click(t, `/${doomed.slug}`, { ip: '192.0.2.4' })).toBe(302);
      const res = await dash(t, 'DELETE', `/links/${doomed.id}`, { cookie, body: { slug: doomed.slug } });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      await flushOk(t);
      expectError(await api(t, 'GET', `/links/${doomed.id}`, { key: c.key }), 404, 'not_found');
      expect(await click(t, `/${doomed.slug}`)).toBe(404);
      expect(await storedClicks(t, doomed.id)).toEqual([]);
      expect(await storedLinkBuckets(t, doomed.id)).toBe(0);
      // The kept link keeps its click and its buckets.
      expect(await storedClicks(t, kept.id)).toHaveLength(1);
      expect(await storedLinkBuckets(t, kept.id)).toBeGreaterThan(0);
      const after = await api(t, 'GET', '/workspace/stats?from=2026-11-21&to=2026-11-21', { key: c.key });
      expect(after.body.totals).toMatchObject({ clicks: 1, uniques: 1, bots: 0 });
      expect(after.body.topLinks).toEqual([{ id: kept.id, slug: kept.slug, title: null, clicks: 1 }]);
      expectError(
        await dash(t, 'DELETE', `/links/${doomed.id}`, { cookie, body: { slug: doomed.slug } }),
        404,
        'not_found',
      );
    });
  });
});

forEachEngine((engine) => {
  describe('/api/app/accounts (superusers)', () => {
    test('a person who is not a superuser is 403 superuser_required', async () => {
      ({ t } = await setup({}, engine));
      const { cookie, accountId } = await sessionFor(t);
      expectError(await dash(t, 'GET', '/accounts', { cookie }), 403, 'superuser_required');
      expectError(
        await dash(t, 'POST', '/accounts', { cookie, body: { email: 'x@example.com', password: PASSWORD } }),
        403,
        'superuser_required',
      );
      expectError(
        await dash(t, 'PATCH', `/accounts/${accountId}`, { cookie, body: { disabled: true } }),
        403,
        'superuser_required',
      );
    });

    test('list and create; duplicates 409, bad input 400 naming the field', async () => {
      ({ t } = await setup({}, engine));
      const admin = await sessionFor(t, { superuser: true });
      const made = await dash(t, 'POST', '/accounts', {
        cookie: admin.cookie,
        body: { email: 'new@example.com', password: PASSWORD, superuser: true },
      });
      expect(made.status).toBe(201);
      expectSchema(AccountItemModel, made.body.item);
      expect(made.body.item).toEqual({
        id: expect.stringMatching(/^acc_/),
        email: 'new@example.com',
        superuser: true,
        role: 'admin',
        projects: null,
        disabled: false,
        createdAt: T0,
        lastSignInAt: null,
        disabledAt: null,
      });
      const list = await dash(t, 'GET', '/accounts', { cookie: admin.cookie });
      expect(list.body.items.map((a: { email: string }) => a.email)).toEqual(
        (await listAccounts(t.deps)).map((a) => a.email),
      );
      expect(list.body.items.find((a: { id: string }) => a.id === admin.accountId).lastSignInAt).toBe(T0);
      expectError(
        await dash(t, 'POST', '/accounts', {
          cookie: admin.cookie,
          body: { email: 'NEW@example.com', password: PASSWORD },
        }),
        409,
        'conflict',
        'email',
      );
      expectError(
        await dash(t, 'POST', '/accounts', {
          cookie: admin.cookie,
          body: { email: 'x@example.com', password: 'short' },
        }),
        400,
        'invalid_request',
        'password',
      );
      expectError(
        await dash(t, 'POST', '/accounts', { cookie: admin.cookie, body: { email: 'nope', password: PASSWORD } }),
        400,
        'invalid_request',
        'email',
      );
    });

    test('disable: sessions end, sign-in fails, keys are revoked; enable: sign-in works again, the keys stay revoked', async () => {
      ({ t } = await setup({}, engine));
      const admin = await sessionFor(t, { superuser: true });
      const person = await sessionFor(t);
      const key = (await dash(t, 'POST', '/keys', { cookie: person.cookie, body: { scope: 'read' } })).body.key;
      // A key as `slink key create` makes it.
      const operatorKey = (await createApiKey(t.deps, { accountId: person.accountId, scope: 'write' })).key;
      const off = await dash(t, 'PATCH', `/accounts/${person.accountId}`, {
        cookie: admin.cookie,
        body: { disabled: true },
      });
      expect(off.status).toBe(200);
      expect(off.body.item).toMatchObject({ id: person.accountId, disabledAt: T0 });
      expectError(await dash(t, 'GET', '/session', { cookie: person.cookie }), 403, 'session_required');
      expectError(await api(t, 'GET', '/me', { key }), 401, 'key_revoked');
      expectError(
        await dash(t, 'POST', '/session', { body: { email: person.email, password: PASSWORD } }),
        401,
        'sign_in_failed',
      );
      const on = await dash(t, 'PATCH', `/accounts/${person.accountId}`, {
        cookie: admin.cookie,
        body: { disabled: false },
      });
      expect(on.body.item.disabledAt).toBeNull();
      // The keys may have leaked with whatever got the account disabled: they never come back.
      for (const k of [key, operatorKey]) {
        const refused = await api(t, 'GET', '/me', { key: k });
        expectError(refused, 401, 'key_revoked');
        expect(refused.body.error.message).toBe('The API key was revoked');
      }
      const back = await signIn(t, { email: person.email });
      const keys = await dash(t, 'GET', '/keys', { cookie: back.cookie });
      expect(keys.body.items.map((k: { status: string; revokedAt: number }) => [k.status, k.revokedAt])).toEqual([
        ['revoked', T0],
        ['revoked', T0],
      ]);
      // A new key works.
      const fresh = (await dash(t, 'POST', '/keys', { cookie: back.cookie, body: { scope: 'read' } })).body.key;
      expect((await api(t, 'GET', '/me', { key: fresh })).status).toBe(200);
    });

    test('a superuser cannot disable their own account; unknown ids are 404; disabled must be boolean', async () => {
      ({ t } = await setup({}, engine));
      const admin = await sessionFor(t, { superuser: true });
      expectError(
        await dash(t, 'PATCH', `/accounts/${admin.accountId}`, { cookie: admin.cookie, body: { disabled: true } }),
        400,
        'invalid_request',
        'disabled',
      );
      expect((await dash(t, 'GET', '/session', { cookie: admin.cookie })).status).toBe(200);
      expectError(
        await dash(t, 'PATCH', '/accounts/acc_nope', { cookie: admin.cookie, body: { disabled: true } }),
        404,
        'not_found',
      );
      expectError(
        await dash(t, 'PATCH', `/accounts/${admin.accountId}`, { cookie: admin.cookie, body: { disabled: 'yes' } }),
        400,
        'invalid_request',
        'disabled',
      );
    });
  });
});
