/**
 * Invites through real HTTP on both engines: an admin invites (POST /api/v1/invites), the address
 * is looked up without being used (the page's door and the page itself), accepted once with a
 * password (one transaction: two tabs at once make one account), and then says used; revoked and
 * expired invites (the test clock) say so; the audit log has each change, never the secret.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { DAY_MS } from '../../../src/lib/time';
import { disposeTestApp, makeTestApp, T0, type TestApp } from '../../helpers/app';
import { dash, setCookieOf } from '../../helpers/dashboard';
import { databaseEnv, engineBlind, forEachEngine } from '../../helpers/engines';
import { expectError } from '../../helpers/schema';
import { sessionFor, type TestSession } from '../../helpers/session';
import { storedRows } from '../../helpers/stored';

const NEW_PASSWORD = 'a new password of mine';
let n = 0;
const nextEmail = () => `invited${++n}@example.com`;
const secretOf = (url: string) => url.slice(url.lastIndexOf('/') + 1);

forEachEngine((engine) => {
  describe('invites', () => {
    let t: TestApp;
    let admin: TestSession;
    let editor: TestSession;
    let projectId: string;
    const only = engineBlind(engine);
    const v1 = (method: string, path: string, body?: unknown, who: TestSession = admin) =>
      dash(t, method, `/api/v1${path}`, { cookie: who.cookie, body });
    const invite = async (body: object) => {
      const res = await v1('POST', '/invites', body);
      expect({ status: res.status, body: res.status === 201 ? null : res.body }).toEqual({ status: 201, body: null });
      return res.body as { id: string; url: string; expiresAt: number };
    };
    const status = (token: string) => dash(t, 'POST', '/invite/status', { body: { token } });
    const accept = (token: string, password = NEW_PASSWORD) =>
      dash(t, 'POST', '/invite', { body: { token, password } });
    const auditOf = (targetId: string) =>
      storedRows(t, 'SELECT * FROM audit_log WHERE target_id = ? ORDER BY id', targetId);

    beforeAll(async () => {
      t = await makeTestApp(await databaseEnv(engine));
      admin = await sessionFor(t, { role: 'admin' });
      editor = await sessionFor(t, { role: 'editor' });
      const made = await v1('POST', '/projects', { name: 'Marketing' });
      expect(made.status).toBe(201);
      projectId = made.body.id;
    });
    afterAll(() => disposeTestApp(t));

    test('an admin invites: 201 {id, url, expiresAt} on the dashboard, listed as pending without the secret, only its hash stored, audited', async () => {
      const email = nextEmail();
      const created = await invite({ email, role: 'viewer', projects: [projectId] });
      expect(Object.keys(created).sort()).toEqual(['expiresAt', 'id', 'url']);
      expect(created.url).toMatch(/^https:\/\/app\.sl\.test\/app\/invite\/[A-Za-z0-9_-]{43}$/);
      expect(created.expiresAt).toBe(T0 + 7 * DAY_MS);
      const secret = secretOf(created.url);
      const list = await v1('GET', '/invites');
      expect(list.status).toBe(200);
      expect(list.text).not.toContain(secret);
      expect(list.body.items.find((i: { id: string }) => i.id === created.id)).toEqual({
        id: created.id,
        email,
        role: 'viewer',
        projects: [projectId],
        createdBy: admin.accountId,
        createdAt: T0,
        expiresAt: T0 + 7 * DAY_MS,
      });
      const [row] = await storedRows(t, 'SELECT * FROM invites WHERE id = ?', created.id);
      expect(JSON.stringify(row)).not.toContain(secret);
      expect(row!.token_hash).toBe(new Bun.CryptoHasher('sha256').update(secret).digest('hex'));
      const audit = await auditOf(created.id);
      expect(audit.map((a) => [a.action, a.account_id, a.via, a.target_type, JSON.parse(String(a.fields))])).toEqual([
        ['invite.create', admin.accountId, 'dashboard', 'invite', ['email', 'projects', 'role']],
      ]);
      expect(JSON.stringify(audit)).not.toContain(secret);
    });

    test('the address is looked up without being used, and the page itself is the dashboard shell', async () => {
      const email = nextEmail();
      const created = await invite({ email, role: 'editor' });
      const secret = secretOf(created.url);
      for (let i = 0; i < 2; i++) {
        const page = await t.app.handle(new Request(`http://localhost/app/invite/${secret}`));
        expect(page.status).toBe(200);
        expect(page.headers.get('content-type')).toContain('text/html');
        const looked = await status(secret);
        expect(looked.status).toBe(200);
        expect(looked.body).toEqual({ status: 'pending', email, role: 'editor', expiresAt: created.expiresAt });
      }
      expectError(await status('x'.repeat(43)), 404, 'not_found');
    });

    test('accepting makes the account with its role and projects, signs it in, and the invite then says used', async () => {
      const email = nextEmail();
      const created = await invite({ email, role: 'viewer', projects: [projectId] });
      const secret = secretOf(created.url);
      const res = await accept(secret);
      expect(res.status).toBe(201);
      expect(res.body.account).toMatchObject({ email, role: 'viewer', superuser: false });
      const cookie = setCookieOf(res)!.header;
      const me = await dash(t, 'GET', '/session', { cookie });
      expect(me.status).toBe(200);
      expect(me.body.account).toEqual(res.body.account);
      const [account] = await storedRows(t, 'SELECT role, projects FROM accounts WHERE id = ?', res.body.account.id);
      expect({ role: account!.role, projects: JSON.parse(String(account!.projects)) }).toEqual({
        role: 'viewer',
        projects: [projectId],
      });
      // A viewer limited to the project: writes are refused as for any viewer.
      expectError(
        await dash(t, 'POST', '/api/v1/links', { cookie, body: { destination: 'https://a.example' } }),
        403,
        'insufficient_scope',
      );
      expect((await status(secret)).body.status).toBe('used');
      expectError(await accept(secret), 409, 'conflict', 'token');
      expect((await v1('GET', '/invites')).body.items.map((i: { id: string }) => i.id)).not.toContain(created.id);
      const entries = await storedRows(
        t,
        'SELECT action, account_id, via, target_type, target_id, fields FROM audit_log WHERE account_id = ? ORDER BY id',
        res.body.account.id,
      );
      expect(entries.map((e) => [e.action, e.via, e.target_type, e.target_id, JSON.parse(String(e.fields))])).toEqual([
        ['account.create', 'dashboard', 'account', res.body.account.id, ['email', 'projects', 'role']],
        ['invite.accept', 'dashboard', 'invite', created.id, ['usedAt']],
      ]);
      expect(JSON.stringify(entries)).not.toContain(secret);
    });

    test('two tabs accepting at once make exactly one account', async () => {
      const email = nextEmail();
      const secret = secretOf((await invite({ email, role: 'editor' })).url);
      const answers = await Promise.all([accept(secret, 'first tab password'), accept(secret, 'second tab password')]);
      expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
      expect(answers.find((a) => a.status === 409)!.body.error.field).toBe('token');
      const accounts = await storedRows(t, 'SELECT id FROM accounts WHERE lower(email) = lower(?)', email);
      expect(accounts).toHaveLength(1);
    });

    test('a revoked invite: 204, gone from the list, its address says revoked and creates nothing; audited', async () => {
      const email = nextEmail();
      const created = await invite({ email, role: 'editor' });
      const secret = secretOf(created.url);
      const res = await v1('DELETE', `/invites/${created.id}`);
      expect(res.status).toBe(204);
      expectError(await v1('DELETE', `/invites/${created.id}`), 404, 'not_found');
      expect((await status(secret)).body.status).toBe('revoked');
      const refused = await accept(secret);
      expectError(refused, 409, 'conflict', 'token');
      expect(refused.body.error.message).toContain('ask an admin for a new invite');
      expect(await storedRows(t, 'SELECT id FROM accounts WHERE email = ?', email)).toHaveLength(0);
      expect((await auditOf(created.id)).map((a) => a.action)).toEqual(['invite.create', 'invite.revoke']);
      // Revoked, the email may be invited again.
      await invite({ email, role: 'viewer' });
    });

    test('the same email twice, or the email of an account: 409 conflict field email', async () => {
      const email = nextEmail();
      await invite({ email, role: 'editor' });
      expectError(
        await v1('POST', '/invites', { email: email.toUpperCase(), role: 'viewer' }),
        409,
        'conflict',
        'email',
      );
      expectError(await v1('POST', '/invites', { email: editor.email, role: 'viewer' }), 409, 'conflict', 'email');
    });

    only('bad input names its field; only admins invite, list and revoke', async () => {
      const cases: [unknown, string][] = [
        [{ email: 'not an email', role: 'editor' }, 'email'],
        [{ role: 'editor' }, 'email'],
        [{ email: nextEmail(), role: 'owner' }, 'role'],
        [{ email: nextEmail(), role: 'editor', projects: ['prj_nope'] }, 'projects'],
        [{ email: nextEmail(), role: 'editor', projects: [] }, 'projects'],
        [{ email: nextEmail(), role: 'editor', projects: 'x' }, 'projects'],
        [{ email: nextEmail(), role: 'admin', projects: [projectId] }, 'projects'],
      ];
      for (const [body, field] of cases) expectError(await v1('POST', '/invites', body), 400, 'invalid_request', field);
      expectError(
        await v1('POST', '/invites', { email: nextEmail(), role: 'viewer' }, editor),
        403,
        'superuser_required',
      );
      expectError(await v1('GET', '/invites', undefined, editor), 403, 'superuser_required');
      expectError(await v1('DELETE', '/invites/inv_x', undefined, editor), 403, 'superuser_required');
    });

    only(
      'accepting checks the password length and leaves the invite pending; another site cannot post it',
      async () => {
        const secret = secretOf((await invite({ email: nextEmail(), role: 'editor' })).url);
        expectError(await accept(secret, 'short'), 400, 'invalid_request', 'password');
        const crossSite = await dash(t, 'POST', '/invite', {
          sameOrigin: false,
          headers: { 'sec-fetch-site': 'cross-site' },
          body: { token: secret, password: NEW_PASSWORD },
        });
        expectError(crossSite, 403, 'csrf_rejected');
        expect((await status(secret)).body.status).toBe('pending');
      },
    );

    test('an invite past its 7 days says expired, is not listed, cannot be accepted or revoked', async () => {
      const email = nextEmail();
      const created = await invite({ email, role: 'editor' });
      const secret = secretOf(created.url);
      try {
        t.clock.set(created.expiresAt - 1);
        expect((await status(secret)).body.status).toBe('pending');
        t.clock.set(created.expiresAt);
        expect((await status(secret)).body.status).toBe('expired');
        // Seven days on, the admin's session is idle past its limit: a new one.
        const late = await sessionFor(t, { role: 'admin' });
        expect(
          (await v1('GET', '/invites', undefined, late)).body.items.map((i: { id: string }) => i.id),
        ).not.toContain(created.id);
        const refused = await accept(secret);
        expectError(refused, 409, 'conflict', 'token');
        expect(refused.body.error.message).toContain('expired');
        expectError(await v1('DELETE', `/invites/${created.id}`, undefined, late), 404, 'not_found');
        // Expired, the email may be invited again.
        expect((await v1('POST', '/invites', { email, role: 'viewer' }, late)).status).toBe(201);
      } finally {
        t.clock.set(T0);
      }
    });
  });
});

describe('invite secrets are guessed no faster than passwords', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeTestApp();
  });
  afterAll(() => disposeTestApp(t));

  test('20 secrets naming no invite from one address, then 429 with Retry-After on both doors, before anything is read', async () => {
    const admin = await sessionFor(t, { role: 'admin' });
    const made = await dash(t, 'POST', '/api/v1/invites', {
      cookie: admin.cookie,
      body: { email: 'real@example.com', role: 'editor' },
    });
    expect(made.status).toBe(201);
    const guess = (i: number) => `guess${String(i).padStart(38, '0')}`;
    for (let i = 0; i < 10; i++) {
      expectError(await dash(t, 'POST', '/invite/status', { body: { token: guess(i) } }), 404, 'not_found');
      expectError(
        await dash(t, 'POST', '/invite', { body: { token: guess(i), password: NEW_PASSWORD } }),
        404,
        'not_found',
      );
    }
    const secret = secretOf(made.body.url);
    for (const [path, body] of [
      ['/invite/status', { token: secret }],
      ['/invite', { token: secret, password: NEW_PASSWORD }],
    ] as const) {
      const refused = await dash(t, 'POST', path, { body });
      expectError(refused, 429, 'rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    // Refused before the body was read: the invite is still pending for its person.
    expect((await storedRows(t, 'SELECT used_at FROM invites'))[0]!.used_at).toBeNull();
  });
});
