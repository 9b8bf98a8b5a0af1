/**
 * Every route the app mounts under /api/v1 and /api/app, as Elysia lists them, has an action of
 * the authorisation matrix in http/route-actions.ts (or is one of the dashboard's doors and own
 * session routes, listed here): a route added without one fails here, before a caller could
 * reach it unchecked. actionOf finds each route's action for a sample path, and the table names
 * no route the app does not mount.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { actionOf, ROUTE_ACTIONS } from '../../../src/http/route-actions';
import { ACTIONS } from '../../../src/modules/access/public';
import { api, makeKey, makeTestApp, type TestApp } from '../../helpers/app';

/**
 * Every signed-in person's own (or no one's yet): opening and ending a session, who one is, one's
 * password, and an invite's page (looking an invite address up, accepting it).
 */
const OWN_ROUTES = new Set([
  'GET /api/app/setup',
  'POST /api/app/setup',
  'POST /api/app/session',
  'GET /api/app/session',
  'DELETE /api/app/session',
  'POST /api/app/password',
  'POST /api/app/invite/status',
  'POST /api/app/invite',
]);

const GUARDED = /^\/api\/(v1|app)(\/|$)/;

/** A path of the route's shape: each parameter a word no literal segment is. */
const samplePath = (path: string) => path.replace(/:[A-Za-z]+/g, (name) => `x_${name.slice(1)}1`);

describe('route actions', () => {
  let t: TestApp;
  let mounted: [string, string][];
  beforeAll(async () => {
    t = await makeTestApp();
    mounted = t.app.routes
      .map((route) => [route.method, route.path] as [string, string])
      .filter(([, path]) => GUARDED.test(path));
  });
  afterAll(() => t.close());

  test('the app mounts the API and the dashboard endpoints', () => {
    expect(mounted.length).toBeGreaterThan(50);
    expect(mounted).toContainEqual(['GET', '/api/v1/links/:id']);
    expect(mounted).toContainEqual(['GET', '/api/app/keys']);
  });

  test('every mounted route has an action, or is one of the own-session routes', () => {
    const table = new Set(ROUTE_ACTIONS.map(([method, path]) => `${method} ${path}`));
    const missing = mounted
      .map(([method, path]) => `${method} ${path}`)
      .filter((route) => !table.has(route) && !OWN_ROUTES.has(route));
    expect(missing).toEqual([]);
  });

  test('actionOf finds the action of every route from a sample path (and HEAD that of GET)', () => {
    const wrong = ROUTE_ACTIONS.filter(([method, path, action]) => actionOf(method, samplePath(path)) !== action);
    expect(wrong).toEqual([]);
    for (const [method, path, action] of ROUTE_ACTIONS) {
      if (method === 'GET') expect({ path, action: actionOf('HEAD', samplePath(path)) }).toEqual({ path, action });
    }
  });

  test('the own-session routes have no action: the guard asks nothing of them', () => {
    for (const route of OWN_ROUTES) {
      const [method, path] = route.split(' ') as [string, string];
      expect({ route, action: actionOf(method, path) }).toEqual({ route, action: undefined });
    }
  });

  test('the table names only mounted routes, each once, each with an action of the matrix', () => {
    const all = new Set(mounted.map(([method, path]) => `${method} ${path}`));
    const routes = ROUTE_ACTIONS.map(([method, path]) => `${method} ${path}`);
    expect(routes.filter((route) => !all.has(route))).toEqual([]);
    expect(new Set(routes).size).toBe(routes.length);
    expect(ROUTE_ACTIONS.filter(([, , action]) => !ACTIONS.includes(action))).toEqual([]);
  });

  test('a literal segment wins over a parameter, and shapes no route has are undefined', () => {
    expect(actionOf('GET', '/api/v1/links/count')).toBe('link.read');
    expect(actionOf('POST', '/api/v1/links/bulk/delete')).toBe('link.delete');
    expect(actionOf('POST', '/api/v1/links/bulk')).toBeUndefined();
    expect(actionOf('GET', '/api/v1/links/abc/nothing')).toBeUndefined();
    expect(actionOf('PUT', '/api/v1/links/abc')).toBeUndefined();
    expect(actionOf('GET', '/api/v1/links/')).toBeUndefined();
  });

  test('redirects never reach the guards: the short site answers first, even a path shaped like the API', async () => {
    const { key } = await makeKey(t, 'write');
    const link = await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/short' } });
    const redirect = await t.app.handle(new Request(`https://sl.test/${link.body.slug}`));
    expect({ status: redirect.status, location: redirect.headers.get('location') }).toEqual({
      status: 302,
      location: 'https://example.com/short',
    });
    // The API guard stamps its rate-limit headers on whatever it sees, and refuses a keyless call as JSON.
    expect(redirect.headers.get('x-ratelimit-limit')).toBeNull();
    for (const path of ['/api/v1/me', '/api/app/keys']) {
      const res = await t.app.handle(new Request(`https://sl.test${path}`));
      expect({ path, status: res.status, type: res.headers.get('content-type') }).toEqual({
        path,
        status: 404,
        type: 'text/html; charset=utf-8',
      });
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
    expect((await api(t, 'GET', '/me')).headers.get('x-ratelimit-limit')).not.toBeNull();
  });
});
