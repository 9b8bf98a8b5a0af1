/**
 * GET /api/app/keys/all: every account's keys with the owner's email, for an admin (`key.any`);
 * an editor or a viewer is refused by the dashboard's guard, as the matrix says. Never the secret nor its hash.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApiKey } from '../../src/modules/auth/keys';
import { OwnedKeyListModel } from '../../src/modules/auth/model';
import { makeTestApp, T0, type TestApp } from '../helpers/app';
import { dash } from '../helpers/dashboard';
import { expectError, expectSchema } from '../helpers/schema';
import { sessionFor } from '../helpers/session';

let t: TestApp;
beforeAll(async () => {
  t = await makeTestApp();
});
afterAll(async () => {
  expect(t.errors).toEqual([]);
  await t.close();
});

describe('GET /api/app/keys/all', () => {
  test("an admin lists every account's keys with their owner's email, newest first, never a secret or hash", async () => {
    const admin = await sessionFor(t, { email: 'admin@example.com', role: 'admin' });
    const editor = await sessionFor(t, { email: 'editor@example.com', role: 'editor' });
    const own = await createApiKey(t.deps, { accountId: admin.accountId, scope: 'write', name: 'mine' });
    t.clock.advance(1000);
    const other = await createApiKey(t.deps, { accountId: editor.accountId, scope: 'read', name: 'theirs' });

    const res = await dash(t, 'GET', '/keys/all', { cookie: admin.cookie });
    expect(res.status).toBe(200);
    expectSchema(OwnedKeyListModel, res.body);
    expect(res.body.items).toEqual([
      {
        id: other.row.id,
        name: 'theirs',
        prefix: other.key.slice(0, 12),
        scope: 'read',
        status: 'active',
        createdAt: T0 + 1000,
        lastUsedAt: null,
        expiresAt: null,
        revokedAt: null,
        projects: null,
        domains: null,
        accountId: editor.accountId,
        email: 'editor@example.com',
      },
      expect.objectContaining({ id: own.row.id, name: 'mine', accountId: admin.accountId, email: 'admin@example.com' }),
    ]);
    for (const { key, row } of [own, other]) {
      expect(res.text).not.toContain(key.slice(12));
      expect(res.text).not.toContain(row.hash);
    }
    expect(res.text).not.toMatch(/"(key|hash|secret)"/);

    // The admin's own list is unchanged: its keys only.
    const mine = await dash(t, 'GET', '/keys', { cookie: admin.cookie });
    expect(mine.body.items.map((k: { id: string }) => k.id)).toEqual([own.row.id]);
  });

  // key.any is a write action: a viewer (whose session acts as `read`) is refused on scope first.
  test.each([
    ['editor', 'superuser_required'],
    ['viewer', 'insufficient_scope'],
  ] as const)('%s: refused, 403 %s', async (role, code) => {
    const { cookie } = await sessionFor(t, { role });
    expectError(await dash(t, 'GET', '/keys/all', { cookie }), 403, code);
  });
});
