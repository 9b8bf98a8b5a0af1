/**
 * Session verbs: sign in, verify, sign out, list and end. A session is a random token (32 bytes)
 * held by the browser in a cookie; only its sha256 is stored. It ends at sign-out, at a password
 * change, SLINK_SESSION_DAYS after sign-in, or after 7 idle days.
 */

import { AppError, notFound } from '../../lib/errors';
import { sha256Hex } from '../../lib/hash';
import { newId, randomToken } from '../../lib/ids';
import { type AccountRow, findAccountByEmail, findAccountById, hashPassword, type Principal } from '../auth/public';
import { parseAgent } from '../clicks/public';
import type { SessionsBase, SessionsDeps } from './deps';
import type { SessionRow } from './store';

const DAY_MS = 86_400_000;
const IDLE_MS = 7 * DAY_MS;
// lastSeenAt only decides idle expiry (days): write it at most once a minute per session.
const SEEN_RESOLUTION_MS = 60_000;
const USER_AGENT_LENGTH = 200;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export interface SignedIn {
  session: SessionRow;
  account: AccountRow;
}

export interface NewSession extends SignedIn {
  /** The cookie's value: handed to the browser once, never stored. */
  token: string;
}

interface SignInInput {
  email: string;
  password: string;
  userAgent: string | null;
  /** The client address, for the per-address failure limit only (never stored). */
  address: string | null;
}

let dummy: Promise<string> | null = null;

/**
 * An argon2id hash of a random secret, made once (at the first sign-in). An unknown email is
 * verified against it, so it costs what a wrong password costs and the timing tells nothing.
 */
function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomToken());
  return dummy;
}

/** Creates a session for an account that has just proven who it is. */
export async function startSession(
  deps: SessionsBase,
  account: AccountRow,
  userAgent: string | null,
): Promise<NewSession> {
  const now = deps.clock.now();
  // Ended sessions are deleted when met; the ones never met again go here.
  await deps.stores.sessions.deleteEnded(now, now - IDLE_MS);
  const token = randomToken();
  const session: SessionRow = {
    id: newId('ses'),
    accountId: account.id,
    tokenHash: sha256Hex(token),
    createdAt: now,
    lastSeenAt: now,
    expiresAt: now + deps.config.sessionDays * DAY_MS,
    userAgent: userAgent ? userAgent.slice(0, USER_AGENT_LENGTH) : null,
  };
  await deps.stores.sessions.insert(session);
  await deps.stores.accounts.setLastSignIn(account.id, now);
  return { token, session, account: { ...account, lastSignInAt: now } };
}

/**
 * Checks a password of the account with this email, if any, under the sign-in throttle
 * (failure limits, verification slots). Resolves to the account when the password is right.
 */
export async function checkCredentials(
  deps: SessionsDeps,
  input: Omit<SignInInput, 'userAgent'>,
): Promise<AccountRow | null> {
  const attempt = await deps.signInThrottle.start(input.email, input.address);
  const found = await findAccountByEmail(deps, input.email);
  let matches: boolean;
  try {
    matches = await deps.signInThrottle.run(async () =>
      deps.verifyPassword(input.password, found?.passwordHash ?? (await dummyHash())),
    );
  } catch (err) {
    await attempt.cancelled();
    throw err;
  }
  // Read again: the account may have changed while its password was being verified.
  const account = found && (await findAccountById(deps, found.id));
  if (!matches || !account || account.passwordHash !== found.passwordHash) return null;
  await attempt.succeeded();
  return account;
}

/** Signs in with email and password; a wrong email, a wrong password and a disabled account fail alike. */
export async function signIn(deps: SessionsDeps, input: SignInInput): Promise<NewSession> {
  const account = await checkCredentials(deps, input);
  if (!account || account.disabledAt !== null) {
    throw new AppError('sign_in_failed', 'Sign-in failed: wrong email or password, or the account is disabled');
  }
  return startSession(deps, account, input.userAgent);
}

/** The live session a token belongs to, or null; an ended session met here is deleted. */
export async function verifySession(deps: SessionsBase, token: string): Promise<SignedIn | null> {
  if (!TOKEN.test(token)) return null;
  const session = await deps.stores.sessions.findByTokenHash(sha256Hex(token));
  if (!session) return null;
  // The accounts table is the auth module's: read through its verb (a second indexed lookup).
  const account = await findAccountById(deps, session.accountId);
  const now = deps.clock.now();
  if (!account || session.expiresAt <= now || now - session.lastSeenAt >= IDLE_MS || account.disabledAt !== null) {
    await deps.stores.sessions.delete(session.id);
    return null;
  }
  if (now - session.lastSeenAt < SEEN_RESOLUTION_MS) return { session, account };
  await deps.stores.sessions.touch(session.id, now);
  return { session: { ...session, lastSeenAt: now }, account };
}

export async function signOut(deps: SessionsBase, sessionId: string): Promise<void> {
  await deps.stores.sessions.delete(sessionId);
}

/** Ends every session of an account ("sign out everywhere"); returns how many ended. */
export function endAllSessions(deps: SessionsBase, accountId: string): Promise<number> {
  return deps.stores.sessions.deleteAllOfAccount(accountId);
}

/** Ends one of the account's own sessions; another account's session is not_found. */
export async function endSession(deps: SessionsBase, accountId: string, sessionId: string): Promise<void> {
  if (!(await deps.stores.sessions.deleteOfAccount(accountId, sessionId))) throw notFound('session');
}

export interface SessionItem {
  id: string;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  userAgent: string | null;
  /** The browser and system as the statistics name them (the same parser, clicks/user-agent.ts). */
  browser: string | null;
  os: string | null;
  current: boolean;
}

/** A session's browser and system, by the parser (and names) the statistics use. */
function agentNames(userAgent: string | null): { browser: string | null; os: string | null } {
  const { browser, os } = parseAgent(userAgent);
  return { browser, os };
}

/** The account's live sessions, newest first, the caller's own marked `current`. */
export async function listSessions(deps: SessionsBase, accountId: string, currentId: string): Promise<SessionItem[]> {
  const now = deps.clock.now();
  return (await deps.stores.sessions.listOfAccount(accountId))
    .filter((s) => s.expiresAt > now && now - s.lastSeenAt < IDLE_MS)
    .map((s) => ({
      id: s.id,
      createdAt: s.createdAt,
      lastSeenAt: s.lastSeenAt,
      expiresAt: s.expiresAt,
      userAgent: s.userAgent,
      ...agentNames(s.userAgent),
      current: s.id === currentId,
    }));
}

/**
 * A signed-in person calling /api/v1 acts as a write key of their account: the same principal
 * shape, with the session standing in for the key (GET /me shows it as "Dashboard session").
 */
export function sessionPrincipal({ session, account }: SignedIn): Principal {
  return {
    account,
    key: {
      id: session.id,
      accountId: account.id,
      name: 'Dashboard session',
      prefix: 'session',
      hash: '',
      scope: 'write',
      expiresAt: session.expiresAt,
      revokedAt: null,
      lastUsedAt: session.lastSeenAt,
      createdAt: session.createdAt,
      projects: null,
      domains: null,
    },
  };
}
