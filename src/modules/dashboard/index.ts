/**
 * The dashboard on the app host: its built assets under /app/assets/<name>-<hash>.<ext>,
 * cached for a year (a new build has new names), and the HTML shell for every other /app path,
 * never cached. The assets are embedded (assets.gen.ts, made by scripts/build-dashboard.ts).
 */
import { Elysia } from 'elysia';
import { AppError } from '../../lib/errors';
import { ASSET_NAMES, ASSETS, ENTRY } from './assets.gen';
import { renderShell, SHELL_HEADERS } from './shell';

const CONTENT_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml; charset=utf-8',
};

const ASSET_HEADERS = {
  'cache-control': 'public, max-age=31536000, immutable',
  'x-content-type-options': 'nosniff',
};

function assetResponse(name: string): Response {
  // Own-property lookup only: "constructor" or "__proto__" must not find anything.
  const text = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  const type = CONTENT_TYPES[name.slice(name.lastIndexOf('.') + 1)];
  if (text === undefined || type === undefined) throw new AppError('not_found', `No dashboard asset ${name}`);
  return new Response(text, { headers: { ...ASSET_HEADERS, 'content-type': type } });
}

export function dashboardRoutes() {
  const shell = renderShell({ ...ENTRY, names: ASSET_NAMES });
  const page = () => new Response(shell, { headers: SHELL_HEADERS });
  return new Elysia({ name: 'slink.dashboard' })
    .get('/app/assets/:name', ({ params }) => assetResponse(params.name), { detail: { hide: true } })
    .get('/app', page, { detail: { hide: true } })
    .get('/app/*', page, { detail: { hide: true } });
}
