/**
 * The API edge, run on every request under /api/v1 before routing (so unknown paths, bad
 * bodies and auth failures all carry rate-limit headers): body size and type checks, key
 * verification, the per-key (or per-address) rate limit, and the authorisation of the route's
 * action (http/route-actions.ts, access/authorize.ts): who may do it at all, before the body is
 * read. What depends on the target (a link's project or domain) the services ask of the same function.
 *
 * A request with no Authorization header but a live dashboard session cookie is the signed-in
 * account acting as a write key, rate-limited per account; its writes must be same-origin
 * (CSRF). A request with an Authorization header is always a key request, whatever cookies it has.
 */
import { Elysia } from 'elysia';
import { AppError } from '../lib/errors';
import { type Access, accessOf, refusal } from '../modules/access/public';
import { type Principal, verifyApiKey } from '../modules/auth/public';
import { type SessionsBase, sessionPrincipal, verifySession } from '../modules/sessions/public';
import { clientAddress, pathOf, type ServerLike } from './client';
import { errorResponse } from './errors';
import {
  hasBody,
  JSON_TYPE,
  MAX_BODY_BYTES,
  MAX_UPLOAD_BYTES,
  MAX_UPLOAD_FORM_BYTES,
  tooLarge,
  UPLOAD_PATHS,
} from './json-body';
import { countHit, type RateLimit } from './rate-limit';
import { actionOf } from './route-actions';
import { isSameOrigin, isWrite, readSessionToken } from './session';

/** What the API guard reads: keys (auth) and sessions, with the configuration's hosts and proxy setting. */
export type GuardDeps = SessionsBase;

export const API_PREFIX = '/api/v1';

interface Verified {
  principal: Principal;
  access: Access;
}

const principals = new WeakMap<Request, Verified>();

/** The verified caller of an /api/v1 request (set by the guard before any handler runs). */
function verifiedOf(request: Request): Verified {
  const verified = principals.get(request);
  if (!verified) throw new AppError('key_missing', 'Missing Authorization: Bearer <API key> header');
  return verified;
}

interface GuardContext {
  request: Request;
  set: { headers: Record<string, string | number> };
  server: ServerLike | null;
}

interface Caller {
  principal: Principal;
  viaSession: boolean;
}

/** No Authorization header: the dashboard's session cookie, if it carries one. */
async function authenticateSession(deps: GuardDeps, request: Request): Promise<Caller | AppError> {
  const token = readSessionToken(request, deps.config.appHost);
  if (!token) return new AppError('key_missing', 'Missing Authorization: Bearer <API key> header');
  const signedIn = await verifySession(deps, token);
  // The dashboard treats session_required as "signed out" and shows the sign-in page.
  if (!signedIn) return new AppError('session_required', 'The session has ended: sign in again');
  return { principal: sessionPrincipal(signedIn), viaSession: true };
}

/**
 * The API key of the Authorization header, verified: the principal, or the 401 to answer. Only
 * a key: what does not take a session (MCP) calls this one alone.
 */
export async function authenticateKey(deps: GuardDeps, request: Request): Promise<Principal | AppError> {
  const header = request.headers.get('authorization');
  if (!header) return new AppError('key_missing', 'Missing Authorization: Bearer <API key> header');
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) return new AppError('key_unknown', 'Authorization must be "Bearer <API key>"');
  try {
    return await verifyApiKey(deps, match[1]!);
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}

async function authenticate(deps: GuardDeps, request: Request): Promise<Caller | AppError> {
  if (!request.headers.get('authorization')) return authenticateSession(deps, request);
  const principal = await authenticateKey(deps, request);
  return principal instanceof AppError ? principal : { principal, viaSession: false };
}

/**
 * Whether the credential a request came with still holds, read as the guard reads it (the
 * database, so a key revoked or a session ended through any node counts at once), with the
 * project and domain limits it had (`access`): for the requests that outlive their first check,
 * the live stream, which a change of its caller's limits ends (its client reconnects with them).
 */
export async function stillAuthenticated(
  deps: GuardDeps,
  request: Request,
  principal: Principal,
  access: Access,
): Promise<boolean> {
  const auth = await authenticate(deps, request);
  if (auth instanceof AppError || auth.principal.key.id !== principal.key.id) return false;
  const now = accessOf(auth.principal, access.via);
  return sameIds(now.projects, access.projects) && sameIds(now.domains, access.domains);
}

