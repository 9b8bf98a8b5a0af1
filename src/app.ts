/**
 * createApp(deps): the whole HTTP surface in one Elysia instance — the short host (redirects,
 * host split) first unless the server answers it before the app (`shortSiteAnswered`), then the
 * error mapper, the API guard (auth, scope, rate limit), OpenAPI and its docs page, the
 * dashboard, /healthz and the module routes.
 */
import { Elysia } from 'elysia';
import type { Deps } from './compose/deps';
import { STORAGE_RETRY_AFTER_S, storageFailure } from './db/storage';
import { APP_API_PREFIX, createAppGuard } from './http/app-guard';
import { API_PREFIX, createApiGuard } from './http/auth';
import { pathOf } from './http/client';
import { docsPlugin } from './http/docs';
import { errorBody, STATUS_BY_CODE, validationToAppError } from './http/errors';
import { hasBody, JSON_TYPE, readJsonBody } from './http/json-body';
import { strictQueryIntegers } from './http/models';
import { AppError, describeError, RateLimitedError, VerificationUnavailableError } from './lib/errors';
import { analyticsRoutes } from './modules/analytics';
import { appAuditRoutes, auditRoutes } from './modules/audit';
import { accountsRoutes, appAccountsRoutes, appKeysRoutes, meRoutes } from './modules/auth';
import { bulkRoutes } from './modules/bulk';
import { dashboardRoutes } from './modules/dashboard';
import { domainsRoutes, tlsAskRoutes } from './modules/domains';
import { exportRoutes } from './modules/export';
import { appImportsRoutes, importsRoutes } from './modules/imports';
import { appInviteRoutes, invitesRoutes } from './modules/invites';
import { appLinksRoutes, linksRoutes } from './modules/links';
import { createMcpEdge, MCP_PATH } from './modules/mcp';
import { metricsRoutes } from './modules/metrics';
import { projectsRoutes } from './modules/projects';
import { qrRoutes } from './modules/qr';
import { createShortSite, rulesRoutes } from './modules/redirect';
import { sessionRoutes } from './modules/sessions';
import { variantsRoutes } from './modules/variants';
import { liveRoutes, webhooksRoutes } from './modules/webhooks';
import { workspaceRoutes } from './modules/workspace';

/** /healthz: whether the database answers and clicks are being written (contract, "Paths"). */
async function healthOf(deps: Deps): Promise<{ status: 'ok' | 'degraded' | 'unavailable'; reason?: string }> {
  const ping = await deps.stores.ping();
  if (ping === 'gone') return { status: 'unavailable' };
  // A database server out of reach: redirects answer, clicks wait in the buffer.
  if (ping !== 'ok') return { status: 'degraded', reason: ping.unreachable };
  // Redirects still answer (their clicks wait in the buffer); writes do not get through.
  const failure = deps.clicks.flusher.writeFailure;
  if (failure !== null) {
    return {
      status: 'degraded',
      reason: `click writes failing: ${storageFailure(failure) ?? 'database locked or unavailable'}`,
    };
  }
  const refused = await deps.stores.probeWrite();
  return refused === null ? { status: 'ok' } : { status: 'degraded', reason: `database refuses writes: ${refused}` };
}

function toAppError(code: string | number, error: unknown, request: Request, deps: Deps): AppError {
  if (error instanceof AppError) return error;
  switch (code) {
    case 'VALIDATION':
      return validationToAppError(error as Parameters<typeof validationToAppError>[0]);
    case 'PARSE':
      // The body reader's own refusals (size, nesting) arrive wrapped as the cause.
      if ((error as Error).cause instanceof AppError) return (error as Error).cause as AppError;
      return new AppError('invalid_request', 'Request body is not valid JSON', 'body');
    case 'NOT_FOUND':
      return new AppError('not_found', `No route for ${request.method} ${pathOf(request.url)}`);
    case 'INVALID_FILE_TYPE':
    case 'INVALID_COOKIE_SIGNATURE':
      return new AppError('invalid_request', 'Malformed request');
    default: {
      // One line each, never a stack trace: a client can repeat a request as often as it likes.
      const path = pathOf(request.url);
      // A full disk, a read-only database: 503 with Retry-After, logged like any failure.
      const storage = storageFailure(error);
      if (storage !== null) {
        deps.log.error(`storage unavailable on ${request.method} ${path}: ${storage}`);
        return new AppError('storage_unavailable', 'The database cannot be written right now; try again later');
      }
      // Never leak internals: log the cause, answer a generic 500.
      deps.log.error(`unhandled error on ${request.method} ${path}: ${describeError(error)}`);
      return new AppError('internal_error', 'Something went wrong on our side');
    }
  }
}

interface AppOptions {
  /**
   * The server answers short links itself before handing a request to the app (server.ts), so
   * the app need not check again. Without it (tests, `app.handle()`), the app's first hook does.
   */
  shortSiteAnswered?: boolean;
}

