/**
 * Hostile callers against every route under /api/v1 and /api/app, on both engines. Each kind of
 * caller (a viewer's session and keys, an editor limited to one project by its account or by its
 * key, a create key limited to a project, another editor, a key limited to a domain) aims at what
 * it may not touch: others' links, projects, keys and sessions by id, bulk ids mixing its links
 * with others', filters naming what it does not see, `projectId` or `domain` elsewhere on create
 * and move. Each attempt is refused with the matrix's code, or answers 404 `not_found` with the
 * very body a nonexistent id gets, or 400 naming the field; lists, counts and statistics carry
 * nothing out of sight; and what was out of sight is unchanged afterwards.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { CALLER_KINDS } from '../../../scripts/matrix-doc';
import { STATUS_BY_CODE } from '../../../src/http/errors';
import { actionOf, ROUTE_ACTIONS } from '../../../src/http/route-actions';
import { newId } from '../../../src/lib/ids';
import { type Access, accessOf, refusal } from '../../../src/modules/access/public';
import { createApiKey } from '../../../src/modules/auth/keys';
import { sessionPrincipal } from '../../../src/modules/sessions/service';
import { type ApiResult, disposeTestApp, makeAccount, makeTestApp, type TestApp } from '../../helpers/app';
import { databaseEnv, forEachEngine } from '../../helpers/engines';
import { expectError } from '../../helpers/schema';
import { sessionFor } from '../../helpers/session';
import { ACCESS_ENV, type Caller, callerOf, Fixtures, SAMPLES, type Sample, send } from './support';

/** What one hostile request must get, when the matrix lets the caller reach the route at all. */
type Outcome =
  /** 404 not_found, the body of the same request naming a nonexistent id (`twin`). */
  | { hidden: Sample }
  /** The answer of the same request with a nonexistent id in place of the hidden one. */
  | { sameAs: () => Promise<Sample>; hiddenId: string }
  | { status: 400; field: string }
  /** 2xx, and not a word of what is out of sight; `count`: the body's count. */
  | { clean: true; count?: number }
  /** Reached, as the matrix test checks; nothing out of sight to aim at. */
  | { reached: true };

interface Attempt {
  route: string;
  what: string;
  sample: () => Promise<Sample>;
  outcome: Outcome;
}

interface Hostile {
  caller: Caller;
  /** What it is limited to: nothing, the shared project, or the default domain. */
  sight: 'open' | 'project' | 'domain';
}

/** What a caller does not see: links, a project, a domain, and the words that would betray them. */
interface View {
  hiddenLinks: string[];
  hiddenProject: string | null;
  hiddenDomain: string | null;
  forbidden: string[];
  /** How many links it sees. */
  sees: number;
}

/** Routes a hostile caller does not send: ending every own session leaves nothing else to try. */
const NOT_SENT = new Set(['DELETE /api/app/sessions']);

