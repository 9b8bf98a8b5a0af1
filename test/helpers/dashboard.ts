/**
 * Calls the dashboard's endpoints like its browser side does: the session cookie, and
 * `Sec-Fetch-Site: same-origin` on every request unless a test says otherwise.
 */
import { expect } from 'bun:test';
import { createAccount } from '../../src/modules/auth/accounts';
import { type ApiResult, api, FIXTURE_PASSWORD, makeAccount, type TestApp } from './app';

export const PASSWORD = FIXTURE_PASSWORD;
export const SAME_ORIGIN = { 'sec-fetch-site': 'same-origin' };

export interface SessionCookie {
  name: string;
  value: string;
  /** Attributes as sent, e.g. ['Max-Age=2592000', 'Path=/', 'HttpOnly', 'SameSite=Lax', 'Secure']. */
  attributes: string[];
  /** `name=value`, ready for a Cookie header. */
  header: string;
}

/** The Set-Cookie of a response, parsed (null when there is none). */
export function setCookieOf(res: ApiResult): SessionCookie | null {
  const raw = res.headers.get('set-cookie');
  if (raw === null) return null;
  const [pair, ...attributes] = raw.split(';').map((p) => p.trim());
  const at = pair!.indexOf('=');
  const name = pair!.slice(0, at);
  const value = pair!.slice(at + 1);
  return { name, value, attributes, header: `${name}=${value}` };
}

export interface DashboardCall {
  /** A Cookie header value (`name=value`), or null for none. */
  cookie?: string | null;
  body?: unknown;
  /** Sends Sec-Fetch-Site: same-origin (default true). */
  sameOrigin?: boolean;
  headers?: Record<string, string>;
}

/** A request as the dashboard sends it; paths under /api/app unless they start with /api/. */
export function dash<T = any>(t: TestApp, method: string, path: string, call: DashboardCall = {}) {
  const headers: Record<string, string> = { ...(call.sameOrigin === false ? {} : SAME_ORIGIN), ...call.headers };
  if (call.cookie) headers.cookie = call.cookie;
  return api<T>(t, method, path.startsWith('/api/') ? path : `/api/app${path}`, { headers, body: call.body });
}

let accounts = 0;

export interface SignedIn {
  cookie: string;
  email: string;
  accountId: string;
  sessionId: string;
}

/** Signs in through POST /api/app/session (the account is made first unless `email` names one). */
export async function signIn(
  t: TestApp,
  opts: { email?: string; superuser?: boolean; password?: string; headers?: Record<string, string> } = {},
): Promise<SignedIn> {
  const email = opts.email ?? `person${++accounts}@example.com`;
  const password = opts.password ?? PASSWORD;
  // The fixture password's hash is made once per process (makeAccount); the sign-in below still checks it for real.
  if (!opts.email && password === PASSWORD) await makeAccount(t, { email, superuser: opts.superuser ?? false });
  else if (!opts.email) await createAccount(t.deps, { email, password, superuser: opts.superuser ?? false });
  const res = await dash(t, 'POST', '/session', { body: { email, password }, headers: opts.headers });
  expect(res.status).toBe(200);
  return {
    cookie: setCookieOf(res)!.header,
    email,
    accountId: res.body.account.id,
    sessionId: res.body.session.id,
  };
}
