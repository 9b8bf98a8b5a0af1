/**
 * Dashboard sessions: sign-in with a wrong email, a wrong password and a disabled account looking
 * the same; the cookie's flags; only the token's hash stored; absolute and idle expiry through the
 * injected clock; sign-out, sign out everywhere, one session ended, and a password change ending
 * every session.
 */
import { afterEach, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { sha256Hex } from '../../src/lib/hash';
import { createAccount } from '../../src/modules/auth/accounts';
import { setPassword } from '../../src/modules/auth/admin';
import { SignedInModel } from '../../src/modules/sessions/model';
import { api, makeTestApp, T0, type TestApp } from '../helpers/app';
import { dash, PASSWORD, SAME_ORIGIN, setCookieOf, signIn } from '../helpers/dashboard';
import { forEachEngine } from '../helpers/engines';
import { expectError, expectExactKeys, expectSchema } from '../helpers/schema';
import { storedRows } from '../helpers/stored';

// Every test here hashes and verifies real passwords (argon2id, several per test), and that work runs
// on the lowest-priority threads by design (sessions/verifier.ts): on a machine busy with other
// work it waits its turn for long. The limit is a guard against a hang, not a measure.
setDefaultTimeout(120_000);

const DAY = 86_400_000;
const MINUTE = 60_000;

let t: TestApp;
afterEach(() => {
  expect(t.errors).toEqual([]);
  return t.close();
});

function sessionRows(t: TestApp): Promise<Record<string, unknown>[]> {
  return storedRows(t, 'SELECT * FROM sessions ORDER BY created_at, id');
}

const FAILED = {
  error: {
    code: 'sign_in_failed',
    message: 'Sign-in failed: wrong email or password, or the account is disabled',
    field: null,
  },
};

forEachEngine((engine) => {
  describe('POST /api/app/session (sign in)', () => {
    test('the right password: 200 {account, session}, a session cookie, last sign-in recorded', async () => {
      t = await makeTestApp({}, { engine });
      const account = await createAccount(t.deps, { email: 'Ada@Example.com', password: PASSWORD, superuser: true });
      t.clock.advance(5000);
      const res = await dash(t, 'POST', '/session', { body: { email: 'ada@example.com', password: PASSWORD } });
      expect(res.status).toBe(200);
      expectSchema(SignedInModel, res.body);
      expect(res.body).toEqual({
        account: { id: account.id, email: 'Ada@Example.com', superuser: true, role: 'admin', projects: null },
        session: { id: expect.stringMatching(/^ses_[A-Za-z0-9]{16}$/), expiresAt: T0 + 5000 + 30 * DAY },
      });
      expect(setCookieOf(res)!.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const [row] = await storedRows(t, 'SELECT last_sign_in_at FROM accounts WHERE id = ?', account.id);
      expect(row).toEqual({ last_sign_in_at: T0 + 5000 });
    });

    test('a wrong password, an unknown email and a disabled account answer the same status and body', async () => {
      t = await makeTestApp({}, { engine });
      await createAccount(t.deps, { email: 'ada@example.com', password: PASSWORD });
      const disabled = await createAccount(t.deps, { email: 'off@example.com', password: PASSWORD });
      await t.deps.stores.accounts.setDisabled(disabled.id, T0);
      const answers = [];
      for (const body of [
        { email: 'ada@example.com', password: 'not the password' },
        { email: 'nobody@example.com', password: 'not the password' },
        { email: 'nobody@example.com', password: PASSWORD },
        { email: 'off@example.com', password: PASSWORD },
      ]) {
        const res = await dash(t, 'POST', '/session', { body });
        expectError(res, 401, 'sign_in_failed', null);
        expect(res.headers.get('set-cookie')).toBeNull();
        answers.push(res.text);
      }
      expect(new Set(answers).size).toBe(1);
      expect(JSON.parse(answers[0]!)).toEqual(FAILED);
      expect(await sessionRows(t)).toEqual([]);
    });

    test('a missing or oversized field is 400 naming it', async () => {
      t = await makeTestApp({}, { engine });
      expectError(
        await dash(t, 'POST', '/session', { body: { email: 'a@example.com' } }),
        400,
        'invalid_request',
        'password',
      );
      expectError(
        await dash(t, 'POST', '/session', { body: { email: 'a@example.com', password: 'x'.repeat(1025) } }),
        400,
        'invalid_request',
        'password',
      );
      expectError(await dash(t, 'POST', '/session', { body: { password: PASSWORD } }), 400, 'invalid_request', 'email');
    });

    test('signing in again from a signed-in browser ends the old session', async () => {
      t = await makeTestApp({}, { engine });
      const first = await signIn(t);
      const again = await dash(t, 'POST', '/session', {
        cookie: first.cookie,
        body: { email: first.email, password: PASSWORD },
      });
      expect(again.status).toBe(200);
      expect(again.body.session.id).not.toBe(first.sessionId);
      expectError(await dash(t, 'GET', '/session', { cookie: first.cookie }), 403, 'session_required');
      expect((await dash(t, 'GET', '/session', { cookie: setCookieOf(again)!.header })).status).toBe(200);
    });
  });

  describe('the session cookie', () => {
    test('https app host: __Host-slink_session, Secure, HttpOnly, SameSite=Lax, Path=/, Max-Age to the absolute expiry', async () => {
      t = await makeTestApp({ SLINK_APP_HOST: 'https://app.sl.test' }, { engine });
      await createAccount(t.deps, { email: 'a@example.com', password: PASSWORD });
      const res = await dash(t, 'POST', '/session', { body: { email: 'a@example.com', password: PASSWORD } });
      const cookie = setCookieOf(res)!;
      expect(cookie.name).toBe('__Host-slink_session');
      expect(cookie.attributes.sort()).toEqual(['HttpOnly', 'Max-Age=2592000', 'Path=/', 'SameSite=Lax', 'Secure']);
    });

    test('http app host: slink_session without Secure; SLINK_SESSION_DAYS sets Max-Age and expiresAt', async () => {
      t = await makeTestApp({ SLINK_APP_HOST: 'http://app.sl.test', SLINK_SESSION_DAYS: '2' }, { engine });
      await createAccount(t.deps, { email: 'a@example.com', password: PASSWORD });
      const res = await dash(t, 'POST', '/session', { body: { email: 'a@example.com', password: PASSWORD } });
      expect(res.body.session.expiresAt).toBe(T0 + 2 * DAY);
      const cookie = setCookieOf(res)!;
      expect(cookie.name).toBe('slink_session');
      expect(cookie.attributes.sort()).toEqual(['HttpOnly', 'Max-Age=172800', 'Path=/', 'SameSite=Lax']);
      // The https name is not read on an http app host, and the other way round.
      expect((await dash(t, 'GET', '/session', { cookie: cookie.header })).status).toBe(200);
      expectError(
        await dash(t, 'GET', '/session', { cookie: `__Host-slink_session=${cookie.value}` }),
        403,
        'session_required',
      );
    });

    test('only the sha256 of the token is stored, with a 200-character user agent and no address', async () => {
      t = await makeTestApp({ SLINK_TRUST_PROXY: '1' }, { engine });
      const { cookie, accountId } = await signIn(t, {
        headers: { 'user-agent': `Browser/${'x'.repeat(300)}`, 'x-forwarded-for': '203.0.113.9' },
      });
      const token = cookie.split('=')[1]!;
      const rows = await sessionRows(t);
      expect(rows).toHaveLength(1);
      expectExactKeys(rows[0]!, [
        'id',
        'account_id',
        'token_hash',
        'created_at',
        'last_seen_at',
        'expires_at',
        'user_agent',
      ]);
      expect(rows[0]).toMatchObject({ account_id: accountId, token_hash: sha256Hex(token) });
      expect(rows[0]!.user_agent).toBe(`Browser/${'x'.repeat(192)}`);
      const dump = JSON.stringify(await storedRows(t, 'SELECT * FROM sessions'));
      expect(dump).not.toContain(token);
      expect(dump).not.toContain('203.0.113.9');
    });

    test('garbage, unknown and empty cookies are no session', async () => {
      t = await makeTestApp({}, { engine });
      for (const cookie of [
        '__Host-slink_session=',
        '__Host-slink_session=abc',
        `__Host-slink_session=${'A'.repeat(43)}`,
        'other=1',
      ]) {
        expectError(await dash(t, 'GET', '/session', { cookie }), 403, 'session_required', null);
      }
    });
  });

  describe('expiry, through the injected clock', () => {
    test('absolute: SLINK_SESSION_DAYS after sign-in, however busy the session', async () => {
      t = await makeTestApp({ SLINK_SESSION_DAYS: '10' }, { engine });
      const { cookie } = await signIn(t);
      for (let day = 1; day < 10; day++) {
        t.clock.set(T0 + day * DAY);
        expect((await dash(t, 'GET', '/session', { cookie })).status).toBe(200);
      }
      t.clock.set(T0 + 10 * DAY - 1);
      expect((await dash(t, 'GET', '/session', { cookie })).status).toBe(200);
      t.clock.set(T0 + 10 * DAY);
      expectError(await dash(t, 'GET', '/session', { cookie }), 403, 'session_required');
      // An ended session met is deleted.
      expect(await sessionRows(t)).toEqual([]);
    });

    test('idle: 7 days after the last request; last seen is written at most once a minute', async () => {
      t = await makeTestApp({}, { engine });
      const { cookie } = await signIn(t);
      const lastSeen = async () => (await sessionRows(t))[0]!.last_seen_at;
      t.clock.advance(30_000);
      expect((await dash(t, 'GET', '/session', { cookie })).status).toBe(200);
      expect(await lastSeen()).toBe(T0);
      t.clock.advance(30_000);
      expect((await dash(t, 'GET', '/session', { cookie })).status).toBe(200);
      expect(await lastSeen()).toBe(T0 + MINUTE);
      // Six days and a bit idle: still alive, and the request resets the idle clock.
      t.clock.advance(7 * DAY - MINUTE);
      expect((await dash(t, 'GET', '/session', { cookie })).status).toBe(200);
      expect(await lastSeen()).toBe(T0 + 7 * DAY);
      t.clock.advance(7 * DAY - 1);
      expect((await dash(t, 'GET', '/session', { cookie })).status).toBe(200);
      t.clock.advance(7 * DAY);
      expectError(await dash(t, 'GET', '/session', { cookie }), 403, 'session_required');
    });

    test('a new sign-in deletes sessions that ended unseen', async () => {
      t = await makeTestApp({}, { engine });
      await signIn(t);
      t.clock.advance(8 * DAY);
      await signIn(t);
      expect(await sessionRows(t)).toHaveLength(1);
    });
  });

  describe('ending sessions', () => {
    test('DELETE /api/app/session: 204, the cookie cleared, the session gone', async () => {
      t = await makeTestApp({}, { engine });
      const { cookie } = await signIn(t);
      const res = await dash(t, 'DELETE', '/session', { cookie });
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      const cleared = setCookieOf(res)!;
      expect([cleared.name, cleared.value]).toEqual(['__Host-slink_session', '']);
      expect(cleared.attributes).toContain('Max-Age=0');
      expectError(await dash(t, 'GET', '/session', { cookie }), 403, 'session_required');
      expectError(await dash(t, 'DELETE', '/session', { cookie }), 403, 'session_required');
    });

    test('GET /api/app/sessions lists live sessions newest first; DELETE one; another account’s is 404', async () => {
      t = await makeTestApp({}, { engine });
      const first = await signIn(t, { headers: { 'user-agent': 'Laptop' } });
      t.clock.advance(MINUTE);
      const second = await signIn(t, { email: first.email, headers: { 'user-agent': 'Phone' } });
      const stranger = await signIn(t);
      const list = await dash(t, 'GET', '/sessions', { cookie: second.cookie });
      expect(list.status).toBe(200);
      expect(list.body).toEqual({
        items: [
          {
            id: second.sessionId,
            createdAt: T0 + MINUTE,
            lastSeenAt: T0 + MINUTE,
            expiresAt: T0 + MINUTE + 30 * DAY,
            userAgent: 'Phone',
            browser: null,
            os: null,
            current: true,
          },
          {
            id: first.sessionId,
            createdAt: T0,
            lastSeenAt: T0,
            expiresAt: T0 + 30 * DAY,
            userAgent: 'Laptop',
            browser: null,
            os: null,
            current: false,
          },
        ],
      });
      expectError(
        await dash(t, 'DELETE', `/sessions/${stranger.sessionId}`, { cookie: second.cookie }),
        404,
        'not_found',
      );
      expect((await dash(t, 'GET', '/session', { cookie: stranger.cookie })).status).toBe(200);
      const ended = await dash(t, 'DELETE', `/sessions/${first.sessionId}`, { cookie: second.cookie });
      expect(ended.status).toBe(204);
      expect(ended.headers.get('set-cookie')).toBeNull();
      expectError(await dash(t, 'GET', '/session', { cookie: first.cookie }), 403, 'session_required');
      expect((await dash(t, 'GET', '/sessions', { cookie: second.cookie })).body.items).toHaveLength(1);
    });

    test('GET /api/app/sessions names each browser and system as the statistics do', async () => {
      t = await makeTestApp({}, { engine });
      const agents = [
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36',
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1',
        'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
      ];
      const first = await signIn(t, { headers: { 'user-agent': agents[0]! } });
      for (const agent of agents.slice(1)) {
        t.clock.advance(MINUTE);
        await signIn(t, { email: first.email, headers: { 'user-agent': agent } });
      }
      t.clock.advance(MINUTE);
      // No user agent at all: nothing to name.
      const bare = await dash(t, 'POST', '/session', { body: { email: first.email, password: PASSWORD } });
      expect(bare.status).toBe(200);
      const list = await dash(t, 'GET', '/sessions', { cookie: first.cookie });
      expect(list.status).toBe(200);
      expect(list.body.items.map((s: { browser: string | null; os: string | null }) => [s.browser, s.os])).toEqual([
        [null, null],
        ['Firefox', 'Linux'],
        ['Mobile Safari', 'iOS'],
        ['Chrome', 'Windows'],
      ]);
    });

    test('DELETE /api/app/sessions signs out everywhere, this session included; other accounts stay', async () => {
      t = await makeTestApp({}, { engine });
      const first = await signIn(t);
      const second = await signIn(t, { email: first.email });
      const other = await signIn(t);
      const res = await dash(t, 'DELETE', '/sessions', { cookie: first.cookie });
      expect(res.status).toBe(204);
      expect(setCookieOf(res)!.attributes).toContain('Max-Age=0');
      for (const cookie of [first.cookie, second.cookie]) {
        expectError(await dash(t, 'GET', '/session', { cookie }), 403, 'session_required');
      }
      expect((await dash(t, 'GET', '/session', { cookie: other.cookie })).status).toBe(200);
    });
  });

  describe('POST /api/app/password', () => {
    test('a wrong current password is 400 currentPassword; a short new one 400 newPassword', async () => {
      t = await makeTestApp({}, { engine });
      const { cookie } = await signIn(t);
      expectError(
        await dash(t, 'POST', '/password', {
          cookie,
          body: { currentPassword: 'wrong one', newPassword: 'new password' },
        }),
        400,
        'invalid_request',
        'currentPassword',
      );
      expectError(
        await dash(t, 'POST', '/password', { cookie, body: { currentPassword: PASSWORD, newPassword: 'short' } }),
        400,
        'invalid_request',
        'newPassword',
      );
      expect((await dash(t, 'GET', '/session', { cookie })).status).toBe(200);
    });

    test('the right one: 204, every session of the account ends, the new password signs in', async () => {
      t = await makeTestApp({}, { engine });
      const first = await signIn(t);
      const second = await signIn(t, { email: first.email });
      const res = await dash(t, 'POST', '/password', {
        cookie: first.cookie,
        body: { currentPassword: PASSWORD, newPassword: 'a new password' },
      });
      expect(res.status).toBe(204);
      expect(setCookieOf(res)!.attributes).toContain('Max-Age=0');
      for (const cookie of [first.cookie, second.cookie]) {
        expectError(await dash(t, 'GET', '/session', { cookie }), 403, 'session_required');
      }
      expectError(
        await dash(t, 'POST', '/session', { body: { email: first.email, password: PASSWORD } }),
        401,
        'sign_in_failed',
      );
      await signIn(t, { email: first.email, password: 'a new password' });
    });

    test('setPassword (the operator verb) ends that account’s sessions only', async () => {
      t = await makeTestApp({}, { engine });
      const mine = await signIn(t);
      const theirs = await signIn(t);
      await setPassword(t.deps, mine.email, 'set by the operator');
      expectError(await dash(t, 'GET', '/session', { cookie: mine.cookie }), 403, 'session_required');
      expect((await dash(t, 'GET', '/session', { cookie: theirs.cookie })).status).toBe(200);
      await signIn(t, { email: mine.email, password: 'set by the operator' });
      await expect(setPassword(t.deps, mine.email, 'short')).rejects.toMatchObject({ code: 'invalid_request' });
      await expect(setPassword(t.deps, 'nobody@example.com', 'long enough')).rejects.toMatchObject({
        code: 'not_found',
      });
    });
  });

  describe('GET /api/app/session', () => {
    test('without a cookie: 403 session_required; with an API key too', async () => {
      t = await makeTestApp({}, { engine });
      expectError(await dash(t, 'GET', '/session'), 403, 'session_required', null);
      const res = await api(t, 'GET', '/api/app/session', { headers: { ...SAME_ORIGIN, authorization: 'Bearer x' } });
      expectError(res, 403, 'session_required', null);
    });
  });
});
