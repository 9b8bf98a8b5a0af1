/**
 * What the authorisation tests share: a caller of every kind of the published matrix
 * (scripts/matrix-doc.ts CALLER_KINDS) made on one app, a request as that caller sends it, a
 * sample request for every route (an existing target an admin made, and a valid body), and a
 * reading of everything a refused change must leave as it was.
 */
import { expect } from 'bun:test';
import type { Credential } from '../../../scripts/matrix-doc';
import { CALLER_KINDS, type CallerKind } from '../../../scripts/matrix-doc';
import { sha256Hex } from '../../../src/lib/hash';
import { newId, randomString } from '../../../src/lib/ids';
import { createApiKey } from '../../../src/modules/auth/keys';
import type { AccountRow } from '../../../src/modules/auth/table';
import { type ApiResult, makeAccount, type TestApp } from '../../helpers/app';
import { SAME_ORIGIN } from '../../helpers/dashboard';
import { sessionFor } from '../../helpers/session';

/** A caller: its key, or its session cookie. */
export interface Caller {
  label: string;
  accountId: string;
  key: string | null;
  keyId: string | null;
  cookie: string | null;
  sessionId: string | null;
}

/**
 * The environment the authorisation tests' apps run with: webhooks to a closed local port, and
 * room for the hundreds of requests a file sends within one minute of the fixed clock.
 */
export const ACCESS_ENV = {
  SLINK_WEBHOOKS_ALLOW_PRIVATE: '1',
  SLINK_UPSTREAM_ALLOW_PRIVATE: '1',
  SLINK_RATE_LIMIT: '1000000',
};

/** A request as `caller` sends it (no caller: none), read whole; a live stream is answered by its head. */
export async function send(
  t: TestApp,
  caller: Caller | null,
  method: string,
  path: string,
  body?: unknown,
): Promise<ApiResult> {
  const headers: Record<string, string> = {};
  if (caller?.key) headers.authorization = `Bearer ${caller.key}`;
  if (caller?.cookie) Object.assign(headers, SAME_ORIGIN, { cookie: caller.cookie });
  if (body !== undefined) headers['content-type'] = 'application/json';
  const url = `http://localhost${path.startsWith('/api/') ? path : `/api/v1${path}`}`;
  const res = await t.app.handle(
    new Request(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) }),
  );
  if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
    await res.body?.cancel();
    return { status: res.status, body: null, headers: res.headers, text: '' };
  }
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed, headers: res.headers, text };
}

/** A key as a viewer may still hold one: a write key made before its account became a viewer. */
async function oldWriteKey(t: TestApp, accountId: string): Promise<{ key: string; keyId: string }> {
  const key = `slk_${randomString(40)}`;
  const keyId = newId('key');
  await t.deps.stores.keys.insert({
    id: keyId,
    accountId,
    name: 'made before the demotion',
    prefix: key.slice(0, 12),
    hash: sha256Hex(key),
    scope: 'write',
    expiresAt: null,
    revokedAt: null,
    lastUsedAt: null,
    createdAt: t.deps.clock.now(),
    projects: null,
    domains: null,
  });
  return { key, keyId };
}

/** A caller of `kind`, on an account of its own (one per role and limit, shared by its credentials). */
export async function callerOf(t: TestApp, kind: CallerKind, account: AccountRow): Promise<Caller> {
  const base = { label: kind.label, accountId: account.id };
  if (kind.credential === 'session') {
    const session = await sessionFor(t, { email: account.email });
    return { ...base, key: null, keyId: null, cookie: session.cookie, sessionId: session.sessionId };
  }
  const made =
    kind.role === 'viewer' && kind.credential === 'write'
      ? await oldWriteKey(t, account.id)
      : await (async (scope: Exclude<Credential, 'session'>) => {
          const created = await createApiKey(t.deps, { accountId: account.id, scope, name: kind.label });
          return { key: created.key, keyId: created.row.id };
        })(kind.credential);
  return { ...base, key: made.key, keyId: made.keyId, cookie: null, sessionId: null };
}

/** The admin's objects the samples name: made through the API by an admin write key. */
export class Fixtures {
  private n = 0;
  projectId = '';
  linkId = '';
  variantId = '';
  webhookId = '';
  host = '';
  constructor(
    readonly t: TestApp,
    readonly admin: Caller,
    readonly adminSession: Caller,
  ) {}

  /** The shared targets: a project (the limited callers' own), a link in it with a variant, a domain, a webhook. */
  async init(projectId?: string): Promise<this> {
    this.projectId = projectId ?? (await this.project());
    this.linkId = await this.link();
    this.variantId = await this.variant(this.linkId);
    this.host = await this.domain();
    this.webhookId = await this.webhook();
    return this;
  }

  unique(word: string): string {
    return `${word}${++this.n}`;
  }

