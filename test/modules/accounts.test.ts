/**
 * Accounts through real HTTP on both engines (the account store's update, its last-admin check,
 * the narrowing of keys and the audit entries are SQL of each engine): /api/v1/accounts and the
 * dashboard's /api/app/accounts answer the same item; roles and project limits; the last active
 * admin kept, also when two admins demote each other at once; a demoted or narrowed account's
 * keys narrowed in the same change; keys limited to projects and domains; every change audited.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Pg } from '../../src/db/postgres/client';
import { OPERATOR } from '../../src/modules/access/public';
import { setPassword, updateAccount } from '../../src/modules/auth/admin';
import { AccountItemModel } from '../../src/modules/auth/model';
import { api, apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../helpers/app';
import { dash, PASSWORD } from '../helpers/dashboard';
import { forEachEngine } from '../helpers/engines';
import { expectError, expectSchema } from '../helpers/schema';
import { sessionFor } from '../helpers/session';

interface AuditRow {
  action: string;
  targetId: string;
  fields: string[];
  via: string;
  accountId: string | null;
}

forEachEngine((engine) => {
  describe('accounts', () => {
    let t: TestApp;
    let pool: Pg | null = null;
    let admin: Awaited<ReturnType<typeof makeKey>>;
    let p1: string;
    let p2: string;
    let made = 0;
    const email = () => `person${++made}@example.com`;

    beforeAll(async () => {
      t = await makeTestApp(
        {},
        {
          engine,
          wrapPostgres: (sql) => {
            pool = sql;
            return sql;
          },
        },
      );
      admin = await makeKey(t, 'write', { superuser: true });
      p1 = (await apiExpecting(t, admin.key, 'POST', '/projects', { name: 'One' })).id;
      p2 = (await apiExpecting(t, admin.key, 'POST', '/projects', { name: 'Two' })).id;
      await apiExpecting(t, admin.key, 'POST', '/domains', { origin: 'https://go.example.com' });
    });
    afterAll(() => disposeTestApp(t));

    /** The audit entries of a target, oldest first, read from the table the change wrote. */
    async function auditOf(targetId: string): Promise<AuditRow[]> {
      const rows: Record<string, unknown>[] = pool
        ? await (pool as Pg)`SELECT * FROM audit_log WHERE target_id = ${targetId} ORDER BY id`
        : (t.deps.db.$client.query('SELECT * FROM audit_log WHERE target_id = ? ORDER BY id').all(targetId) as Record<
            string,
            unknown
          >[]);
      return rows.map((r) => ({
        action: r.action as string,
        targetId: r.target_id as string,
        fields: JSON.parse(r.fields as string) as string[],
        via: r.via as string,
        accountId: r.account_id as string | null,
      }));
    }

    const create = (body: unknown, key = admin.key) => api(t, 'POST', '/accounts', { key, body });
    const patch = (id: string, body: unknown, key = admin.key) => api(t, 'PATCH', `/accounts/${id}`, { key, body });

    test('create, list and change: one item shape in the API and the dashboard, each change audited', async () => {
      const res = await create({ email: email(), role: 'viewer', projects: [p1], password: PASSWORD });
      expect(res.status).toBe(201);
      expectSchema(AccountItemModel, res.body.item);
      const item = res.body.item;
      expect(item).toMatchObject({ role: 'viewer', projects: [p1], disabled: false, superuser: false });
      const listed = (await api(t, 'GET', '/accounts', { key: admin.key })).body.items;
      expect(listed.find((a: { id: string }) => a.id === item.id)).toEqual(item);
      const session = await sessionFor(t, { superuser: true });
      const dashboard = (await dash(t, 'GET', '/accounts', { cookie: session.cookie })).body.items;
      expect(dashboard.find((a: { id: string }) => a.id === item.id)).toEqual(item);

      const changed = await patch(item.id, { role: 'editor', projects: null });
      expect(changed.status).toBe(200);
      expect(changed.body.item).toMatchObject({ role: 'editor', projects: null });
      const off = await dash(t, 'PATCH', `/accounts/${item.id}`, { cookie: session.cookie, body: { disabled: true } });
      expect(off.body.item).toMatchObject({ disabled: true, disabledAt: expect.any(Number) });
      expect((await patch(item.id, { disabled: false })).body.item.disabled).toBe(false);
      await setPassword(t.deps, item.email, 'another long password');

      expect(await auditOf(item.id)).toEqual([
        {
          action: 'account.create',
          targetId: item.id,
          fields: ['email', 'projects', 'role'],
          via: 'api',
          accountId: admin.account.id,
        },
        {
          action: 'account.update',
          targetId: item.id,
          fields: ['projects', 'role'],
          via: 'api',
          accountId: admin.account.id,
        },
        {
          action: 'account.update',
          targetId: item.id,
          fields: ['disabled'],
          via: 'dashboard',
          accountId: session.accountId,
        },
        { action: 'account.update', targetId: item.id, fields: ['disabled'], via: 'api', accountId: admin.account.id },
        { action: 'account.update', targetId: item.id, fields: ['password'], via: 'cli', accountId: null },
      ]);
    });

    test('bad input is 400 naming the field; a duplicate 409; an unknown account 404; non-admins 403', async () => {
      expectError(await create({ email: email(), role: 'admin', projects: [p1] }), 400, 'invalid_request', 'projects');
      expectError(
        await create({ email: email(), role: 'editor', projects: ['prj_nope'] }),
        400,
        'invalid_request',
        'projects',
      );
      expectError(await create({ email: email(), role: 'editor', projects: [] }), 400, 'invalid_request', 'projects');
      expectError(await create({ email: email(), role: 'owner' }), 400, 'invalid_request', 'role');
      expectError(await create({ email: 'not an email', role: 'editor' }), 400, 'invalid_request', 'email');
      const taken = (await create({ email: email(), role: 'editor' })).body.item;
      expectError(await create({ email: taken.email.toUpperCase(), role: 'editor' }), 409, 'conflict', 'email');
      expectError(await patch('acc_nope', { role: 'viewer' }), 404, 'not_found');
      expectError(await patch(taken.id, { projects: ['prj_nope'] }), 400, 'invalid_request', 'projects');
      // An admin sees every link: a limit is refused, and one made admin loses its limit.
      const limited = (await create({ email: email(), role: 'editor', projects: [p1] })).body.item;
      expectError(await patch(limited.id, { role: 'admin', projects: [p1] }), 400, 'invalid_request', 'projects');
      expect((await patch(limited.id, { role: 'admin' })).body.item).toMatchObject({ role: 'admin', projects: null });
      expect((await patch(limited.id, { role: 'editor' })).status).toBe(200);
      const editor = await makeKey(t, 'write');
      expectError(await api(t, 'GET', '/accounts', { key: editor.key }), 403, 'superuser_required');
      expectError(await create({ email: email(), role: 'editor' }, editor.key), 403, 'superuser_required');
    });

    test('without a password the account cannot sign in until one is set', async () => {
      const item = (await create({ email: email(), role: 'editor' })).body.item;
      const signIn = (password: string) => dash(t, 'POST', '/session', { body: { email: item.email, password } });
      expectError(await signIn(PASSWORD), 401, 'sign_in_failed');
      await setPassword(t.deps, item.email, 'now it has one');
      expect((await signIn('now it has one')).status).toBe(200);
    });

    test('the last active admin can be neither demoted nor disabled: 409; another admin makes it possible', async () => {
      // Every other admin of this file's database is disabled first.
      const others = (await api(t, 'GET', '/accounts', { key: admin.key })).body.items.filter(
        (a: { id: string; role: string; disabled: boolean }) =>
          a.role === 'admin' && !a.disabled && a.id !== admin.account.id,
      );
      for (const other of others) expect((await patch(other.id, { disabled: true })).status).toBe(200);
      expectError(await patch(admin.account.id, { role: 'editor' }), 409, 'conflict', 'role');
      const me = await sessionFor(t, { email: admin.account.email });
      expectError(
        await dash(t, 'PATCH', `/accounts/${admin.account.id}`, { cookie: me.cookie, body: { disabled: true } }),
        400,
        'invalid_request',
        'disabled',
      );
      const second = (await create({ email: email(), role: 'admin' })).body.item;
      expect((await patch(second.id, { disabled: true })).status).toBe(200);
      expectError(await patch(admin.account.id, { role: 'viewer' }), 409, 'conflict', 'role');
      expect((await patch(second.id, { disabled: false })).status).toBe(200);
      // Nobody may disable their own account: only the operator can try to disable the last admin.
      expect((await patch(second.id, { disabled: true })).status).toBe(200);
      await expect(updateAccount(t.deps, OPERATOR, admin.account.id, { disabled: true })).rejects.toMatchObject({
        code: 'conflict',
        field: 'disabled',
      });
      expect((await patch(second.id, { disabled: false })).status).toBe(200);
    });

    test("a demoted, narrowed account's keys are narrowed in the same change; its session keeps working with the new powers", async () => {
      const person = (await create({ email: email(), role: 'editor', projects: [p1, p2], password: PASSWORD })).body
        .item;
      const session = await sessionFor(t, { email: person.email });
      const made = await dash(t, 'POST', '/keys', {
        cookie: session.cookie,
        body: { scope: 'write', name: 'old', projects: [p1, p2] },
      });
      expect(made.status).toBe(201);
      const key = made.body.key as string;
      await apiExpecting(t, key, 'POST', '/links', { destination: 'https://example.com/before', projectId: p2 });

      const changed = await patch(person.id, { role: 'viewer', projects: [p1] });
      expect(changed.status).toBe(200);
      const me = await api(t, 'GET', '/me', { key });
      expect(me.body.scope).toBe('read');
      expect(me.body.key).toMatchObject({ scope: 'read', projects: [p1], domains: null });
      expect(me.body.account).toMatchObject({ role: 'viewer', projects: [p1] });
      expectError(
        await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/after', projectId: p1 } }),
        403,
        'insufficient_scope',
      );
      const keys = (await dash(t, 'GET', '/keys', { cookie: session.cookie })).body.items;
      expect(keys[0]).toMatchObject({ scope: 'read', projects: [p1] });
      // The live session reads with the new powers, and may no longer write.
      const who = await dash(t, 'GET', '/session', { cookie: session.cookie });
      expect(who.body.account).toMatchObject({ role: 'viewer', projects: [p1] });
      expect((await api(t, 'GET', '/links', { headers: { cookie: session.cookie } })).status).toBe(200);
      expectError(
        await dash(t, 'POST', '/api/v1/links', {
          cookie: session.cookie,
          body: { destination: 'https://example.com/x' },
        }),
        403,
        'insufficient_scope',
      );
      // A create key stays create: it was meant for a form.
      expect((await auditOf(person.id)).map((e) => e.fields)).toEqual([
        ['email', 'projects', 'role'],
        ['projects', 'role'],
      ]);
    });

    test('keys limited to projects and domains: within the account, unknown ones 400 naming the field, listed', async () => {
      const person = (await create({ email: email(), role: 'editor', projects: [p1], password: PASSWORD })).body.item;
      const session = await sessionFor(t, { email: person.email });
      const key = (body: object) =>
        dash(t, 'POST', '/keys', { cookie: session.cookie, body: { scope: 'write', ...body } });
      expectError(await key({ projects: [p2] }), 400, 'invalid_request', 'projects');
      expectError(await key({ projects: ['prj_nope'] }), 400, 'invalid_request', 'projects');
      expectError(await key({ domains: ['nope.example.com'] }), 400, 'invalid_request', 'domains');
      expectError(await key({ domains: 'go.example.com' }), 400, 'invalid_request', 'domains');
      const made = await key({ projects: [p1], domains: ['Go.Example.com'] });
      expect(made.status).toBe(201);
      expect(made.body.item).toMatchObject({ projects: [p1], domains: ['go.example.com'] });
      const me = await api(t, 'GET', '/me', { key: made.body.key });
      expect(me.body.key).toMatchObject({ projects: [p1], domains: ['go.example.com'] });
      // The key makes links within its limits.
      await apiExpecting(t, made.body.key, 'POST', '/links', {
        destination: 'https://example.com/k',
        projectId: p1,
        domain: 'go.example.com',
      });
      const revoked = await dash(t, 'DELETE', `/keys/${made.body.item.id}`, { cookie: session.cookie });
      expect(revoked.status).toBe(204);
      expect(await auditOf(made.body.item.id)).toEqual([
        {
          action: 'key.create',
          targetId: made.body.item.id,
          fields: ['domains', 'projects', 'scope'],
          via: 'dashboard',
          accountId: person.id,
        },
        { action: 'key.revoke', targetId: made.body.item.id, fields: [], via: 'dashboard', accountId: person.id },
      ]);
    });

    // Last: it demotes every other admin.
    test('two admins demoting each other at once leave one admin', async () => {
      for (let round = 0; round < 6; round++) {
        const a = await makeKey(t, 'write', { superuser: true });
        const b = await makeKey(t, 'write', { superuser: true });
        // Only these two are active admins.
        const actives = (await api(t, 'GET', '/accounts', { key: a.key })).body.items.filter(
          (x: { id: string; role: string; disabled: boolean }) =>
            x.role === 'admin' && !x.disabled && x.id !== a.account.id && x.id !== b.account.id,
        );
        for (const x of actives) expect((await patch(x.id, { role: 'editor' }, a.key)).status).toBe(200);
        const [ab, ba] = await Promise.all([
          patch(b.account.id, { role: 'editor' }, a.key),
          patch(a.account.id, { role: 'editor' }, b.key),
        ]);
        // The loser is refused by the store (409), or, when the winner committed before its
        // request was let in, by the guard (403: it is no admin any more).
        expect([ab.status, ba.status].filter((s) => s === 200)).toHaveLength(1);
        expect([ab.status, ba.status].filter((s) => s !== 200).map((s) => s === 409 || s === 403)).toEqual([true]);
        const after = (await api(t, 'GET', '/accounts', { key: ab.status === 200 ? a.key : b.key })).body.items;
        expect(
          after.filter((x: { role: string; disabled: boolean }) => x.role === 'admin' && !x.disabled),
        ).toHaveLength(1);
      }
    });
  });
});