forEachEngine((engine) => {
  describe('hostile callers', () => {
    let t: TestApp;
    let fx: Fixtures;
    /** The other editor's key and session: what a caller aims at in the dashboard's endpoints. */
    let otherKeyId: string;
    let otherSession: { cookie: string; sessionId: string };
    let linkB: any;
    let linkNone: any;
    let linkOnD2: any;
    let projectB: string;
    let hostD2: string;
    /** A pending invite an admin made: what a caller aims at through /api/v1/invites. */
    let pendingInvite: string;
    const callers: Hostile[] = [];
    let total = 0;
    let inProject = 0;
    let onD2 = 0;
    const NONE_LINK = newId('lnk');

    async function adminLink(body: Record<string, unknown>): Promise<any> {
      return fx.made('POST', '/links', { destination: `https://example.com/${fx.unique('hidden')}`, ...body });
    }

    beforeAll(async () => {
      t = await makeTestApp({ ...(await databaseEnv(engine)), ...ACCESS_ENV });
      const admin = await makeAccount(t, { role: 'admin' });
      const adminKey = await callerOf(t, { ...CALLER_KINDS[1]!, id: 'fixtures' }, admin);
      const adminSession = await callerOf(t, { ...CALLER_KINDS[0]!, id: 'fixtures-session' }, admin);
      fx = await new Fixtures(t, adminKey, adminSession).init();
      hostD2 = await fx.domain();
      const viewer = await makeAccount(t, { role: 'viewer' });
      const limited = await makeAccount(t, { role: 'editor', projects: [fx.projectId] });
      const editor = await makeAccount(t, { role: 'editor' });
      // An admin's key, so that moving a link to another domain is refused by the limit alone.
      const domainAdmin = await makeAccount(t, { role: 'admin' });
      const kind = (role: 'viewer' | 'editor', credential: 'session' | 'read' | 'write' | 'create', label: string) => ({
        id: label,
        label,
        role,
        credential,
        limited: false,
      });
      const inProject = { projects: [fx.projectId] };
      callers.push(
        { caller: await callerOf(t, kind('viewer', 'session', 'viewer session'), viewer), sight: 'open' },
        { caller: await callerOf(t, kind('viewer', 'read', 'viewer read key'), viewer), sight: 'open' },
        { caller: await callerOf(t, kind('viewer', 'create', 'viewer create key'), viewer), sight: 'open' },
        { caller: await callerOf(t, kind('viewer', 'write', "viewer's old write key"), viewer), sight: 'open' },
        {
          caller: await callerOf(t, kind('editor', 'session', 'editor limited to a project'), limited),
          sight: 'project',
        },
        { caller: await callerOf(t, kind('editor', 'write', "limited editor's write key"), limited), sight: 'project' },
        { caller: await limitedKey(editor, 'write', 'write key limited to a project', inProject), sight: 'project' },
        { caller: await limitedKey(editor, 'create', 'create key limited to a project', inProject), sight: 'project' },
        { caller: await callerOf(t, kind('editor', 'session', 'another editor'), editor), sight: 'open' },
        {
          caller: await limitedKey(domainAdmin, 'write', "an admin's write key limited to a domain", {
            domains: ['sl.test'],
          }),
          sight: 'domain',
        },
      );
    });
    afterAll(() => disposeTestApp(t));

    /**
     * Fresh objects out of sight for each route's attempts, so that a route that lets one through
     * does not hide what the next route does: another project with a link and a variant, a link in
     * no project, a link on another domain, and another editor's key and session.
     */
    async function makeHidden(): Promise<void> {
      projectB = await fx.project(fx.unique('Project out of sight '));
      linkB = await adminLink({ projectId: projectB, tags: ['secret-b'], title: 'Title out of sight' });
      await fx.variant(linkB.id);
      linkNone = await adminLink({ projectId: null, tags: ['secret-none'] });
      linkOnD2 = await adminLink({ projectId: fx.projectId, domain: hostD2, tags: ['secret-d2'] });
      onD2++;
      total = (await send(t, fx.admin, 'GET', '/links/count')).body.count as number;
      inProject = (await send(t, fx.admin, 'GET', `/links/count?project=${fx.projectId}`)).body.count as number;
      const other = await makeAccount(t, { role: 'editor' });
      otherKeyId = (await createApiKey(t.deps, { accountId: other.id, scope: 'write', name: 'theirs' })).row.id;
      otherSession = await sessionFor(t, { email: other.email });
      pendingInvite = await fx.invite();
    }

    /** What a caller does not see, now. */
    function viewOf(h: Hostile): View {
      if (h.sight === 'project') {
        const words = (link: any) => [link.id, link.slug, link.destination];
        return {
          hiddenLinks: [linkB.id, linkNone.id],
          hiddenProject: projectB,
          hiddenDomain: null,
          forbidden: [...words(linkB), ...words(linkNone), 'secret-b', 'secret-none', 'out of sight'],
          sees: inProject,
        };
      }
      if (h.sight === 'domain') {
        return {
          hiddenLinks: [linkOnD2.id],
          hiddenProject: null,
          hiddenDomain: hostD2,
          forbidden: [linkOnD2.id, linkOnD2.slug, linkOnD2.destination, 'secret-d2'],
          sees: total - onD2,
        };
      }
      return { hiddenLinks: [], hiddenProject: null, hiddenDomain: null, forbidden: [], sees: total };
    }

    async function limitedKey(
      account: { id: string },
      scope: 'write' | 'create',
      label: string,
      limits: { projects?: string[]; domains?: string[] },
    ): Promise<Caller> {
      const made = await createApiKey(t.deps, { accountId: account.id, scope, name: label, ...limits });
      return { label, accountId: account.id, key: made.key, keyId: made.row.id, cookie: null, sessionId: null };
    }

    /** The caller's Access, as the guards make it from its stored account and key or session. */
    async function accessOfCaller(caller: Caller): Promise<Access> {
      const account = (await t.deps.stores.accounts.findById(caller.accountId))!;
      if (caller.keyId) {
        const key = (await t.deps.stores.keys.find(caller.keyId))!;
        return accessOf({ account, key }, 'api');
      }
      const session = { id: caller.sessionId!, expiresAt: Number.MAX_SAFE_INTEGER, lastSeenAt: 0 };
      return accessOf(sessionPrincipal({ session, account } as never), 'dashboard');
    }

    /** The matrix's refusal of this request, or null: a key is never let into /api/app. */
    async function matrixRefusal(caller: Caller, method: string, path: string) {
      if (caller.key && path.startsWith('/api/app/')) return { status: 403, code: 'session_required' };
      const action = actionOf(method, path.startsWith('/api/') ? path : `/api/v1${path.split('?')[0]}`);
      const refused = action === undefined ? null : refusal(await accessOfCaller(caller), action);
      return refused === null ? null : { status: STATUS_BY_CODE[refused.code], code: refused.code as string };
    }

    /** What is out of every hostile caller's sight, as an admin reads it. */
    async function hiddenState(): Promise<unknown> {
      const read = async (path: string) => {
        const res = await send(t, fx.admin, 'GET', path);
        return { status: res.status, body: res.body };
      };
      return {
        // Without the project's name: renaming the shared project is allowed to some callers.
        links: (await Promise.all([linkB, linkNone, linkOnD2].map((l) => read(`/links/${l.id}`)))).map(
          ({ status, body: { projectName: _, ...link } }) => ({ status, link }),
        ),
        variants: await read(`/links/${linkB.id}/variants`),
        project: ((await read('/projects')).body.projects as { id: string; name: string }[])
          .filter((p) => p.id === projectB)
          .map((p) => ({ id: p.id, name: p.name })),
        otherKey: (await t.deps.stores.keys.find(otherKeyId))?.revokedAt ?? null,
        invites: await read('/invites'),
        otherSession: (await send(t, { ...fx.adminSession, cookie: otherSession.cookie }, 'GET', '/api/app/session'))
          .status,
      };
    }

    /** A fresh link every hostile caller sees: project A on the default domain. */
    const visible = async () => (await adminLink({ projectId: fx.projectId })).id as string;

    function attemptsOf(route: string, h: Hostile, v: View): Attempt[] {
      const [method, pattern] = route.split(' ') as [string, string];
      const sample = SAMPLES[route];
      if (!sample) throw new Error(`no sample for ${route}`);
      const plain = (what: string, outcome: Outcome = { reached: true }): Attempt => ({
        route,
        what,
        sample: async () => sample(fx, h.caller),
        outcome,
      });
      const fixed = (what: string, s: Sample, outcome: Outcome): Attempt => ({
        route,
        what,
        sample: async () => s,
        outcome,
      });
      const apiPath = pattern.replace('/api/v1', '');
      const out: Attempt[] = [];
      const project = v.hiddenProject;
      // A target out of sight by id: the same 404 as no such link.
      if (/\/links\/:id/.test(pattern)) {
        for (const hidden of v.hiddenLinks) {
          const at = (id: string, variantId = fx.variantId) => {
            const path = pattern.startsWith('/api/app') ? pattern : apiPath;
            return path.replace(':id', id).replace(':variantId', variantId);
          };
          const body =
            route === 'DELETE /api/app/links/:id'
              ? { slug: slugOf(hidden) }
              : method === 'GET' || method === 'DELETE'
                ? undefined
                : hostileBody(route);
          out.push(
            fixed(
              `a link out of sight (${hidden})`,
              { path: at(hidden), body },
              { hidden: { path: at(NONE_LINK), body } },
            ),
          );
        }
        if (route === 'PATCH /api/v1/links/:id' && project) {
          out.push({
            route,
            what: 'moving a link it sees into a project it does not',
            sample: async () => ({ path: `/links/${await visible()}`, body: { projectId: project } }),
            outcome: { status: 400, field: 'projectId' },
          });
        }
        if (route === 'PATCH /api/v1/links/:id' && v.hiddenDomain) {
          out.push({
            route,
            what: 'moving a link it sees onto a domain it does not',
            sample: async () => ({ path: `/links/${await visible()}`, body: { domain: v.hiddenDomain } }),
            outcome: { status: 400, field: 'domain' },
          });
        }
        return out.length > 0 ? out : [plain('its own target')];
      }
      switch (route) {
        case 'GET /api/v1/me':
        case 'GET /api/v1/workspace':
        case 'GET /api/v1/workspace/stats':
        case 'GET /api/v1/links/tags':
        case 'GET /api/v1/projects':
          return [plain('a read of everything it sees', { clean: true })];
        case 'GET /api/v1/links':
          return [
            fixed('the whole list', { path: '/links?limit=100' }, { clean: true }),
            ...(project
              ? [
                  fixed(
                    'a filter naming a project out of sight',
                    { path: `/links?project=${project}` },
                    { clean: true },
                  ),
                ]
              : []),
            fixed('links in no project', { path: '/links?project=none&limit=100' }, { clean: true }),
            ...v.hiddenLinks.map((id) =>
              fixed('a search for a slug out of sight', { path: `/links?q=${slugOf(id)}` }, { clean: true }),
            ),
          ];
        case 'GET /api/v1/links/count':
          return [
            fixed('the count', { path: '/links/count' }, { clean: true, count: v.sees }),
            ...(project
              ? [
                  fixed(
                    'a count of a project out of sight',
                    { path: `/links/count?project=${project}` },
                    { clean: true, count: 0 },
                  ),
                ]
              : []),
          ];
        case 'POST /api/v1/links':
        case 'POST /api/v1/links/bulk/create':
        case 'POST /api/v1/links/bulk/preview': {
          const text = route !== 'POST /api/v1/links';
          const make = (extra: Record<string, unknown>) => ({
            path: apiPath,
            body: text
              ? { text: `https://example.com/${fx.unique('made')}`, ...extra }
              : { destination: `https://example.com/${fx.unique('made')}`, ...extra },
          });
          const list: Attempt[] = [];
          if (project) {
            list.push(
              fixed('a link made in a project out of sight', make({ projectId: project }), {
                status: 400,
                field: 'projectId',
              }),
            );
            list.push(
              fixed('a link made in no project', make({ projectId: null }), { status: 400, field: 'projectId' }),
            );
          }
          if (v.hiddenDomain) {
            list.push(
              fixed('a link made on a domain out of sight', make({ domain: v.hiddenDomain }), {
                status: 400,
                field: 'domain',
              }),
            );
          }
          return list.length > 0 ? list : [plain('a link of its own')];
        }
        case 'POST /api/v1/links/bulk/params':
        case 'POST /api/v1/links/bulk/tags':
        case 'POST /api/v1/links/bulk/status':
        case 'POST /api/v1/links/bulk/delete':
        case 'POST /api/v1/links/bulk/project': {
          const rest = bulkRest(route, fx.projectId);
          const list: Attempt[] = v.hiddenLinks.map((hidden) => ({
            route,
            what: `ids mixing a link it sees with one out of sight (${hidden})`,
            sample: async () => ({ path: apiPath, body: { ids: [await visible(), hidden], ...rest } }),
            outcome: {
              hiddenId: hidden,
              sameAs: async () => ({ path: apiPath, body: { ids: [await visible(), NONE_LINK], ...rest } }),
            },
          }));
          if (route === 'POST /api/v1/links/bulk/project' && project) {
            list.push({
              route,
              what: 'moving links it sees into a project out of sight',
              sample: async () => ({ path: apiPath, body: { ids: [await visible()], projectId: project } }),
              outcome: { status: 400, field: 'projectId' },
            });
          }
          return list.length > 0 ? list : [plain('links it sees')];
        }
        case 'PATCH /api/v1/projects/:id':
          return project
            ? [
                fixed(
                  'renaming a project out of sight',
                  { path: `/projects/${project}`, body: { name: 'Taken over' } },
                  { hidden: { path: `/projects/${newId('prj')}`, body: { name: 'Taken over' } } },
                ),
              ]
            : [plain('its project')];
        case 'DELETE /api/v1/projects/:id':
          return project
            ? [
                fixed(
                  'deleting a project out of sight',
                  { path: `/projects/${project}` },
                  { hidden: { path: `/projects/${newId('prj')}` } },
                ),
              ]
            : [plain('a project')];
        case 'GET /api/app/sessions':
          return [plain("the list of its sessions, without another's", { clean: true })];
        case 'GET /api/app/keys':
          return [plain("the list of its keys, without another's", { clean: true })];
        case 'DELETE /api/app/sessions/:id':
          return [
            fixed(
              "ending another account's session",
              { path: `/api/app/sessions/${otherSession.sessionId}` },
              { hidden: { path: `/api/app/sessions/${newId('ses')}` } },
            ),
          ];
        case 'DELETE /api/app/keys/:id':
          return [
            fixed(
              "revoking another account's key",
              { path: `/api/app/keys/${otherKeyId}` },
              { hidden: { path: `/api/app/keys/${newId('key')}` } },
            ),
          ];
        case 'PATCH /api/app/accounts/:id':
          return [plain("disabling another's account")];
        case 'GET /api/v1/invites':
          return [plain('the list of pending invites', { clean: true })];
        case 'DELETE /api/v1/invites/:id':
          return [
            fixed(
              'revoking a pending invite',
              { path: `/invites/${pendingInvite}` },
              { hidden: { path: `/invites/${newId('inv')}` } },
            ),
          ];
        case 'PATCH /api/v1/accounts/:id':
          return [
            plain("demoting another's account"),
            fixed(
              'widening its own account to every project',
              { path: `/accounts/${h.caller.accountId}`, body: { projects: null } },
              { reached: true },
            ),
          ];
        case 'POST /api/app/keys':
          return project
            ? [
                fixed(
                  'a key of its own for a project out of sight',
                  { path: '/api/app/keys', body: { scope: 'read', name: 'wider', projects: [project] } },
                  { status: 400, field: 'projects' },
                ),
              ]
            : [plain('a key of its own')];
        default:
          return [plain('its sample request')];
      }
    }

    const slugOf = (id: string) => [linkB, linkNone, linkOnD2].find((l) => l.id === id)?.slug ?? id;

    /** What a hostile change asks for: enough to be valid, and a mark that would show if it landed. */
    function hostileBody(route: string): unknown {
      if (route.includes('/variants')) return route.startsWith('POST') ? { code: 'taken' } : { params: { x: '1' } };
      if (route.endsWith('/rules/test')) return {};
      return { title: 'Taken over' };
    }

    function bulkRest(route: string, projectId: string): Record<string, unknown> {
      if (route.endsWith('/params')) return { params: { utm_source: 'hostile' } };
      if (route.endsWith('/tags')) return { add: ['hostile'] };
      if (route.endsWith('/status')) return { status: 'paused' };
      if (route.endsWith('/project')) return { projectId };
      return {};
    }

    const normalized = (res: ApiResult, ids: Record<string, string>) => {
      let text = res.text;
      for (const [id, word] of Object.entries(ids)) text = text.split(id).join(word);
      return { status: res.status, text };
    };

    const idsOf = (body: unknown): string[] => (body as { ids?: string[] })?.ids ?? [];

    test('every route is attempted', () => {
      const routes = ROUTE_ACTIONS.map(([method, path]) => `${method} ${path}`);
      const missing = routes.filter((r) => !NOT_SENT.has(r) && !SAMPLES[r]);
      expect(missing).toEqual([]);
    });

    for (const [method, path] of ROUTE_ACTIONS) {
      const route = `${method} ${path}`;
      if (NOT_SENT.has(route)) continue;
      test(route, async () => {
        const failures: unknown[] = [];
        const check = (where: unknown, want: unknown, have: unknown) => {
          if (!Bun.deepEquals(want, have)) failures.push({ where, want, have });
        };
        // What is out of sight is read before and after every caller's attempts at the route.
        await makeHidden();
        const before = await hiddenState();
        for (const h of callers) {
          for (const attempt of attemptsOf(route, h, viewOf(h))) {
            const sample = await attempt.sample();
            const where = `${h.caller.label}: ${attempt.what} (${sample.path})`;
            const refused = await matrixRefusal(h.caller, method, sample.path);
            const res = await send(t, h.caller, method, sample.path, sample.body);
            const got = {
              status: res.status,
              code: res.body?.error?.code ?? null,
              field: res.body?.error?.field ?? null,
            };
            const outcome = attempt.outcome;
            if (refused) {
              check(where, { status: refused.status, code: refused.code }, { status: got.status, code: got.code });
            } else if ('hidden' in outcome) {
              const twin = await send(t, h.caller, method, outcome.hidden.path, outcome.hidden.body);
              check(
                where,
                { status: 404, code: 'not_found', body: twin.text },
                { status: res.status, code: got.code, body: res.text },
              );
            } else if ('sameAs' in outcome) {
              const twinSample = await outcome.sameAs();
              const twin = await send(t, h.caller, method, twinSample.path, twinSample.body);
              const placeholders = (ids: string[], missing: string) =>
                Object.fromEntries(ids.map((id) => [id, id === missing ? '<missing>' : '<seen>']));
              check(
                where,
                normalized(twin, placeholders(idsOf(twinSample.body), NONE_LINK)),
                normalized(res, placeholders(idsOf(sample.body), outcome.hiddenId)),
              );
            } else if ('field' in outcome) {
              check(where, { status: 400, code: 'invalid_request', field: outcome.field }, got);
            } else if ('clean' in outcome) {
              const leaked = viewOf(h).forbidden.filter((word) => res.text.includes(word));
              if (res.text.includes(otherKeyId)) leaked.push("another account's key");
              if (res.text.includes(otherSession.sessionId)) leaked.push("another account's session");
              check(where, { ok: true, leaked: [] }, { ok: res.status < 300, leaked });
              if (outcome.count !== undefined) check(where, outcome.count, res.body?.count);
            }
          }
        }
        check('what was out of sight, after every attempt', before, await hiddenState());
        expect(failures).toEqual([]);
      });
    }

    test('a link out of sight is the documented 404, named as a link', async () => {
      await makeHidden();
      for (const h of callers.filter((c) => c.sight !== 'open' && !c.caller.label.startsWith('create'))) {
        expectError(await send(t, h.caller, 'GET', `/links/${viewOf(h).hiddenLinks[0]}`), 404, 'not_found');
      }
    });

    test('no caller but an admin lists, makes or revokes an invite; one not pending is the 404 of none', async () => {
      await makeHidden();
      const before = await hiddenState();
      for (const h of callers) {
        for (const [method, path, body] of [
          ['GET', '/invites', undefined],
          ['POST', '/invites', { email: `${fx.unique('hostile')}@example.com`, role: 'admin' }],
          ['DELETE', `/invites/${pendingInvite}`, undefined],
        ] as const) {
          const res = await send(t, h.caller, method, path, body);
          expect({ who: h.caller.label, method, status: res.status }).toEqual({
            who: h.caller.label,
            method,
            status: 403,
          });
        }
      }
      expect(await hiddenState()).toEqual(before);
      // An admin: a revoked invite, and the id of something else, answer as an id no invite has.
      const none = await send(t, fx.admin, 'DELETE', `/invites/${newId('inv')}`);
      expectError(none, 404, 'not_found');
      expect((await send(t, fx.admin, 'DELETE', `/invites/${pendingInvite}`)).status).toBe(204);
      for (const id of [pendingInvite, linkB.id, otherKeyId]) {
        const res = await send(t, fx.admin, 'DELETE', `/invites/${id}`);
        expect({ id, status: res.status, body: res.text }).toEqual({ id, status: 404, body: none.text });
      }
    });
  });
});