function sameIds<T>(a: readonly T[] | null, b: readonly T[] | null): boolean {
  if (a === null || b === null) return a === b;
  return a.length === b.length && a.every((id) => b.includes(id));
}

export function bodyProblem(request: Request): AppError | null {
  if (request.method === 'GET' || request.method === 'HEAD' || request.method === 'DELETE') return null;
  const type = request.headers.get('content-type');
  // An import's file comes as a multipart form, up to its own limit (json-body.ts).
  if (request.method === 'POST' && type?.startsWith('multipart/form-data') && UPLOAD_PATHS.has(pathOf(request.url))) {
    const length = Number(request.headers.get('content-length') ?? '0');
    return length > MAX_UPLOAD_FORM_BYTES
      ? new AppError(
          'payload_too_large',
          `A file uploaded is at most ${MAX_UPLOAD_BYTES} bytes (64 MiB): import a larger one with slink import --file`,
        )
      : null;
  }
  if (Number(request.headers.get('content-length') ?? '0') > MAX_BODY_BYTES) return tooLarge();
  if (type && hasBody(request) && !JSON_TYPE.test(type.trim())) {
    return new AppError('unsupported_media_type', 'Request body must be JSON (Content-Type: application/json)');
  }
  return null;
}

/**
 * No API path ends in a slash. Bun resolves dot segments (`..`, `%2e%2e`, `.`) in the request
 * target before the app sees it, and a trailing one leaves a slash behind:
 * `DELETE /api/v1/links/abc/variants/..` arrives as `/api/v1/links/abc/`, which the router would
 * take for the link itself. Such a path names nothing: 404, before any route runs.
 */
export function pathProblem(path: string): AppError | null {
  if (!path.endsWith('/')) return null;
  return new AppError('not_found', `No route for ${path}: API paths have no trailing slash or dot segments`);
}

export function csrfRejected(): AppError {
  return new AppError(
    'csrf_rejected',
    'A signed-in change must come from the dashboard itself (Sec-Fetch-Site: same-origin or Origin: the app host)',
  );
}

/**
 * Set only by the access benchmark (test/bench/access.ts), to time the same request with and
 * without the route's authorisation in one run. Nothing else writes it: no setting reaches it.
 */
export const authorisationBench = { skip: false };

export function createApiGuard(deps: GuardDeps, limiter: RateLimit) {
  return async ({ request, set, server }: GuardContext): Promise<Response | undefined> => {
    const path = pathOf(request.url);
    if (!path.startsWith(API_PREFIX)) return undefined;
    const auth = await authenticate(deps, request);
    const identity =
      auth instanceof AppError
        ? `ip:${clientAddress(request, server, deps.config.trustProxy) ?? 'unknown'}`
        : auth.viaSession
          ? `account:${auth.principal.account.id}`
          : `key:${auth.principal.key.id}`;
    const { headers, refused: limited } = await countHit(limiter, identity);
    if (limited) return limited;
    if (auth instanceof AppError) return errorResponse(auth, headers);
    if (auth.viaSession && isWrite(request.method) && !isSameOrigin(request, deps.config.appHost)) {
      return errorResponse(csrfRejected(), headers);
    }
    const problem = pathProblem(path) ?? bodyProblem(request);
    if (problem) return errorResponse(problem, headers);
    const { principal } = auth;
    const access = accessOf(principal, auth.viaSession ? 'dashboard' : 'api');
    // No action: no route has this shape, and the router answers 404.
    const action = authorisationBench.skip ? undefined : actionOf(request.method, path);
    const refused = action === undefined ? null : refusal(access, action);
    if (refused) return errorResponse(refused, headers);
    principals.set(request, { principal, access });
    Object.assign(set.headers, headers);
    return undefined;
  };
}

/** Gives routes `principal` (the verified key and its account) and `access` (who is asking, for access/). */
export const principalPlugin = new Elysia({ name: 'slink.principal' }).derive({ as: 'scoped' }, ({ request }) => {
  const { principal, access } = verifiedOf(request);
  return { principal, access };
});