export function createApp(deps: Deps, options: AppOptions = {}) {
  // In memory (one process), or counted in the database every node shares: the stores' choice.
  const limiter = deps.stores.openRateLimiter(deps.config.rateLimit, deps.clock, deps.log);
  const shortSite = options.shortSiteAnswered ? null : createShortSite(deps);
  const apiGuard = createApiGuard(deps, limiter);
  const appGuard = createAppGuard(deps);
  // MCP clients: bearer keys only, the API's rate limit (the same limiter).
  const mcpEdge = createMcpEdge(deps, limiter);
  const { metrics } = deps;
  // normalize 'typebox' (Value.Clean) instead of the default exact-mirror, which rebuilds a record
  // field from whatever it is given before validating: params "a=b" became {"0":"a","1":"=","2":"b"}.
  return (
    new Elysia({ name: 'slink', normalize: 'typebox' })
      .onError(({ code, error, request, set }) => {
        const err = toAppError(code, error, request, deps);
        set.status = STATUS_BY_CODE[err.code];
        set.headers['content-type'] = 'application/json';
        if (err instanceof RateLimitedError || err instanceof VerificationUnavailableError)
          set.headers['retry-after'] = String(err.retryAfter);
        if (err.code === 'storage_unavailable') set.headers['retry-after'] = String(STORAGE_RETRY_AFTER_S);
        return errorBody(err.code, err.message, err.field);
      })
      // One hook, redirects first: a short link never pays for the API guards.
      .onRequest(async (ctx) => {
        const short = shortSite?.(ctx);
        if (short !== undefined) return short;
        const mcp = mcpEdge(ctx);
        if (mcp !== undefined) {
          if (metrics === null) return mcp;
          const response = await mcp;
          metrics.request(MCP_PATH, ctx.request.method, response.status);
          return response;
        }
        const refused = (await apiGuard(ctx)) ?? (await appGuard(ctx));
        // A guard's answer skips routing (and onAfterResponse): counted here, by prefix.
        if (refused !== undefined && metrics !== null) {
          const path = pathOf(ctx.request.url);
          metrics.request(
            path.startsWith(APP_API_PREFIX) ? `${APP_API_PREFIX}/*` : `${API_PREFIX}/*`,
            ctx.request.method,
            refused.status,
          );
        }
        return refused;
      })
      .onAfterResponse({ as: 'global' }, ({ route, request, set, responseValue }) => {
        if (metrics === null) return;
        const status = responseValue instanceof Response ? responseValue.status : Number(set.status) || 200;
        metrics.request(route || 'unmatched', request.method, status);
      })
      // The API's JSON bodies: size, nesting and UTF-8 checked before anything parses or validates
      // them. A body sent without a Content-Type is read as JSON by the routes (`parse: 'json'`):
      // through the same reader, or it would skip every check.
      .onParse(({ request, contentType }) => {
        const type = contentType.trim();
        if (type === '' ? !hasBody(request) : !JSON_TYPE.test(type)) return;
        const path = pathOf(request.url);
        if (path.startsWith(API_PREFIX) || path.startsWith(APP_API_PREFIX)) return readJsonBody(request);
      })
      // Query integers are digits only (http/models.ts). Every JSON body of the API is an object. Elysia skips validation of a non-object body when
      // all of a schema's fields are optional (PATCH), so reject arrays, strings and numbers here.
      .onTransform(({ body, query, request }) => {
        const path = pathOf(request.url);
        if (!(path.startsWith(API_PREFIX) || path.startsWith(APP_API_PREFIX))) return;
        strictQueryIntegers(query);
        if (body === undefined) return;
        if (typeof body !== 'object' || body === null || Array.isArray(body)) {
          throw new AppError('invalid_request', 'Request body must be a JSON object', 'body');
        }
      })
      .use(docsPlugin(deps.config.appHost))
      .use(dashboardRoutes())
      .use(metricsRoutes(deps))
      // The app's front door is the dashboard (CONTRACT "Paths": /app).
      .get('/', ({ redirect }) => redirect('/app', 302), { detail: { hide: true } })
      .get(
        '/healthz',
        async ({ set }) => {
          const health = await healthOf(deps);
          if (health.status !== 'ok') set.status = 503;
          // Which node answered: behind a balancer, the one whose state this is.
          return { ...health, node: deps.config.nodeId };
        },
        { detail: { hide: true } },
      )
      // Caddy asks before issuing a certificate: no key, no rate limit, from memory.
      .use(tlsAskRoutes(deps))
      .group(API_PREFIX, (api) =>
        api
          .use(meRoutes(deps))
          .use(workspaceRoutes(deps))
          .use(bulkRoutes(deps))
          .use(linksRoutes(deps))
          .use(variantsRoutes(deps))
          .use(rulesRoutes(deps))
          .use(projectsRoutes(deps))
          .use(domainsRoutes(deps))
          .use(webhooksRoutes(deps))
          .use(invitesRoutes(deps))
          .use(accountsRoutes(deps))
          .use(liveRoutes(deps))
          .use(analyticsRoutes(deps))
          .use(qrRoutes(deps))
          .use(auditRoutes(deps))
          .use(exportRoutes(deps))
          .use(importsRoutes(deps)),
      )
      // The dashboard's own endpoints: session only (the app guard), never an API key.
      .group(APP_API_PREFIX, (app) =>
        app
          .use(sessionRoutes(deps))
          .use(appInviteRoutes(deps))
          .use(appKeysRoutes(deps))
          .use(appLinksRoutes(deps))
          .use(appAccountsRoutes(deps))
          .use(appAuditRoutes(deps))
          .use(appImportsRoutes(deps)),
      )
  );
}

export type App = ReturnType<typeof createApp>;
