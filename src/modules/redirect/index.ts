/**
 * The short domains: redirects at `/<slug>` and `/<slug>/<code>`, robots.txt, each domain's root,
 * not-found and expired targets and its .well-known files, and routing by Host
 * (docs/behaviour.md, "Short domains" and "Hosts"). The Host (port ignored) names a domain,
 * whose links alone answer there. When SLINK_SHORT_HOST and SLINK_APP_HOST are the same, the
 * default domain's host also serves the app; when they differ, the app host serves the app and
 * every domain's host serves short links, /healthz, /robots.txt, /.well-known files and its root
 * (everything else there is a 404 page). A request with no usable Host is the default domain's;
 * one to a host that is neither a domain nor the app host has its short links answered as the
 * default domain's, everything else by the app (an address used by a proxy's checks, a scraper).
 * The server calls it from Bun.serve's fetch, before Elysia builds a request context (server.ts);
 * an app made without `shortSiteAnswered` (tests, `app.handle()`) runs it as its first onRequest
 * hook, before routing and the API guard. Either way a redirect pays for nothing but itself: the
 * Host is found once and matched in place (hostBoundsOf, DomainDirectory.ofHost), with no string made.
 */

import { hostBoundsOf, pathOf, type ServerLike } from '../../http/client';
import { RESERVED_SLUGS } from '../links/public';
import type { RedirectDeps } from './deps';
import { pageResponse, ROBOTS_TXT } from './pages';
import { createRedirect } from './redirect';
import { isLateReserved } from './reserved';

// A slug, then optionally a code, then optionally a trailing slash. Anything else (dots,
// percent-encoding, deeper paths) is not a short link.
const REDIRECT_PATH = /^\/([A-Za-z0-9_-]{1,64})(?:\/([A-Za-z0-9_-]{1,64}))?\/?$/;

const APPLE_APP_SITE_ASSOCIATION = '/.well-known/apple-app-site-association';
const ASSET_LINKS = '/.well-known/assetlinks.json';
const GPC_JSON = '/.well-known/gpc.json';

/**
 * The Global Privacy Control support resource (https://privacycg.github.io/gpc-spec/): served
 * while SLINK_HONOR_GPC is 1. `lastUpdate` is the UTC day this process started honouring it: the
 * switch is read once at start, so it has held at least since then.
 */
function gpcJson(since: number): string {
  return JSON.stringify({ gpc: true, lastUpdate: new Date(since).toISOString().slice(0, 10) });
}

interface HookContext {
  request: Request;
  server: ServerLike | null;
}

export function createShortSite(deps: RedirectDeps) {
  const { shortHost, appHost } = deps.config;
  const split = shortHost !== appHost;
  const app = new URL(appHost);
  // The app host's name (lowercase, punycode) and its host with the port, as request URLs have them.
  const appName = app.hostname;
  const appAuthority = app.host;
  const redirect = createRedirect(deps);
  const { metrics, domains, clock } = deps;
  const gpc = deps.config.privacy.honorGpc ? gpcJson(clock.now()) : null;
  // One buffer for the host's bounds, reused by every request (the handler never yields before reading it).
  const bounds = new Int32Array(3);
  /** Whether the host in `bounds` is the app host's. */
  const isApp = (url: string): boolean => {
    const start = bounds[0]!;
    const nameEnd = bounds[1]!;
    const end = bounds[2]!;
    // With the port first: a short domain may share the app host's name on another port.
    if (end - start === appAuthority.length && url.startsWith(appAuthority, start)) return true;
    return (
      nameEnd - start === appName.length && url.startsWith(appName, start) && domains.byHost(appName) === undefined
    );
  };
  return ({ request, server }: HookContext): Response | Promise<Response> | undefined => {
    const url = request.url;
    hostBoundsOf(url, bounds);
    if (split && isApp(url)) return undefined;
    let domain = domains.ofHost(url, bounds[0]!, bounds[1]!);
    // Whether the app answers what the short site does not.
    let appToo: boolean;
    if (domain !== undefined) {
      domains.noteSeen(domain.id, clock.now());
      appToo = !split && domain.isDefault;
    } else {
      domain = domains.default;
      // Split: no usable Host is the default domain's, a stray host's non-links are the app's.
      appToo = !split || bounds[2]! > bounds[0]!;
    }
    const path = pathOf(url);
    const match = REDIRECT_PATH.exec(path);
    // A reserved word is the app's, but where a link already had it as its slug before it was
    // reserved (reserved.ts): that link keeps answering on a host that does not serve the app.
    if (match !== null && (!RESERVED_SLUGS.has(match[1]!.toLowerCase()) || (!appToo && isLateReserved(match[1]!)))) {
      const method = request.method;
      // POST only where it means something: a protected link's password form (password/gate.ts).
      if (method !== 'GET' && method !== 'HEAD' && !(method === 'POST' && redirect.takesPost(domain.id, match[1]!)))
        return pageResponse('methodNotAllowed');
      const answer = redirect(request, server, match[1]!, match[2] ?? null, domain);
      if (metrics !== null) {
        if (answer instanceof Response) metrics.redirect(answer.status);
        else void answer.then((res) => metrics.redirect(res.status));
      }
      return answer;
    }
    if (path === '/robots.txt')
      return new Response(ROBOTS_TXT, { headers: { 'content-type': 'text/plain; charset=utf-8' } });
    if (path === APPLE_APP_SITE_ASSOCIATION || path === ASSET_LINKS) {
      const json = path === ASSET_LINKS ? domain.assetLinks : domain.appleAppSiteAssociation;
      // The stored JSON as given, never a redirect: the apps' verifiers follow none.
      if (json === null) return pageResponse('notFound');
      return new Response(json, {
        headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=3600' },
      });
    }
    if (path === GPC_JSON) {
      if (gpc === null) return pageResponse('notFound');
      return new Response(gpc, {
        headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=86400' },
      });
    }
    if (path === '/' && domain.rootUrl !== null)
      return new Response(null, {
        status: 302,
        headers: { location: domain.rootUrl, 'cache-control': 'private, max-age=0' },
      });
    if (appToo || path === '/healthz') return undefined;
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
