/**
 * OpenAPI 3.1 at /api/openapi.json, generated from the route schemas, and the Swagger UI page
 * at /api/docs. The UI's assets are embedded and served from here, so the page renders with no
 * internet access (the plugin would otherwise load them from a CDN); the page itself comes from
 * docs-page.ts, which knows its inline code and so can give it a strict CSP.
 */
import { openapi } from '@elysiajs/openapi';
import { Elysia } from 'elysia';
import swaggerCss from 'swagger-ui-dist/swagger-ui.css' with { type: 'text' };
import swaggerJs from 'swagger-ui-dist/swagger-ui-bundle.js' with { type: 'text' };
import pkg from '../../package.json' with { type: 'json' };
import { renderDocsPage } from './docs-page';
import { sessionCookieName } from './session';

const ASSETS = '/api/docs/assets';
const cacheable = { 'cache-control': 'public, max-age=86400' };
const SPEC_PATH = '/api/openapi.json';
const DESCRIPTION =
  'Short links with per-click analytics. Every request carries `Authorization: Bearer <API key>`; ' +
  'GET needs a read or write key, POST/PATCH/DELETE a write key. Errors are `{error:{code,message,field}}`. ' +
  'Every response carries X-RateLimit-Limit and X-RateLimit-Remaining; 429 carries Retry-After (seconds). ' +
  "The dashboard's own endpoints (/api/app, tag App) take its session cookie instead of a key.";

export function docsPlugin(appHost: string) {
  const page = renderDocsPage({
    title: 'Slink API',
    description: DESCRIPTION,
    specUrl: SPEC_PATH,
    scriptUrl: `${ASSETS}/swagger-ui-bundle.js`,
    styleUrl: `${ASSETS}/swagger-ui.css`,
  });
  return new Elysia({ name: 'slink.docs' })
    .get('/api/docs', () => new Response(page.html, { headers: page.headers }), { detail: { hide: true } })
    .get(
      `${ASSETS}/swagger-ui-bundle.js`,
      () => new Response(swaggerJs, { headers: { ...cacheable, 'content-type': 'text/javascript; charset=utf-8' } }),
      {
        detail: { hide: true },
      },
    )
    .get(
      `${ASSETS}/swagger-ui.css`,
      () => new Response(swaggerCss, { headers: { ...cacheable, 'content-type': 'text/css; charset=utf-8' } }),
      {
        detail: { hide: true },
      },
    )
    .use(
      openapi({
        specPath: SPEC_PATH,
        // The page is served above; the plugin only generates the document.
        provider: null,
        exclude: {
          staticFile: false,
          paths: ['/healthz', `${ASSETS}/swagger-ui-bundle.js`, `${ASSETS}/swagger-ui.css`],
        },
        documentation: {
          openapi: '3.1.0',
          info: {
            title: 'Slink API',
            version: pkg.version,
            description: DESCRIPTION,
          },
          servers: [{ url: appHost }],
          components: {
            securitySchemes: {
              bearer: { type: 'http', scheme: 'bearer', description: 'An API key made with `slink key create`.' },
              session: {
                type: 'apiKey',
                in: 'cookie',
                name: sessionCookieName(appHost),
                description:
                  'The dashboard session, set by sign-in. Writes must be same-origin (Sec-Fetch-Site: same-origin or Origin: the app host), else 403 csrf_rejected.',
              },
            },
          },
          security: [{ bearer: [] }],
          tags: [
            { name: 'Identity', description: 'The calling key and the workspace' },
            { name: 'Links', description: 'Short links' },
            { name: 'Variants', description: 'Second addresses of a link: {short_host}/<slug>/<code>' },
            { name: 'Projects', description: 'Folders for links' },
            { name: 'Domains', description: 'The short domains links live on (writes: superusers)' },
            { name: 'Accounts', description: 'The people who sign in, their roles and project limits (admins)' },
            { name: 'Invites', description: 'One-time addresses where an invited person chooses a password (admins)' },
            { name: 'Bulk', description: 'Many links at once: from text, params, project' },
            { name: 'Analytics', description: 'Statistics, raw clicks and the CSV export' },
            { name: 'Audit', description: 'Who changed what, through what, when (admins; kept 365 days)' },
            { name: 'Imports', description: 'Links and their history from another service or a Slink export (admins)' },
            { name: 'Export', description: 'The whole workspace as NDJSON (admins)' },
            {
              name: 'App',
              description:
                "The dashboard's own endpoints (/api/app): session cookie only; an API key is 403 session_required.",
            },
          ],
        },
      }),
    );
}