  async made(method: string, path: string, body?: unknown, as = this.admin): Promise<any> {
    const res = await send(this.t, as, method, path, body);
    expect({ path, status: res.status, body: res.status < 300 ? null : res.body }).toEqual({
      path,
      status: res.status < 300 ? res.status : 201,
      body: null,
    });
    return res.body;
  }

  async project(name = this.unique('Project ')): Promise<string> {
    return (await this.made('POST', '/projects', { name })).id;
  }

  async link(projectId: string | null = this.projectId): Promise<string> {
    return (await this.linkMade(projectId)).id;
  }

  async linkMade(projectId: string | null = this.projectId): Promise<{ id: string; slug: string }> {
    const destination = `https://example.com/${this.unique('page')}`;
    return this.made('POST', '/links', { destination, projectId });
  }

  async variant(linkId: string): Promise<string> {
    return (await this.made('POST', `/links/${linkId}/variants`, { code: this.unique('v') })).id;
  }

  async domain(): Promise<string> {
    return (await this.made('POST', '/domains', { origin: `https://${this.unique('d')}.example.org` })).host;
  }

  async webhook(): Promise<string> {
    return (await this.made('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['clicks'] })).id;
  }

  async invite(): Promise<string> {
    return (await this.made('POST', '/invites', { email: `${this.unique('invited')}@example.com`, role: 'viewer' })).id;
  }

  async account(): Promise<string> {
    return (await makeAccount(this.t)).id;
  }

  /** A `slink` import's body: another Slink at an address of its own (one run at a time per address). */
  importBody(): { source: 'slink'; url: string; token: string } {
    return { source: 'slink', url: `${emptyExportOrigin()}/${this.unique('slink')}`, token: 'sample' };
  }

  async importRun(): Promise<string> {
    return (await this.made('POST', '/imports', this.importBody())).id;
  }
}

let emptyExport: ReturnType<typeof Bun.serve> | null = null;

/** Another Slink whose export is empty (its header line only), at a loopback origin, for the import samples. */
function emptyExportOrigin(): string {
  emptyExport ??= Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: () =>
      new Response('{"type":"export","version":1,"exportedAt":0,"source":"slink","clicks":true}\n', {
        headers: { 'content-type': 'application/x-ndjson' },
      }),
  });
  return `http://127.0.0.1:${emptyExport.port}`;
}

export interface Sample {
  path: string;
  body?: unknown;
}

type SampleOf = (fx: Fixtures, caller: Caller) => Promise<Sample> | Sample;

/**
 * One request per route: a valid body and an existing target an admin made (a fresh one where
 * an allowed request would use it up). A route without a sample fails the matrix test.
 */
