/**
 * First-run setup: while no account exists the server logs a setup address with a token new at
 * every start; POST /api/app/setup with it creates the first superuser and signs in; afterwards it
 * is 409 setup_done and the log line is gone.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { createAccount } from '../../src/modules/auth/accounts';
import { SignedInModel } from '../../src/modules/sessions/model';
import { startServer } from '../../src/server';
import { makeTestApp, type TestApp } from '../helpers/app';
import { dash, PASSWORD, setCookieOf } from '../helpers/dashboard';
import { databaseEnv, forEachEngine } from '../helpers/engines';
import { expectError, expectSchema } from '../helpers/schema';

let t: TestApp | null = null;
afterEach(async () => {
  const app = t;
  t = null;
  if (app) {
    expect(app.errors).toEqual([]);
    await app.close();
  }
});

function setupBody(t: TestApp, overrides: Record<string, unknown> = {}) {
  return { token: t.deps.setupToken, email: 'first@example.com', password: PASSWORD, ...overrides };
}

forEachEngine((engine) => {
  describe('/api/app/setup', () => {
    test('needed until the first superuser is made with the right token; then 409 setup_done', async () => {
      t = await makeTestApp({}, { engine });
      expect(await dash(t, 'GET', '/setup')).toMatchObject({ status: 200, body: { needed: true } });
      for (const token of ['', 'wrong', `${t.deps.setupToken}x`, t.deps.setupToken.slice(0, -1)]) {
        expectError(
          await dash(t, 'POST', '/setup', { body: setupBody(t, { token }) }),
          403,
          'setup_token_invalid',
          null,
        );
      }
      expectError(
        await dash(t, 'POST', '/setup', { body: setupBody(t, { email: 'not an email' }) }),
        400,
        'invalid_request',
        'email',
      );
      expectError(
        await dash(t, 'POST', '/setup', { body: setupBody(t, { password: 'short' }) }),
        400,
        'invalid_request',
        'password',
      );
      expect(await dash(t, 'GET', '/setup')).toMatchObject({ status: 200, body: { needed: true } });

      const res = await dash(t, 'POST', '/setup', { body: setupBody(t) });
      expect(res.status).toBe(201);
      expectSchema(SignedInModel, res.body);
      expect(res.body.account).toEqual({
        id: expect.any(String),
        email: 'first@example.com',
        superuser: true,
        role: 'admin',
        projects: null,
      });
      const cookie = setCookieOf(res)!.header;
      const session = await dash(t, 'GET', '/session', { cookie });
      expect(session.body).toEqual(res.body);

      expect(await dash(t, 'GET', '/setup')).toMatchObject({ status: 200, body: { needed: false } });
      // Whatever the token, once done.
      for (const token of [t.deps.setupToken, 'wrong']) {
        expectError(
          await dash(t, 'POST', '/setup', { body: setupBody(t, { token, email: 'second@example.com' }) }),
          409,
          'setup_done',
          null,
        );
      }
    });

    test('an account made by `slink user add` ends setup too', async () => {
      t = await makeTestApp({}, { engine });
      await createAccount(t.deps, { email: 'ops@example.com', password: PASSWORD });
      expect((await dash(t, 'GET', '/setup')).body).toEqual({ needed: false });
      expectError(await dash(t, 'POST', '/setup', { body: setupBody(t) }), 409, 'setup_done');
    });

    test('two setups at once make one superuser', async () => {
      t = await makeTestApp({}, { engine });
      const app = t;
      const answers = await Promise.all(
        ['a@example.com', 'b@example.com'].map((email) =>
          dash(app, 'POST', '/setup', { body: setupBody(app, { email }) }),
        ),
      );
      expect(answers.map((r) => r.status).sort()).toEqual([201, 409]);
      expect({ n: (await t.deps.stores.accounts.list()).length }).toEqual({ n: 1 });
    });

    test('a setup request a browser marks cross-origin is refused', async () => {
      t = await makeTestApp({}, { engine });
      const res = await dash(t, 'POST', '/setup', {
        body: setupBody(t),
        sameOrigin: false,
        headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      });
      expectError(res, 403, 'csrf_rejected');
      expect((await dash(t, 'GET', '/setup')).body).toEqual({ needed: true });
    });
  });
});

forEachEngine((engine) => {
  describe('the setup address in the start-up log', () => {
    test('logged at every start with a new token while no account exists; it works; then no more', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'slink-setup-'));
      const config = loadConfig({
        ...(await databaseEnv(engine)),
        SLINK_DB: join(dir, 'slink.db'),
        SLINK_PORT: '0',
        SLINK_HOSTNAME: '127.0.0.1',
        SLINK_APP_HOST: 'https://dash.example',
        SLINK_GEO_DB: '',
      });
      const startLogged = async () => {
        const lines: string[] = [];
        const server = await startServer(config, {
          info: (m) => lines.push(m),
          error: (m) => lines.push(`ERROR ${m}`),
        });
        return { server, lines };
      };
      try {
        const first = await startLogged();
        const setupLines = first.lines.filter((l) => l.includes('/app/setup'));
        expect(setupLines).toEqual([
          expect.stringMatching(
            /^no account exists yet: create the first superuser at https:\/\/dash\.example\/app\/setup\?token=[A-Za-z0-9_-]{43}$/,
          ),
        ]);
        const token = setupLines[0]!.split('token=')[1]!;
        await first.server.stop();

        const second = await startLogged();
        const again = second.lines.find((l) => l.includes('/app/setup'))!;
        const token2 = again.split('token=')[1]!;
        expect(token2).not.toBe(token);
        // The first start's token no longer works; this start's does.
        const post = (body: unknown) =>
          fetch(`http://127.0.0.1:${second.server.port}/api/app/setup`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
        expect((await post({ token, email: 'first@example.com', password: PASSWORD })).status).toBe(403);
        const made = await post({ token: token2, email: 'first@example.com', password: PASSWORD });
        expect(made.status).toBe(201);
        await second.server.stop();

        const third = await startLogged();
        expect(third.lines.filter((l) => l.includes('/app/setup'))).toEqual([]);
        await third.server.stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }, 30_000);
  });
});
