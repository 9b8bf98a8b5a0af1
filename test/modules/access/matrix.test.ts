/**
 * One real request per cell of the published matrix (scripts/matrix-doc.ts, generated from
 * access/matrix.ts and http/route-actions.ts), through the app on both engines: for every action,
 * every kind of caller sends one request to one of the action's routes (an existing target an
 * admin made, a valid body) and gets what the matrix says: 2xx when allowed, else exactly the
 * refusal's status and code, and a refused change leaves everything as it was.
 *
 * One app per engine, the callers and targets made once, the requests in sequence.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { CALLER_KINDS, expectedCell } from '../../../scripts/matrix-doc';
import { ROUTE_ACTIONS } from '../../../src/http/route-actions';
import { ACTIONS, type Action } from '../../../src/modules/access/public';
import { createApiKey } from '../../../src/modules/auth/keys';
import { disposeTestApp, makeAccount, makeTestApp, type TestApp } from '../../helpers/app';
import { databaseEnv, forEachEngine } from '../../helpers/engines';
import { expectError } from '../../helpers/schema';
import {
  ACCESS_ENV,
  type Caller,
  callerOf,
  Fixtures,
  makeCallers,
  SAMPLES,
  type Sample,
  send,
  stateOf,
} from './support';

/** The route each action is tried on where the first of its routes would not do. */
const PREFERRED: Partial<Record<Action, string>> = {
  'link.read': 'GET /api/v1/links/:id',
  'link.update': 'PATCH /api/v1/links/:id',
  'link.delete': 'DELETE /api/v1/links/:id',
  'workspace.read': 'GET /api/v1/workspace/stats',
  'webhook.write': 'PATCH /api/v1/webhooks/:id',
};

/** The route an action is tried on: a route of the API where it has one (keys reach only those). */
function routeOf(action: Action): string | null {
  const routes = ROUTE_ACTIONS.filter(([, , a]) => a === action).map(([method, path]) => `${method} ${path}`);
  if (action === 'link.slug') return 'POST /api/v1/links';
  if (action === 'key.any') return 'DELETE /api/app/keys/:id';
  return PREFERRED[action] ?? routes.find((r) => r.includes(' /api/v1/')) ?? routes[0] ?? null;
}

/** A revoke of a fresh key of a fresh account: no caller's own. */
async function othersKey(fx: Fixtures): Promise<Sample> {
  const other = await createApiKey(fx.t.deps, { accountId: await fx.account(), scope: 'read', name: 'theirs' });
  return { path: `/api/app/keys/${other.row.id}` };
}

const WRITES = new Set(['POST', 'PATCH', 'DELETE']);
/** Routes that only read, though sent as POST. */
const POST_READS = new Set(['POST /api/v1/links/:id/rules/test', 'POST /api/v1/links/bulk/preview']);

forEachEngine((engine) => {
  describe('the authorisation matrix, a request per cell', () => {
    let t: TestApp;
    let fx: Fixtures;
    let callers: Map<string, Caller>;
    beforeAll(async () => {
      t = await makeTestApp({ ...(await databaseEnv(engine)), ...ACCESS_ENV });
      const admin = await makeAccount(t, { role: 'admin' });
      const adminKey = await callerOf(t, { ...CALLER_KINDS[1]!, id: 'fixtures' }, admin);
      const adminSession = await callerOf(t, { ...CALLER_KINDS[0]!, id: 'fixtures-session' }, admin);
      fx = new Fixtures(t, adminKey, adminSession);
      await fx.init();
      callers = await makeCallers(t, fx.projectId);
    });
    afterAll(() => disposeTestApp(t));

    test('every route has a sample request', () => {
      const missing = ROUTE_ACTIONS.map(([method, path]) => `${method} ${path}`).filter((r) => !SAMPLES[r]);
      expect(missing).toEqual([]);
    });

    for (const action of ACTIONS) {
      const route = routeOf(action);
      if (route === null) {
        test.todo(`${action}: no route performs it yet`);
        continue;
      }
      const method = route.split(' ')[0]!;
      for (const kind of CALLER_KINDS) {
        const cell = expectedCell(kind, action);
        test(`${action} × ${kind.label}: ${cell.allowed ? 'allowed' : cell.code} (${route})`, async () => {
          const caller = callers.get(kind.id)!;
          // key.any: another account's key, where the route's sample revokes one of the caller's own.
          const sample = action === 'key.any' ? await othersKey(fx) : await SAMPLES[route]!(fx, caller);
          const body =
            action === 'link.slug' ? { ...(sample.body as object), slug: fx.unique('chosen-slug') } : sample.body;
          const write = WRITES.has(method) && !POST_READS.has(route);
          const before = !cell.allowed && write ? await stateOf(fx) : null;
          const res = await send(t, caller, method, sample.path, body);
          if (cell.allowed) {
            expect({
              route,
              status: res.status < 300 ? 'allowed' : res.status,
              body: res.status < 300 ? null : res.body,
            }).toEqual({
              route,
              status: 'allowed',
              body: null,
            });
          } else {
            expectError(res, cell.status, cell.code);
            if (before !== null) expect(await stateOf(fx)).toEqual(before);
          }
        });
      }
    }
  });
});
