/**
 * The short host: redirects at `/<slug>` and `/<slug>/<code>`, robots.txt, and when
 * SLINK_SHORT_HOST and SLINK_APP_HOST differ, routing by Host (docs/behaviour.md, "Hosts"): the short
 * host answers redirects, /healthz and /robots.txt, its root sends visitors to the app, and
 * everything else there is a 404 page; the app host gets everything else. A request with no usable
 * Host is the short host's.
 * The server calls it from Bun.serve's fetch, before Elysia builds a request context (server.ts);
 * an app made without `shortSiteAnswered` (tests, `app.handle()`) runs it as its first onRequest
 * hook, before routing and the API guard. Either way a redirect pays for nothing but itself.
 */

import { hostOf, pathOf, type ServerLike } from '../../http/client';
import { RESERVED_SLUGS } from '../links/public';
import type { RedirectDeps } from './deps';
import { pageResponse, ROBOTS_TXT } from './pages';
import { createRedirect } from './redirect';

// A slug, then optionally a code, then optionally a trailing slash. Anything else (dots,
// percent-encoding, deeper paths) is not a short link.
const REDIRECT_PATH = /^\/([A-Za-z0-9_-]{1,64})(?:\/([A-Za-z0-9_-]{1,64}))?\/?$/;

interface HookContext {
  request: Request;
  server: ServerLike | null;
}

export function createShortSite(deps: RedirectDeps) {
  const { shortHost, appHost } = deps.config;
  const split = shortHost !== appHost;
  const shortHostName = new URL(shortHost).host.toLowerCase();
  const redirect = createRedirect(deps);
  const { metrics } = deps;
  return ({ request, server }: HookContext): Response | Promise<Response> | undefined => {
    const url = request.url;
    // A request that names no usable host (HTTP/1.0 without Host, an empty one) is taken as sent
    // to the short host: a redirect never depends on the Host (docs/behaviour.md, "Hosts").
    if (split) {
      const host = hostOf(url);
      if (host !== shortHostName && host !== '') return undefined;
    }
    const path = pathOf(url);
    const match = REDIRECT_PATH.exec(path);
    if (match !== null && !RESERVED_SLUGS.has(match[1]!.toLowerCase())) {
      const method = request.method;
      // POST only where it means something: a protected link's password form (password/gate.ts).
      if (method !== 'GET' && method !== 'HEAD' && !(method === 'POST' && redirect.takesPost(match[1]!)))
        return pageResponse('methodNotAllowed');
      const answer = redirect(request, server, match[1]!, match[2] ?? null);
      if (metrics !== null) {
        if (answer instanceof Response) metrics.redirect(answer.status);
        else void answer.then((res) => metrics.redirect(res.status));
      }
      return answer;
    }
    if (path === '/robots.txt')
      return new Response(ROBOTS_TXT, { headers: { 'content-type': 'text/plain; charset=utf-8' } });
    if (!split || path === '/healthz') return undefined;
    if (path === '/')
      return new Response(null, {
        status: 302,
        headers: { location: `${appHost}/`, 'cache-control': 'private, max-age=0' },
      });
    return pageResponse('notFound');
  };
}

/** POST /links/{id}/rules/test, mounted by app.ts with the API's routes. */
export { rulesRoutes } from './rules/routes';
