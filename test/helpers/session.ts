/**
 * A dashboard session for tests that need one but are not about signing in: a fixture account
 * (app.ts makeAccount, FIXTURE_PASSWORD) and a session started by the real sessions service, the
 * step a right password leads to. No password is verified here: the sign-in tests (sessions,
 * sign-in throttle, session auth) sign in through POST /api/app/session, and an account made
 * here can sign in that way too.
 */
import { sessionCookieName } from '../../src/http/session';
import type { AccountRow } from '../../src/modules/auth/public';
import { startSession } from '../../src/modules/sessions/service';
import { makeAccount, type TestApp } from './app';

export interface TestSession {
  /** `name=token`, ready for a Cookie header. */
  cookie: string;
  email: string;
  accountId: string;
  sessionId: string;
}

/** A new account (or the one of `email`, made here before) signed in; its password is FIXTURE_PASSWORD. */
export async function sessionFor(
  t: TestApp,
  opts: { email?: string; superuser?: boolean; role?: AccountRow['role']; userAgent?: string } = {},
): Promise<TestSession> {
  const account =
    (opts.email === undefined ? null : await t.deps.stores.accounts.findByEmail(opts.email)) ??
    (await makeAccount(t, { email: opts.email, superuser: opts.superuser ?? false, role: opts.role }));
  const made = await startSession(t.deps, account, opts.userAgent ?? null);
  return {
    cookie: `${sessionCookieName(t.deps.config.appHost)}=${made.token}`,
    email: account.email,
    accountId: account.id,
    sessionId: made.session.id,
  };
}
