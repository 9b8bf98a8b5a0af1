/**
 * The authentication matrix of the interface description (Authentication, Errors): missing,
 * unknown, revoked and expired keys, the read/write scope rule, GET /me and GET /workspace,
 * and the promise that key secrets are stored only as hashes.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256Hex } from '../../src/lib/hash';
import { createApiKey, revokeApiKey, verifyApiKey } from '../../src/modules/auth/keys';
import { MeModel } from '../../src/modules/auth/model';
import { WorkspaceModel } from '../../src/modules/workspace/model';
import { api, makeKey, makeTestApp, T0, type TestApp } from '../helpers/app';
import { forEachEngine } from '../helpers/engines';
import { expectError, expectExactKeys, expectSchema } from '../helpers/schema';
import { allStoredRows, storedRows } from '../helpers/stored';

let t: TestApp;
afterEach(() => {
  expect(t.errors).toEqual([]);
  return t.close();
});

async function apiKeyRow(t: TestApp, keyId: string) {
  return (await storedRows(t, 'SELECT * FROM api_keys WHERE id = ?', keyId))[0]!;
}

forEachEngine((engine) => {
  describe('401: missing, unknown, revoked and expired keys', () => {
    test('no Authorization header is key_missing on every kind of route', async () => {
      t = await makeTestApp({}, { engine });
      for (const [method, path] of [
        ['GET', '/me'],
        ['GET', '/workspace'],
        ['GET', '/links'],
        ['POST', '/links'],
        ['PATCH', '/links/x'],
        ['DELETE', '/links/x'],
        ['GET', '/projects'],
        ['GET', '/no-such-route'],
      ] as const) {
        const res = await api(t, method, path, {
          body: method === 'POST' || method === 'PATCH' ? { destination: 'https://a.example' } : undefined,
        });
        expectError(res, 401, 'key_missing');
        expect(res.body.error.field).toBeNull();
      }
    });

    test('an empty Authorization header is key_missing', async () => {
      t = await makeTestApp({}, { engine });
      expectError(await api(t, 'GET', '/me', { headers: { authorization: '' } }), 401, 'key_missing');
    });

    test('garbage, unknown and non-Bearer credentials are key_unknown', async () => {
      t = await makeTestApp({}, { engine });
      const { key } = await makeKey(t, 'write');
      const secretFlipped = key.slice(0, -1) + (key.endsWith('A') ? 'B' : 'A');
      const wellFormedUnknown = `slk_${'A'.repeat(40)}`;
      for (const authorization of [
        'Bearer garbage',
        `Bearer ${wellFormedUnknown}`,
        `Bearer ${secretFlipped}`, // right prefix, wrong secret
        `Bearer ${key}x`,
        `Bearer ${key.slice(0, 12)}`,
        'Basic xyz',
        `Basic ${btoa(`${key}:`)}`,
        `Token ${key}`,
        key, // no scheme at all
        'Bearer',
        'Bearer ',
        `Bearer ${key} extra`,
        `Bearer ${'x'.repeat(10_000)}`,
        'Bearer slk_ü',
      ]) {
        const res = await api(t, 'GET', '/me', { headers: { authorization } });
        expectError(res, 401, 'key_unknown');
      }
    });

    test('the Bearer scheme is case-insensitive and surrounding spaces are tolerated', async () => {
      t = await makeTestApp({}, { engine });
      const { key } = await makeKey(t, 'read');
      for (const authorization of [`bearer ${key}`, `BEARER ${key}`, `Bearer   ${key}  `]) {
        const res = await api(t, 'GET', '/me', { headers: { authorization } });
        expect(res.status).toBe(200);
        expect(res.body.scope).toBe('read');
      }
    });

    test('a revoked key is key_revoked, from the next request on', async () => {
      t = await makeTestApp({}, { engine });
      const { key, keyId } = await makeKey(t, 'write');
      expect((await api(t, 'GET', '/me', { key })).status).toBe(200);
      const revoked = await revokeApiKey(t.deps, keyId);
      expect(revoked.revokedAt).toBe(T0);
      expectError(await api(t, 'GET', '/me', { key }), 401, 'key_revoked');
      expectError(
        await api(t, 'POST', '/links', { key, body: { destination: 'https://a.example' } }),
        401,
        'key_revoked',
      );
      // Revoking again changes nothing.
      expect((await revokeApiKey(t.deps, keyId)).revokedAt).toBe(T0);
      expectError(await api(t, 'GET', '/links', { key }), 401, 'key_revoked');
    });

    test("revoking one key leaves the account's other keys working", async () => {
      t = await makeTestApp({}, { engine });
      const first = await makeKey(t, 'write');
      const second = await createApiKey(t.deps, { accountId: first.account.id, scope: 'read' });
      await revokeApiKey(t.deps, first.keyId);
      expectError(await api(t, 'GET', '/me', { key: first.key }), 401, 'key_revoked');
      const res = await api(t, 'GET', '/me', { key: second.key });
      expect(res.status).toBe(200);
      expect(res.body.key.id).toBe(second.row.id);
    });

    test('revoking an unknown key id is not_found', async () => {
      t = await makeTestApp({}, { engine });
      await expect(revokeApiKey(t.deps, 'key_nope')).rejects.toThrow(expect.objectContaining({ code: 'not_found' }));
    });

    test('a key whose expiry is already past is key_expired', async () => {
      t = await makeTestApp({}, { engine });
      const { key } = await makeKey(t, 'write', { expiresAt: T0 - 1 });
      expectError(await api(t, 'GET', '/me', { key }), 401, 'key_expired');
      expectError(await api(t, 'DELETE', '/links/x', { key }), 401, 'key_expired');
    });

    test('a key expires as the clock reaches its expiry', async () => {
      t = await makeTestApp({}, { engine });
      const { key } = await makeKey(t, 'read', { expiresAt: T0 + 90_000 });
      const ok = await api(t, 'GET', '/me', { key });
      expect(ok.status).toBe(200);
      expect(ok.body.key.expiresAt).toBe(T0 + 90_000);
      t.clock.advance(89_999);
      expect((await api(t, 'GET', '/links', { key })).status).toBe(200);
      t.clock.advance(1); // exactly at expiresAt
      expectError(await api(t, 'GET', '/me', { key }), 401, 'key_expired');
      t.clock.advance(86_400_000);
      expectError(await api(t, 'GET', '/me', { key }), 401, 'key_expired');
    });

    test('a revoked key that has also expired reports key_revoked', async () => {
      t = await makeTestApp({}, { engine });
      const { key, keyId } = await makeKey(t, 'read', { expiresAt: T0 + 1000 });
      await revokeApiKey(t.deps, keyId);
      t.clock.advance(5000);
      expectError(await api(t, 'GET', '/me', { key }), 401, 'key_revoked');
    });

    test('verifyApiKey throws the same codes as the HTTP layer', async () => {
      t = await makeTestApp({}, { engine });
      const { key, keyId } = await makeKey(t, 'read', { expiresAt: T0 + 1000 });
      expect((await verifyApiKey(t.deps, key)).key.id).toBe(keyId);
      await expect(verifyApiKey(t.deps, 'nope')).rejects.toThrow(expect.objectContaining({ code: 'key_unknown' }));
      t.clock.advance(1000);
      await expect(verifyApiKey(t.deps, key)).rejects.toThrow(expect.objectContaining({ code: 'key_expired' }));
      await revokeApiKey(t.deps, keyId);
      await expect(verifyApiKey(t.deps, key)).rejects.toThrow(expect.objectContaining({ code: 'key_revoked' }));
    });
  });

  describe('scopes', () => {
    async function seed(t: TestApp) {
      const write = await makeKey(t, 'write');
      const read = await makeKey(t, 'read');
      const link = await api(t, 'POST', '/links', {
        key: write.key,
        body: { destination: 'https://a.example/page', tags: ['t1'] },
      });
      expect(link.status).toBe(201);
      const variant = await api(t, 'POST', `/links/${link.body.id}/variants`, { key: write.key, body: { code: 'v1' } });
      expect(variant.status).toBe(201);
      const project = await api(t, 'POST', '/projects', { key: write.key, body: { name: 'Alpha' } });
      expect(project.status).toBe(201);
      return {
        write,
        read,
        linkId: link.body.id as string,
        variantId: variant.body.id as string,
        projectId: project.body.id as string,
      };
    }

    test('a read key gets 403 insufficient_scope on every change and changes nothing', async () => {
      t = await makeTestApp({}, { engine });
      const { read, write, linkId, variantId, projectId } = await seed(t);
      const attempts: [string, string, unknown][] = [
        ['POST', '/links', { destination: 'https://b.example' }],
        ['PATCH', '/links/x', { title: 'x' }],
        ['DELETE', '/links/x', undefined],
        ['POST', '/projects', { name: 'Beta' }],
        ['PATCH', `/links/${linkId}`, { title: 'changed' }],
        ['DELETE', `/links/${linkId}`, undefined],
        ['POST', `/links/${linkId}/variants`, { code: 'v2' }],
        ['PATCH', `/links/${linkId}/variants/${variantId}`, { code: 'v3' }],
        ['DELETE', `/links/${linkId}/variants/${variantId}`, undefined],
        ['PATCH', `/projects/${projectId}`, { name: 'Gamma' }],
        ['DELETE', `/projects/${projectId}`, undefined],
      ];
      for (const [method, path, body] of attempts) {
        const res = await api(t, method, path, { key: read.key, body });
        expectError(res, 403, 'insufficient_scope');
        expect(res.body.error.field).toBeNull();
      }
      // Nothing changed.
      const list = await api(t, 'GET', '/links', { key: write.key });
      expect(list.status).toBe(200);
      expect(list.body.items.map((l: { id: string }) => l.id)).toEqual([linkId]);
      expect(list.body.items[0].title).toBeNull();
      expect(list.body.items[0].variants.map((v: { code: string }) => v.code)).toEqual(['v1']);
      const projects = await api(t, 'GET', '/projects', { key: write.key });
      expect(projects.body.projects.map((p: { name: string }) => p.name)).toEqual(['Alpha']);
    });

    test('a read key can use every GET', async () => {
      t = await makeTestApp({}, { engine });
      const { read, linkId } = await seed(t);
      const me = await api(t, 'GET', '/me', { key: read.key });
      expect(me.status).toBe(200);
      expect(me.body.scope).toBe('read');
      const ws = await api(t, 'GET', '/workspace', { key: read.key });
      expect(ws.status).toBe(200);
      expect(ws.body.name).toBe('Slink');
      const list = await api(t, 'GET', '/links', { key: read.key });
      expect(list.status).toBe(200);
      expect(list.body.items).toHaveLength(1);
      const one = await api(t, 'GET', `/links/${linkId}`, { key: read.key });
      expect(one.status).toBe(200);
      expect(one.body.id).toBe(linkId);
      const tags = await api(t, 'GET', '/links/tags', { key: read.key });
      expect(tags.status).toBe(200);
      expect(tags.body).toEqual({ tags: [{ tag: 't1', count: 1 }] });
      const variants = await api(t, 'GET', `/links/${linkId}/variants`, { key: read.key });
      expect(variants.status).toBe(200);
      expect(variants.body.map((v: { code: string }) => v.code)).toEqual(['v1']);
      const projects = await api(t, 'GET', '/projects', { key: read.key });
      expect(projects.status).toBe(200);
      expect(projects.body.projects).toHaveLength(1);
      // A read key still gets ordinary 404s on reads.
      const missing = await api(t, 'GET', '/links/lnk_nope', { key: read.key });
      expectError(missing, 404, 'not_found');
    });

    test('a write key can do everything', async () => {
      t = await makeTestApp({}, { engine });
      const { write, linkId, variantId, projectId } = await seed(t);
      const patched = await api(t, 'PATCH', `/links/${linkId}`, {
        key: write.key,
        body: { title: 'New title', projectId },
      });
      expect(patched.status).toBe(200);
      expect(patched.body.title).toBe('New title');
      expect(patched.body.projectId).toBe(projectId);
      const v = await api(t, 'PATCH', `/links/${linkId}/variants/${variantId}`, {
        key: write.key,
        body: { code: 'v9' },
      });
      expect(v.status).toBe(200);
      expect(v.body.code).toBe('v9');
      const renamed = await api(t, 'PATCH', `/projects/${projectId}`, { key: write.key, body: { name: 'Renamed' } });
      expect(renamed.status).toBe(200);
      expect(renamed.body.name).toBe('Renamed');
      const delV = await api(t, 'DELETE', `/links/${linkId}/variants/${variantId}`, { key: write.key });
      expect(delV.status).toBe(200);
      expect(delV.body).toEqual({ id: variantId, deleted: true });
      const delP = await api(t, 'DELETE', `/projects/${projectId}`, { key: write.key });
      expect(delP.status).toBe(200);
      expect(delP.body).toEqual({ id: projectId, deleted: true, unfiledLinks: 1 });
      const delL = await api(t, 'DELETE', `/links/${linkId}`, { key: write.key });
      expect(delL.status).toBe(200);
      expect(delL.body).toEqual({ id: linkId, deleted: true });
      const created = await api(t, 'POST', '/links', { key: write.key, body: { destination: 'https://c.example' } });
      expect(created.status).toBe(201);
      expect(created.body.destination).toBe('https://c.example/');
      const list = await api(t, 'GET', '/links', { key: write.key });
      expect(list.body.items.map((l: { id: string }) => l.id)).toEqual([created.body.id]);
    });
  });

  describe('GET /me', () => {
    test('describes the key and its account, and never shows the secret', async () => {
      t = await makeTestApp({}, { engine });
      const { key, keyId, account } = await makeKey(t, 'write', { superuser: true });
      const res = await api(t, 'GET', '/me', { key });
      expect(res.status).toBe(200);
      expectSchema(MeModel, res.body);
      expectExactKeys(res.body, ['scope', 'key', 'account']);
      expect(res.body.scope).toBe('write');
      expect(res.body.key).toEqual({
        id: keyId,
        name: 'write key',
        prefix: key.slice(0, res.body.key.prefix.length),
        scope: 'write',
        expiresAt: null,
        lastUsedAt: T0,
        createdAt: T0,
        projects: null,
        domains: null,
      });
      expect(res.body.key.prefix.length).toBeGreaterThanOrEqual(8);
      expect(res.body.key.prefix.length).toBeLessThan(key.length / 2);
      expect(res.body.account).toEqual({
        id: account.id,
        email: account.email,
        superuser: true,
        role: 'admin',
        projects: null,
      });
      // Neither the key, nor its secret part, nor its hash, nor the password hash leaks.
      const secret = key.slice(res.body.key.prefix.length);
      expect(res.text).not.toContain(key);
      expect(res.text).not.toContain(secret);
      expect(res.text).not.toContain(sha256Hex(key));
      expect(res.text).not.toContain(account.passwordHash);
      expect(res.text).not.toContain('hash');
    });

    test('a read key of a non-superuser says so', async () => {
      t = await makeTestApp({}, { engine });
      const { key, account } = await makeKey(t, 'read', { expiresAt: T0 + 3_600_000 });
      const res = await api(t, 'GET', '/me', { key });
      expect(res.status).toBe(200);
      expectSchema(MeModel, res.body);
      expect(res.body.scope).toBe('read');
      expect(res.body.key.scope).toBe('read');
      expect(res.body.key.expiresAt).toBe(T0 + 3_600_000);
      expect(res.body.account).toEqual({
        id: account.id,
        email: account.email,
        superuser: false,
        role: 'editor',
        projects: null,
      });
    });

    test('two keys of one account are told apart', async () => {
      t = await makeTestApp({}, { engine });
      const first = await makeKey(t, 'read');
      const second = await createApiKey(t.deps, { accountId: first.account.id, scope: 'write', name: null });
      const a = await api(t, 'GET', '/me', { key: first.key });
      const b = await api(t, 'GET', '/me', { key: second.key });
      expect(a.body.key.id).toBe(first.keyId);
      expect(b.body.key.id).toBe(second.row.id);
      expect(b.body.key.name).toBeNull();
      expect(b.body.scope).toBe('write');
      expect(a.body.account.id).toBe(b.body.account.id);
      expect(a.body.key.prefix).not.toBe(b.body.key.prefix);
    });
  });

  describe('GET /workspace', () => {
    test('returns name, hostname, shortHost and appHost from the configuration', async () => {
      t = await makeTestApp(
        {
          SLINK_WORKSPACE_NAME: 'Acme Links',
          SLINK_SHORT_HOST: 'https://go.acme.example/',
          SLINK_APP_HOST: 'https://links.acme.example:8443',
        },
        { engine },
      );
      const { key } = await makeKey(t, 'read');
      const res = await api(t, 'GET', '/workspace', { key });
      expect(res.status).toBe(200);
      expectSchema(WorkspaceModel, res.body);
      expect(res.body).toEqual({
        name: 'Acme Links',
        hostname: 'go.acme.example',
        shortHost: 'https://go.acme.example',
        appHost: 'https://links.acme.example:8443',
      });
    });

    test('defaults: name Slink, app host = short host', async () => {
      t = await makeTestApp({ SLINK_SHORT_HOST: '', SLINK_APP_HOST: '', SLINK_PORT: '8123' }, { engine });
      const { key } = await makeKey(t, 'write');
      const res = await api(t, 'GET', '/workspace', { key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        name: 'Slink',
        hostname: 'localhost',
        shortHost: 'http://localhost:8123',
        appHost: 'http://localhost:8123',
      });
    });

    test('needs a key', async () => {
      t = await makeTestApp({}, { engine });
      expectError(await api(t, 'GET', '/workspace'), 401, 'key_missing');
    });
  });

  describe('key storage', () => {
    test('the plaintext key is in no column of api_keys, nor anywhere in the database', async () => {
      t = await makeTestApp({}, { engine });
      const keys = [await makeKey(t, 'write'), await makeKey(t, 'read', { expiresAt: T0 + 1 })];
      const rows = await storedRows(t, 'SELECT * FROM api_keys');
      expect(rows).toHaveLength(2);
      for (const { key, keyId } of keys) {
        const row = rows.find((r) => r.id === keyId)!;
        expect(row).toBeDefined();
        const secret = key.slice(String(row.prefix).length);
        for (const [column, value] of Object.entries(row)) {
          const text = String(value);
          expect({ column, leaked: text.includes(key) || text.includes(secret) }).toEqual({ column, leaked: false });
        }
        expect(row.hash).toBe(sha256Hex(key));
        expect(key.startsWith(String(row.prefix))).toBe(true);
      }
      // No other table holds it either.
      for (const { table, row } of await allStoredRows(t)) {
        for (const { key } of keys)
          expect({ table, leaked: JSON.stringify(row).includes(key) }).toEqual({ table, leaked: false });
      }
      // Nor do the raw bytes of the SQLite file and its WAL.
      if (engine !== 'sqlite') return;
      const dbFile = join(t.dir, 'slink.db');
      for (const file of [dbFile, `${dbFile}-wal`]) {
        if (!existsSync(file)) continue;
        const bytes = readFileSync(file).toString('latin1');
        for (const { key } of keys) expect(bytes.includes(key.slice(12))).toBe(false);
      }
    });

    test('createApiKey returns a well-formed key once; each key is different', async () => {
      t = await makeTestApp({}, { engine });
      const { account } = await makeKey(t, 'read');
      const made = await Promise.all(
        Array.from({ length: 20 }, () => createApiKey(t.deps, { accountId: account.id, scope: 'read' })),
      );
      for (const m of made) expect(m.key).toMatch(/^slk_[A-Za-z0-9]{40}$/);
      expect(new Set(made.map((m) => m.key)).size).toBe(20);
      expect(new Set(made.map((m) => m.row.prefix)).size).toBe(20);
      expect(JSON.stringify(made.map((m) => m.row))).not.toContain(made[0]!.key);
    });

    test('createApiKey rejects a bad scope or an over-long name', async () => {
      t = await makeTestApp({}, { engine });
      const { account } = await makeKey(t, 'read');
      await expect(createApiKey(t.deps, { accountId: account.id, scope: 'admin' as never })).rejects.toThrow(
        expect.objectContaining({ code: 'invalid_request', field: 'scope' }),
      );
      await expect(
        createApiKey(t.deps, { accountId: account.id, scope: 'read', name: 'n'.repeat(101) }),
      ).rejects.toThrow(expect.objectContaining({ code: 'invalid_request', field: 'name' }));
    });

    test('lastUsedAt is written when a key is used, never for a failed attempt', async () => {
      t = await makeTestApp({}, { engine });
      const { key, keyId } = await makeKey(t, 'read');
      expect((await apiKeyRow(t, keyId)).last_used_at).toBeNull();
      t.clock.advance(1000);
      const me = await api(t, 'GET', '/me', { key });
      expect(me.status).toBe(200);
      expect((await apiKeyRow(t, keyId)).last_used_at).toBe(T0 + 1000);
      expect(me.body.key.lastUsedAt).toBe(T0 + 1000);
      // Later use moves it on.
      t.clock.advance(5 * 60_000);
      expect((await api(t, 'GET', '/links', { key })).status).toBe(200);
      expect((await apiKeyRow(t, keyId)).last_used_at).toBe(T0 + 1000 + 5 * 60_000);
      const again = await api(t, 'GET', '/me', { key });
      expect(again.body.key.lastUsedAt).toBe(T0 + 1000 + 5 * 60_000);
      // A revoked key's failed attempts do not count as use.
      await revokeApiKey(t.deps, keyId);
      t.clock.advance(10 * 60_000);
      expectError(await api(t, 'GET', '/me', { key }), 401, 'key_revoked');
      expect((await apiKeyRow(t, keyId)).last_used_at).toBe(T0 + 1000 + 5 * 60_000);
    });

    test("an expired key's attempts do not touch lastUsedAt", async () => {
      t = await makeTestApp({}, { engine });
      const { key, keyId } = await makeKey(t, 'read', { expiresAt: T0 });
      expectError(await api(t, 'GET', '/me', { key }), 401, 'key_expired');
      expect((await apiKeyRow(t, keyId)).last_used_at).toBeNull();
    });
  });
});