export const SAMPLES: Record<string, SampleOf> = {
  'GET /api/v1/me': () => ({ path: '/me' }),
  'GET /api/v1/workspace': () => ({ path: '/workspace' }),
  'GET /api/v1/workspace/stats': () => ({ path: '/workspace/stats' }),
  'GET /api/v1/privacy': () => ({ path: '/privacy' }),
  'POST /api/v1/links/bulk/preview': (fx) => ({
    path: '/links/bulk/preview',
    body: { text: 'https://example.com/bulk-preview', projectId: fx.projectId },
  }),
  'POST /api/v1/links/bulk/create': (fx) => ({
    path: '/links/bulk/create',
    body: { text: `https://example.com/${fx.unique('bulk')}`, projectId: fx.projectId },
  }),
  'POST /api/v1/links/bulk/params': async (fx) => ({
    path: '/links/bulk/params',
    body: { ids: [await fx.link()], params: { utm_source: 'matrix' } },
  }),
  'POST /api/v1/links/bulk/project': async (fx) => ({
    path: '/links/bulk/project',
    body: { ids: [await fx.link()], projectId: fx.projectId },
  }),
  'POST /api/v1/links/bulk/tags': async (fx) => ({
    path: '/links/bulk/tags',
    body: { ids: [await fx.link()], add: ['matrix'] },
  }),
  'POST /api/v1/links/bulk/status': async (fx) => ({
    path: '/links/bulk/status',
    body: { ids: [await fx.link()], status: 'paused' },
  }),
  'POST /api/v1/links/bulk/delete': async (fx) => ({ path: '/links/bulk/delete', body: { ids: [await fx.link()] } }),
  'GET /api/v1/links': () => ({ path: '/links' }),
  'GET /api/v1/links/count': () => ({ path: '/links/count' }),
  'POST /api/v1/links': (fx) => ({
    path: '/links',
    body: { destination: `https://example.com/${fx.unique('new')}`, projectId: fx.projectId },
  }),
  'GET /api/v1/links/tags': () => ({ path: '/links/tags' }),
  'GET /api/v1/links/:id': (fx) => ({ path: `/links/${fx.linkId}` }),
  'PATCH /api/v1/links/:id': async (fx) => ({ path: `/links/${await fx.link()}`, body: { title: 'changed' } }),
  'DELETE /api/v1/links/:id': async (fx) => ({ path: `/links/${await fx.link()}` }),
  'GET /api/v1/links/:id/variants': (fx) => ({ path: `/links/${fx.linkId}/variants` }),
  'POST /api/v1/links/:id/variants': async (fx) => ({
    path: `/links/${await fx.link()}/variants`,
    body: { code: fx.unique('v') },
  }),
  'PATCH /api/v1/links/:id/variants/:variantId': async (fx) => {
    const linkId = await fx.link();
    return { path: `/links/${linkId}/variants/${await fx.variant(linkId)}`, body: { params: { a: '1' } } };
  },
  'DELETE /api/v1/links/:id/variants/:variantId': async (fx) => {
    const linkId = await fx.link();
    return { path: `/links/${linkId}/variants/${await fx.variant(linkId)}` };
  },
  'POST /api/v1/links/:id/rules/test': (fx) => ({ path: `/links/${fx.linkId}/rules/test`, body: {} }),
  'GET /api/v1/links/:id/stats': (fx) => ({ path: `/links/${fx.linkId}/stats` }),
  'GET /api/v1/links/:id/clicks': (fx) => ({ path: `/links/${fx.linkId}/clicks` }),
  'GET /api/v1/links/:id/export.csv': (fx) => ({ path: `/links/${fx.linkId}/export.csv` }),
  'GET /api/v1/links/:id/qr.svg': (fx) => ({ path: `/links/${fx.linkId}/qr.svg` }),
  'GET /api/v1/projects': () => ({ path: '/projects' }),
  'POST /api/v1/projects': (fx) => ({ path: '/projects', body: { name: fx.unique('Project ') } }),
  'PATCH /api/v1/projects/:id': (fx) => ({ path: `/projects/${fx.projectId}`, body: { name: fx.unique('Renamed ') } }),
  'DELETE /api/v1/projects/:id': async (fx) => ({ path: `/projects/${await fx.project()}` }),
  'GET /api/v1/domains': () => ({ path: '/domains' }),
  'POST /api/v1/domains': (fx) => ({ path: '/domains', body: { origin: `https://${fx.unique('new')}.example.org` } }),
  'GET /api/v1/domains/:host': (fx) => ({ path: `/domains/${fx.host}` }),
  'PATCH /api/v1/domains/:host': async (fx) => ({
    path: `/domains/${await fx.domain()}`,
    body: { rootUrl: 'https://example.com/root' },
  }),
  'DELETE /api/v1/domains/:host': async (fx) => ({ path: `/domains/${await fx.domain()}` }),
  'GET /api/v1/webhooks': () => ({ path: '/webhooks' }),
  'POST /api/v1/webhooks': () => ({ path: '/webhooks', body: { url: 'http://127.0.0.1:9/new', events: ['clicks'] } }),
  'GET /api/v1/webhooks/:id': (fx) => ({ path: `/webhooks/${fx.webhookId}` }),
  'PATCH /api/v1/webhooks/:id': async (fx) => ({ path: `/webhooks/${await fx.webhook()}`, body: { active: false } }),
  'GET /api/v1/webhooks/:id/deliveries': (fx) => ({ path: `/webhooks/${fx.webhookId}/deliveries` }),
  'POST /api/v1/webhooks/:id/deliveries/:deliveryId/retry': (fx) => ({
    path: `/webhooks/${fx.webhookId}/deliveries/dlv_none/retry`,
  }),
  'POST /api/v1/webhooks/:id/test': (fx) => ({ path: `/webhooks/${fx.webhookId}/test` }),
  'POST /api/v1/webhooks/:id/rotate-secret': async (fx) => ({ path: `/webhooks/${await fx.webhook()}/rotate-secret` }),
  'DELETE /api/v1/webhooks/:id': async (fx) => ({ path: `/webhooks/${await fx.webhook()}` }),
  'GET /api/v1/events': () => ({ path: '/events' }),
  'GET /api/v1/accounts': () => ({ path: '/accounts' }),
  'GET /api/v1/invites': () => ({ path: '/invites' }),
  'POST /api/v1/invites': (fx) => ({
    path: '/invites',
    body: { email: `${fx.unique('invited')}@example.com`, role: 'viewer' },
  }),
  'DELETE /api/v1/invites/:id': async (fx) => ({ path: `/invites/${await fx.invite()}` }),
  'GET /api/v1/audit': () => ({ path: '/audit' }),
  'GET /api/v1/export': () => ({ path: '/export' }),
  'GET /api/app/audit': () => ({ path: '/api/app/audit' }),
  'POST /api/v1/imports': (fx) => ({ path: '/imports', body: fx.importBody() }),
  'GET /api/v1/imports': () => ({ path: '/imports' }),
  'GET /api/v1/imports/:id': async (fx) => ({ path: `/imports/${await fx.importRun()}` }),
  'DELETE /api/v1/imports/:id': async (fx) => ({ path: `/imports/${await fx.importRun()}` }),
  'GET /api/v1/imports/:id/report.csv': async (fx) => ({ path: `/imports/${await fx.importRun()}/report.csv` }),
  'POST /api/app/imports': (fx) => ({ path: '/api/app/imports', body: fx.importBody() }),
  'GET /api/app/imports': () => ({ path: '/api/app/imports' }),
  'GET /api/app/imports/:id': async (fx) => ({ path: `/api/app/imports/${await fx.importRun()}` }),
  'DELETE /api/app/imports/:id': async (fx) => ({ path: `/api/app/imports/${await fx.importRun()}` }),
  'GET /api/app/imports/:id/report.csv': async (fx) => ({
    path: `/api/app/imports/${await fx.importRun()}/report.csv`,
  }),
  'POST /api/v1/accounts': (fx) => ({
    path: '/accounts',
    body: { email: `${fx.unique('api')}@example.com`, role: 'viewer' },
  }),
  'PATCH /api/v1/accounts/:id': async (fx) => ({ path: `/accounts/${await fx.account()}`, body: { role: 'viewer' } }),
  'GET /api/app/sessions': () => ({ path: '/api/app/sessions' }),
  'DELETE /api/app/sessions/:id': async (fx, caller) => {
    // Another session of the caller's own account: ending it leaves the caller signed in.
    const other = await sessionFor(fx.t, {
      email: (await fx.t.deps.stores.accounts.findById(caller.accountId))!.email,
    });
    return { path: `/api/app/sessions/${other.sessionId}` };
  },
  // Ends every session of the caller's account, its own included: the last request a caller sends.
  'DELETE /api/app/sessions': () => ({ path: '/api/app/sessions' }),
  'GET /api/app/keys': () => ({ path: '/api/app/keys' }),
  'GET /api/app/keys/all': () => ({ path: '/api/app/keys/all' }),
  'POST /api/app/keys': () => ({ path: '/api/app/keys', body: { scope: 'read', name: 'sample' } }),
  'DELETE /api/app/keys/:id': async (fx, caller) => {
    const own = await createApiKey(fx.t.deps, { accountId: caller.accountId, scope: 'read', name: 'to revoke' });
    return { path: `/api/app/keys/${own.row.id}` };
  },
  // The dashboard's delete of a link with clicks: the slug typed again as confirmation.
  'DELETE /api/app/links/:id': async (fx) => {
    const link = await fx.linkMade();
    return { path: `/api/app/links/${link.id}`, body: { slug: link.slug } };
  },
  'GET /api/app/accounts': () => ({ path: '/api/app/accounts' }),
  'POST /api/app/accounts': (fx) => ({
    path: '/api/app/accounts',
    body: { email: `${fx.unique('new')}@example.com` },
  }),
  'PATCH /api/app/accounts/:id': async (fx) => ({
    path: `/api/app/accounts/${await fx.account()}`,
    body: { disabled: true },
  }),
};

