/**
 * The edge of /api/app, the dashboard's own endpoints, run before routing: session only.
 * An Authorization header (an API key) is refused, as is a missing or ended session, except on
 * the doors that open a session (setup status, setup, sign-in, an invite's lookup and acceptance). A session-authenticated
 * write must be same-origin (CSRF); the doors refuse what a browser marks cross-origin. A sign-in
 * from a throttled address is refused here too, before its body is read.
 */
import { AppError } from '../lib/errors';
import { type Access, accessOf, refusal } from '../modules/access/public';
import { type SessionsDeps, type SignedIn, sessionPrincipal, verifySession } from '../modules/sessions/public';
import { bodyProblem, csrfRejected, pathProblem } from './auth';
import { clientAddress, pathOf, type ServerLike } from './client';
import { errorResponse } from './errors';
import { actionOf } from './route-actions';
import { isMarkedCrossOrigin, isSameOrigin, isWrite, readSessionToken } from './session';

export const APP_API_PREFIX = '/api/app';

const SIGN_IN = 'POST /api/app/session';
const PASSWORD_CHANGE = 'POST /api/app/password';
/** An invite's lookup and acceptance: a secret naming no invite counts as a failed sign-in of the address. */
const INVITE_STATUS = 'POST /api/app/invite/status';
const INVITE_ACCEPT = 'POST /api/app/invite';
const THROTTLED = new Set([SIGN_IN, INVITE_STATUS, INVITE_ACCEPT]);
/** Reachable without a session. */
const DOORS = new Set(['GET /api/app/setup', 'POST /api/app/setup', SIGN_IN, INVITE_STATUS, INVITE_ACCEPT]);

const signedInByRequest = new WeakMap<Request, SignedIn>();

function sessionRequired(message = 'Sign in to the dashboard first'): AppError {
  return new AppError('session_required', message);
}

/** The live session of an /api/app request, if it has one (set by the guard). */
export function findSignedIn(request: Request): SignedIn | null {
  return signedInByRequest.get(request) ?? null;
}

/** Who is asking, for the authorisation function and the audit log: the signed-in person through the dashboard. */
export function appAccess(request: Request): Access {
  return accessOf(sessionPrincipal(signedIn(request)), 'dashboard');
}

/** The live session of an /api/app request; the guard lets none through without one, except the doors. */
export function signedIn(request: Request): SignedIn {
  const found = signedInByRequest.get(request);
  if (!found) throw sessionRequired();
  return found;
}

/**
 * A sign-in, or a password change (which checks the current password as a sign-in does), from an
 * address (or of an account) past its failure limit: refused here, before the body is read or
 * anything is looked up, so that a flood of them costs next to nothing (sessions/throttle.ts).
 */
function throttled(
  deps: SessionsDeps,
  request: Request,
  server: ServerLike | null,
  route: string,
  session: SignedIn | null,
) {
  if (!THROTTLED.has(route) && !(route === PASSWORD_CHANGE && session)) return undefined;
  const address = clientAddress(request, server, deps.config.trustProxy);
  const refused = deps.signInThrottle.refusal(session?.account.email ?? null, address);
  return refused ? errorResponse(refused, { 'retry-after': String(refused.retryAfter) }) : undefined;
}

export function createAppGuard(deps: SessionsDeps) {
  const { appHost } = deps.config;
  return async ({
    request,
    server,
  }: {
    request: Request;
    server: ServerLike | null;
  }): Promise<Response | undefined> => {
    const path = pathOf(request.url);
    if (path !== APP_API_PREFIX && !path.startsWith(`${APP_API_PREFIX}/`)) return undefined;
    if (request.headers.has('authorization')) {
      return errorResponse(sessionRequired('API keys cannot use the dashboard endpoints: sign in to the dashboard'));
    }
    const token = readSessionToken(request, appHost);
    const session = token ? await verifySession(deps, token) : null;
    const write = isWrite(request.method);
    const route = `${request.method} ${path}`;
    if (DOORS.has(route)) {
      if (write && isMarkedCrossOrigin(request, appHost)) return errorResponse(csrfRejected());
    } else {
      if (!session) return errorResponse(sessionRequired());
      if (write && !isSameOrigin(request, appHost)) return errorResponse(csrfRejected());
    }
    // The body is checked after the origin, as /api/v1 does: another site's form post (a form
    // body) is refused as csrf_rejected, not as a content type.
    const problem = pathProblem(path) ?? bodyProblem(request);
    if (problem) return errorResponse(problem);
    const refused = throttled(deps, request, server, route, session);
    if (refused) return refused;
    // The authorisation matrix's action of the route; routes without one are every signed-in person's own.
    const action = session ? actionOf(request.method, path) : undefined;
    const notAllowed = action && session ? refusal(accessOf(sessionPrincipal(session), 'dashboard'), action) : null;
    if (notAllowed) return errorResponse(notAllowed);
    if (session) signedInByRequest.set(request, session);
    return undefined;
  };
}
