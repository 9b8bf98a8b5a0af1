/**
 * Every route of the API and of the dashboard's endpoints, with the action of the authorisation
 * matrix it performs (access/matrix.ts). The guards look a request up here before routing, so a
 * refused caller is told so before its body is read; test/modules/access/route-actions.test.ts
 * fails when a mounted route is missing. Parts that depend on the target (a link's project and
 * domain, a custom slug) are asked again by the services, of the same function.
 *
 * Lookup walks a tree of the routes' segments, a literal word before a parameter as the router
 * does: one split and a map lookup per segment, whatever the number of routes.
 */
import type { Action } from '../modules/access/public';

const ROUTES: readonly (readonly [string, string, Action])[] = [
  ['GET', '/api/v1/me', 'me.read'],
  ['GET', '/api/v1/workspace', 'workspace.read'],
  ['GET', '/api/v1/workspace/stats', 'workspace.read'],
  ['GET', '/api/v1/privacy', 'workspace.read'],
  ['POST', '/api/v1/links/bulk/preview', 'link.create'],
  ['POST', '/api/v1/links/bulk/create', 'link.create'],
  ['POST', '/api/v1/links/bulk/params', 'link.update'],
  ['POST', '/api/v1/links/bulk/project', 'link.update'],
  ['POST', '/api/v1/links/bulk/tags', 'link.update'],
  ['POST', '/api/v1/links/bulk/status', 'link.update'],
  ['POST', '/api/v1/links/bulk/delete', 'link.delete'],
  ['GET', '/api/v1/links', 'link.read'],
  ['GET', '/api/v1/links/count', 'link.read'],
  ['POST', '/api/v1/links', 'link.create'],
  ['GET', '/api/v1/links/tags', 'link.read'],
  ['GET', '/api/v1/links/:id', 'link.read'],
  ['PATCH', '/api/v1/links/:id', 'link.update'],
  ['DELETE', '/api/v1/links/:id', 'link.delete'],
  ['GET', '/api/v1/links/:id/variants', 'link.read'],
  ['POST', '/api/v1/links/:id/variants', 'link.update'],
  ['PATCH', '/api/v1/links/:id/variants/:variantId', 'link.update'],
  ['DELETE', '/api/v1/links/:id/variants/:variantId', 'link.update'],
  ['POST', '/api/v1/links/:id/rules/test', 'link.read'],
  ['GET', '/api/v1/links/:id/stats', 'link.read'],
  ['GET', '/api/v1/links/:id/clicks', 'link.read'],
  ['GET', '/api/v1/links/:id/export.csv', 'link.read'],
  ['GET', '/api/v1/links/:id/qr.svg', 'link.read'],
  ['GET', '/api/v1/projects', 'project.read'],
  ['POST', '/api/v1/projects', 'project.create'],
  ['PATCH', '/api/v1/projects/:id', 'project.update'],
  ['DELETE', '/api/v1/projects/:id', 'project.delete'],
  ['GET', '/api/v1/domains', 'domain.read'],
  ['POST', '/api/v1/domains', 'domain.write'],
  ['GET', '/api/v1/domains/:host', 'domain.read'],
  ['PATCH', '/api/v1/domains/:host', 'domain.write'],
  ['DELETE', '/api/v1/domains/:host', 'domain.write'],
  ['GET', '/api/v1/webhooks', 'webhook.read'],
  ['POST', '/api/v1/webhooks', 'webhook.write'],
  ['GET', '/api/v1/webhooks/:id', 'webhook.read'],
  ['PATCH', '/api/v1/webhooks/:id', 'webhook.write'],
  ['GET', '/api/v1/webhooks/:id/deliveries', 'webhook.read'],
  ['POST', '/api/v1/webhooks/:id/deliveries/:deliveryId/retry', 'webhook.write'],
  ['POST', '/api/v1/webhooks/:id/test', 'webhook.write'],
  ['POST', '/api/v1/webhooks/:id/rotate-secret', 'webhook.write'],
  ['DELETE', '/api/v1/webhooks/:id', 'webhook.write'],
  ['GET', '/api/v1/events', 'events.read'],
  ['GET', '/api/v1/invites', 'invite.read'],
  ['POST', '/api/v1/invites', 'invite.write'],
  ['DELETE', '/api/v1/invites/:id', 'invite.write'],
  ['GET', '/api/v1/accounts', 'account.read'],
  ['POST', '/api/v1/accounts', 'account.write'],
  ['PATCH', '/api/v1/accounts/:id', 'account.write'],
  ['GET', '/api/v1/audit', 'audit.read'],
  ['GET', '/api/v1/export', 'export.read'],
  ['POST', '/api/v1/imports', 'import.write'],
  ['GET', '/api/v1/imports', 'import.read'],
  ['GET', '/api/v1/imports/:id', 'import.read'],
  ['DELETE', '/api/v1/imports/:id', 'import.write'],
  ['GET', '/api/v1/imports/:id/report.csv', 'import.read'],
  // The dashboard's endpoints (session only; /api/app's guard).
  ['GET', '/api/app/sessions', 'key.own'],
  ['DELETE', '/api/app/sessions', 'key.own'],
  ['DELETE', '/api/app/sessions/:id', 'key.own'],
  ['GET', '/api/app/keys', 'key.own'],
  ['GET', '/api/app/keys/all', 'key.any'],
  ['POST', '/api/app/keys', 'key.own'],
  ['DELETE', '/api/app/keys/:id', 'key.own'],
  ['DELETE', '/api/app/links/:id', 'link.delete'],
  ['GET', '/api/app/accounts', 'account.read'],
  ['POST', '/api/app/accounts', 'account.write'],
  ['PATCH', '/api/app/accounts/:id', 'account.write'],
  ['GET', '/api/app/audit', 'audit.read'],
  ['POST', '/api/app/imports', 'import.write'],
  ['GET', '/api/app/imports', 'import.read'],
  ['GET', '/api/app/imports/:id', 'import.read'],
  ['DELETE', '/api/app/imports/:id', 'import.write'],
  ['GET', '/api/app/imports/:id/report.csv', 'import.read'],
];

/** Routes every signed-in caller may reach whatever its powers: who one is, one's own session and password. */

interface Node {
  literal: Map<string, Node>;
  param: Node | null;
  actions: Map<string, Action>;
}

const node = (): Node => ({ literal: new Map(), param: null, actions: new Map() });
const ROOT = node();
for (const [method, path, action] of ROUTES) {
  let at = ROOT;
  for (const s of path.split('/')) {
    if (s.startsWith(':')) at = at.param ??= node();
    else at = at.literal.get(s) ?? (at.literal.set(s, node()).get(s) as Node);
  }
  at.actions.set(method, action);
  if (method === 'GET') at.actions.set('HEAD', action);
}

/** Literal words first, then a parameter, as the router matches (`/links/count` before `/links/:id`). */
function walk(at: Node, segments: string[], i: number, method: string): Action | undefined {
  if (i === segments.length) return at.actions.get(method);
  const s = segments[i]!;
  const literal = at.literal.get(s);
  const found = literal ? walk(literal, segments, i + 1, method) : undefined;
  if (found !== undefined || !at.param || s === '') return found;
  return walk(at.param, segments, i + 1, method);
}

/** The action a request performs, or undefined when no route has its shape (the router answers 404). */
export function actionOf(method: string, path: string): Action | undefined {
  return walk(ROOT, path.split('/'), 0, method);
}

/** Every route with its action: for the route test and the published matrix. */
export const ROUTE_ACTIONS = ROUTES;
