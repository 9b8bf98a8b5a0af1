/**
 * The edge of /api/app, the dashboard's own endpoints, run before routing: session only.
 * An Authorization header (an API key) is refused, as is a missing or ended session, except on
 * the three doors that open a session (setup status, setup, sign-in). A session-authenticated
 * write must be same-origin (CSRF); the doors refuse what a browser marks cross-origin.
 */
import type { Deps } from '../deps';
import { AppError } from '../lib/errors';
import { type SignedIn, verifySession } from '../modules/sessions/service';
import { bodyProblem, csrfRejected, pathProblem } from './auth';
import { pathOf } from './client';
import { errorResponse } from './errors';
import { isMarkedCrossOrigin, isSameOrigin, isWrite, readSessionToken } from './session';

export const APP_API_PREFIX = '/api/app';

/** Reachable without a session. */
const DOORS = new Set(['GET /api/app/setup', 'POST /api/app/setup', 'POST /api/app/session']);

const signedInByRequest = new WeakMap<Request, SignedIn>();

function sessionRequired(message = 'Sign in to the dashboard first'): AppError {
  return new AppError('session_required', message);
}

/** The live session of an /api/app request, if it has one (set by the guard). */
export function findSignedIn(request: Request): SignedIn | null {
  return signedInByRequest.get(request) ?? null;
}

/** The live session of an /api/app request; the guard lets none through without one, except the doors. */
export function signedIn(request: Request): SignedIn {
  const found = signedInByRequest.get(request);
  if (!found) throw sessionRequired();
  return found;
}

export function createAppGuard(deps: Deps) {
  const { appHost } = deps.config;
  return ({ request }: { request: Request }): Response | undefined => {
    const path = pathOf(request.url);
    if (path !== APP_API_PREFIX && !path.startsWith(`${APP_API_PREFIX}/`)) return undefined;
    if (request.headers.has('authorization')) {
      return errorResponse(sessionRequired('API keys cannot use the dashboard endpoints: sign in to the dashboard'));
    }
    const token = readSessionToken(request, appHost);
    const session = token ? verifySession(deps, token) : null;
    const write = isWrite(request.method);
    if (DOORS.has(`${request.method} ${path}`)) {
      if (write && isMarkedCrossOrigin(request, appHost)) return errorResponse(csrfRejected());
    } else {
      if (!session) return errorResponse(sessionRequired());
      if (write && !isSameOrigin(request, appHost)) return errorResponse(csrfRejected());
    }
    // The body is checked after the origin, as /api/v1 does: another site's form post (a form
    // body) is refused as csrf_rejected, not as a content type.
    const problem = pathProblem(path) ?? bodyProblem(request);
    if (problem) return errorResponse(problem);
    if (session) signedInByRequest.set(request, session);
    return undefined;
  };
}