/**
 * Everything a refused change must leave as it was, as an admin reads it: links (with their
 * fields, tags, project, status and variants' count), projects, domains, webhooks, accounts, keys
 * (which exist and which are revoked) and sessions.
 */
export async function stateOf(fx: Fixtures): Promise<unknown> {
  const read = async (path: string, as = fx.admin) => {
    const res = await send(fx.t, as, 'GET', path);
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    return res.body;
  };
  const keys = await fx.t.deps.stores.keys.list();
  return {
    links: await read('/links?limit=100&sort=created'),
    count: await read('/links/count'),
    projects: await read('/projects'),
    domains: await read('/domains'),
    webhooks: await read('/webhooks'),
    accounts: await read('/api/app/accounts', fx.adminSession),
    keys: keys.map((k) => [k.id, k.scope, k.revokedAt]).sort(),
  };
}

/** One caller of every kind of the published matrix, on accounts shared by role and limit. */
export async function makeCallers(t: TestApp, limitedTo: string): Promise<Map<string, Caller>> {
  const accounts = new Map<string, AccountRow>();
  const callers = new Map<string, Caller>();
  for (const kind of CALLER_KINDS) {
    const name = `${kind.role}${kind.limited ? '-limited' : ''}`;
    let account = accounts.get(name);
    if (!account) {
      account = await makeAccount(t, { role: kind.role, projects: kind.limited ? [limitedTo] : null });
      accounts.set(name, account);
    }
    callers.set(kind.id, await callerOf(t, kind, account));
  }
  return callers;
}
