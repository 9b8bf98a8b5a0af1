/**
 * Session authentication at the edge: API keys never reach /api/app; without a live session only
 * the doors (setup, sign-in) answer; a session on /api/v1 acts as a write key of its account,
 * rate-limited per account; a session-authenticated POST, PATCH or DELETE must be same-origin (403
 * csrf_rejected), and key requests are never CSRF-checked. Sessions are started by the sessions
 * service (helpers/session.ts); signing in is the subject of sessions.test.ts, and here of the
 * CSRF test of POST /api/app/session. Routing, body and origin checks do not reach the store:
 * they run on SQLite only (`blind`).
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { api, makeKey, makeTestApp, type TestApp } from '../helpers/app';
import { dash, PASSWORD } from '../helpers/dashboard';
import { engineBlind, forEachEngine } from '../helpers/engines';
import { expectError } from '../helpers/schema';
import { sessionFor } from '../helpers/session';

const EVIL = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' };
const LINK = { destination: 'https://example.com/a' };

let t: TestApp;
afterEach(() => {
  expect(t.errors).toEqual([]);
  return t.close();
});

forEachEngine((engine) => {
  const blind = engineBlind(engine);
  describe('/api/app is session only', () => {
    blind('an API key is 403 session_required everywhere under /api/app, the doors included', async () => {
      t = await makeTestApp({}, { engine });
      const { key } = await makeKey(t, 'write', { superuser: true });
      for (const [method, path] of [
        ['GET', '/api/app/session'],
        ['GET', '/api/app/keys'],
        ['POST', '/api/app/keys'],
        ['GET', '/api/app/accounts'],
        ['DELETE', '/api/app/links/lnk_x'],
        ['GET', '/api/app/setup'],
        ['POST', '/api/app/session'],
        ['GET', '/api/app/no-such-route'],
      ] as const) {
        const res = await api(t, method, path, { key, body: method === 'POST' ? { scope: 'read' } : undefined });
        expectError(res, 403, 'session_required', null);
      }
    });

    blind('no session: 403 session_required except GET/POST setup and POST session', async () => {
      t = await makeTestApp({}, { engine });
      for (const [method, path] of [
        ['GET', '/session'],
        ['DELETE', '/session'],
        ['GET', '/sessions'],
        ['DELETE', '/sessions'],
        ['DELETE', '/sessions/ses_x'],
        ['POST', '/password'],
        ['GET', '/keys'],
        ['POST', '/keys'],
        ['DELETE', '/keys/key_x'],
        ['DELETE', '/links/lnk_x'],
        ['GET', '/accounts'],
        ['POST', '/accounts'],
        ['PATCH', '/accounts/acc_x'],
        ['GET', '/nothing-here'],
      ] as const) {
        expectError(await dash(t, method, path, { body: method === 'GET' ? undefined : {} }), 403, 'session_required');
      }
      expect((await dash(t, 'GET', '/setup')).status).toBe(200);
      expectError(
        await dash(t, 'POST', '/setup', { body: { token: 'x', email: 'a@b.example', password: PASSWORD } }),
        403,
        'setup_token_invalid',
      );
      expectError(
        await dash(t, 'POST', '/session', { body: { email: 'a@b.example', password: PASSWORD } }),
        401,
        'sign_in_failed',
      );
    });

    blind('bodies: JSON only, and a signed-in unknown route is 404', async () => {
      t = await makeTestApp({}, { engine });
      const { cookie } = await sessionFor(t);
      const res = await api(t, 'POST', '/api/app/keys', {
        rawBody: 'scope=read',
        headers: { cookie, 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded' },
      });
      expectError(res, 415, 'unsupported_media_type');
      expectError(await dash(t, 'POST', '/keys', { cookie, body: [1] }), 400, 'invalid_request', 'body');
      expectError(await dash(t, 'GET', '/nothing-here', { cookie }), 404, 'not_found');
    });
  });

  describe('CSRF: session-authenticated writes must be same-origin', () => {
    blind(
      'POST /api/app/keys from another origin is 403 csrf_rejected; same-origin by either header passes',
      async () => {
        t = await makeTestApp({}, { engine });
        const { cookie } = await sessionFor(t);
        const body = { scope: 'read' };
        expectError(
          await dash(t, 'POST', '/keys', { cookie, body, sameOrigin: false, headers: EVIL }),
          403,
          'csrf_rejected',
          null,
        );
        expectError(
          await dash(t, 'POST', '/keys', {
            cookie,
            body,
            sameOrigin: false,
            headers: { origin: 'https://evil.example' },
          }),
          403,
          'csrf_rejected',
        );
        // Another site's HTML form: refused for where it comes from, whatever its body.
        const form = await api(t, 'POST', '/api/app/keys', {
          rawBody: 'scope=write',
          headers: { cookie, ...EVIL, 'content-type': 'application/x-www-form-urlencoded' },
        });
        expectError(form, 403, 'csrf_rejected');
        // No proof of origin at all (an old browser, a script holding a stolen cookie): refused too.
        expectError(await dash(t, 'POST', '/keys', { cookie, body, sameOrigin: false }), 403, 'csrf_rejected');
        expectError(
          await dash(t, 'POST', '/keys', {
            cookie,
            body,
            sameOrigin: false,
            headers: { 'sec-fetch-site': 'same-site' },
          }),
          403,
          'csrf_rejected',
        );
        expect((await dash(t, 'POST', '/keys', { cookie, body })).status).toBe(201);
        const byOrigin = await dash(t, 'POST', '/keys', {
          cookie,
          body,
          sameOrigin: false,
          headers: { origin: 'https://app.sl.test' },
        });
        expect(byOrigin.status).toBe(201);
        // Reads are not CSRF-checked.
        expect((await dash(t, 'GET', '/keys', { cookie, sameOrigin: false, headers: EVIL })).body.items).toHaveLength(
          2,
        );
      },
    );

    blind('DELETE /api/app/session from another origin is refused and the session lives', async () => {
      t = await makeTestApp({}, { engine });
      const { cookie } = await sessionFor(t);
      expectError(
        await dash(t, 'DELETE', '/session', { cookie, sameOrigin: false, headers: EVIL }),
        403,
        'csrf_rejected',
      );
      expect((await dash(t, 'GET', '/session', { cookie })).status).toBe(200);
    });

    blind(
      'sign-in marked cross-origin by the browser is refused (another site must not sign a visitor in)',
      async () => {
        t = await makeTestApp({}, { engine });
        const { email } = await sessionFor(t);
        const body = { email, password: PASSWORD };
        expectError(
          await dash(t, 'POST', '/session', { body, sameOrigin: false, headers: EVIL }),
          403,
          'csrf_rejected',
        );
        // A client that sends no provenance at all (a script) may sign in.
        expect((await dash(t, 'POST', '/session', { body, sameOrigin: false })).status).toBe(200);
      },
    );
  });

  describe('a session on /api/v1 acts as a write key of its account', () => {
    test('POST /api/v1/links works same-origin; cross-origin is csrf_rejected; /me names the account', async () => {
      t = await makeTestApp({}, { engine });
      const { cookie, accountId, email } = await sessionFor(t);
      const created = await dash(t, 'POST', '/api/v1/links', { cookie, body: LINK });
      expect(created.status).toBe(201);
      expect(created.body.destination).toBe('https://example.com/a');
      expectError(
        await dash(t, 'POST', '/api/v1/links', { cookie, body: LINK, sameOrigin: false, headers: EVIL }),
        403,
        'csrf_rejected',
      );
      expectError(
        await dash(t, 'DELETE', `/api/v1/links/${created.body.id}`, { cookie, sameOrigin: false }),
        403,
        'csrf_rejected',
      );
      const me = await dash(t, 'GET', '/api/v1/me', { cookie, sameOrigin: false });
      expect(me.status).toBe(200);
      expect(me.body.scope).toBe('write');
      expect(me.body.account).toEqual({ id: accountId, email, superuser: false, role: 'editor', projects: null });
      // Not a superuser: a custom slug is refused as it is for that account's keys.
      expectError(
        await dash(t, 'POST', '/api/v1/links', { cookie, body: { ...LINK, slug: 'mine' } }),
        403,
        'superuser_required',
        'slug',
      );
      expect((await dash(t, 'DELETE', `/api/v1/links/${created.body.id}`, { cookie })).status).toBe(200);
    });

    test('an ended session on /api/v1 is 403 session_required; no cookie stays key_missing', async () => {
      t = await makeTestApp({}, { engine });
      const { cookie } = await sessionFor(t);
      expect((await dash(t, 'DELETE', '/session', { cookie })).status).toBe(204);
      expectError(await dash(t, 'GET', '/api/v1/links', { cookie }), 403, 'session_required');
      expectError(await dash(t, 'GET', '/api/v1/links'), 401, 'key_missing');
    });

    test('rate-limited per account, across the account’s sessions', async () => {
      t = await makeTestApp({ SLINK_RATE_LIMIT: '3' }, { engine });
      const first = await sessionFor(t);
      const second = await sessionFor(t, { email: first.email });
      const other = await sessionFor(t);
      for (const cookie of [first.cookie, second.cookie, first.cookie]) {
        expect((await dash(t, 'GET', '/api/v1/links', { cookie })).status).toBe(200);
      }
      const limited = await dash(t, 'GET', '/api/v1/links', { cookie: second.cookie });
      expectError(limited, 429, 'rate_limited');
      expect(limited.headers.get('retry-after')).toBe('60');
      expect(limited.headers.get('x-ratelimit-limit')).toBe('3');
      expect((await dash(t, 'GET', '/api/v1/links', { cookie: other.cookie })).status).toBe(200);
    });

    blind('a request with an Authorization header is a key request: cookie ignored, never CSRF-checked', async () => {
      t = await makeTestApp({}, { engine });
      const { cookie } = await sessionFor(t);
      const { key, account } = await makeKey(t, 'read');
      const me = await api(t, 'GET', '/me', { key, headers: { cookie } });
      expect(me.body.account.id).toBe(account.id);
      // The read key's scope applies, not the session's.
      expectError(
        await api(t, 'POST', '/links', { key, body: LINK, headers: { cookie, ...EVIL } }),
        403,
        'insufficient_scope',
      );
      const { key: writeKey } = await makeKey(t, 'write');
      expect((await api(t, 'POST', '/links', { key: writeKey, body: LINK, headers: EVIL })).status).toBe(201);
    });
  });
});
