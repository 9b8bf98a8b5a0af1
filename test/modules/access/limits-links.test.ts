/**
 * Project and domain limits on one link and on links made or moved, through real HTTP: a link
 * outside the caller's limits is 404 not_found with the very body of a link that does not exist,
 * on every route that names one; a link made or moved outside them is 400 naming `projectId` or
 * `domain`; bulk verbs treat such ids as not found. SQLite only: the store is asked for one row
 * by id on both engines alike, and the decisions are the authorisation function's.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApiKey } from '../../../src/modules/auth/keys';
import { api, disposeTestApp, makeAccount, makeTestApp, type TestApp } from '../../helpers/app';
import { dash } from '../../helpers/dashboard';
import { expectError } from '../../helpers/schema';
import { sessionFor } from '../../helpers/session';

describe('project and domain limits on links', () => {
  let t: TestApp;
  let admin: string;
  /** An editor limited to project A (its account): sees a1 and a2. */
  let editorA: string;
  let cookieA: string;
  /** An editor's key limited to the domain go.test: sees a2. */
  let goKey: string;
  /** An editor's key limited to go.test and to.test (neither the default). */
  let twoKey: string;
  /** An admin's key limited to the default domain. */
  let adminDefault: string;
  let projectA: string;
  let projectB: string;
  let a1: { id: string; slug: string };
  let a2: { id: string; slug: string };
  let b1: { id: string; slug: string; destination: string };

  const call = async (key: string, method: string, path: string, body?: unknown) => api(t, method, path, { key, body });
  const made = async (key: string, body: Record<string, unknown>) => {
    const res = await call(key, 'POST', '/links', body);
    expect({ status: res.status, body: res.status === 201 ? null : res.body }).toEqual({ status: 201, body: null });
    return res.body;
  };

  beforeAll(async () => {
    t = await makeTestApp();
    const adminAccount = await makeAccount(t, { role: 'admin' });
    admin = (await createApiKey(t.deps, { accountId: adminAccount.id, scope: 'write' })).key;
    for (const origin of ['https://go.test', 'https://to.test']) {
      expect((await call(admin, 'POST', '/domains', { origin })).status).toBe(201);
    }
    projectA = (await call(admin, 'POST', '/projects', { name: 'A' })).body.id;
    projectB = (await call(admin, 'POST', '/projects', { name: 'B' })).body.id;
    a1 = await made(admin, { destination: 'https://example.com/a1', projectId: projectA });
    a2 = await made(admin, { destination: 'https://example.com/a2', projectId: projectA, domain: 'go.test' });
    b1 = await made(admin, { destination: 'https://example.com/b1', projectId: projectB });
    const accountA = await makeAccount(t, { role: 'editor', projects: [projectA] });
    editorA = (await createApiKey(t.deps, { accountId: accountA.id, scope: 'write' })).key;
    cookieA = (await sessionFor(t, { email: accountA.email })).cookie;
    const editor = await makeAccount(t, { role: 'editor' });
    goKey = (await createApiKey(t.deps, { accountId: editor.id, scope: 'write', domains: ['go.test'] })).key;
    twoKey = (await createApiKey(t.deps, { accountId: editor.id, scope: 'write', domains: ['go.test', 'to.test'] }))
      .key;
    adminDefault = (
      await createApiKey(t.deps, {
        accountId: adminAccount.id,
        scope: 'write',
        domains: ['sl.test'],
      })
    ).key;
    expect((await call(admin, 'POST', `/links/${b1.id}/variants`, { code: 'v' })).status).toBe(201);
  });
  afterAll(() => disposeTestApp(t));

  test('every route naming a link outside the limits answers 404 not_found, the body of a link that does not exist', async () => {
    const variantId = (await call(admin, 'GET', `/links/${b1.id}/variants`)).body[0].id;
    const routes = (id: string): [string, string, unknown][] => [
      ['GET', `/links/${id}`, undefined],
      ['PATCH', `/links/${id}`, { title: 'changed' }],
      ['DELETE', `/links/${id}`, undefined],
      ['GET', `/links/${id}/variants`, undefined],
      ['POST', `/links/${id}/variants`, { code: 'w' }],
      ['PATCH', `/links/${id}/variants/${variantId}`, { params: { a: 'b' } }],
      ['DELETE', `/links/${id}/variants/${variantId}`, undefined],
      ['POST', `/links/${id}/rules/test`, {}],
      ['GET', `/links/${id}/stats`, undefined],
      ['GET', `/links/${id}/clicks`, undefined],
      ['GET', `/links/${id}/export.csv`, undefined],
      ['GET', `/links/${id}/qr.svg`, undefined],
    ];
    const missing = routes('lnk_doesnotexist0000');
    for (const key of [editorA, goKey]) {
      for (const [i, [method, path, body]] of routes(b1.id).entries()) {
        const outside = await call(key, method, path, body);
        const none = await call(key, method, missing[i]![1], missing[i]![2]);
        expectError(outside, 404, 'not_found');
        expect({ path, body: outside.body }).toEqual({ path, body: none.body });
      }
    }
    // The dashboard's delete with clicks, through a limited person's session.
    for (const id of [b1.id, 'lnk_doesnotexist0000']) {
      const res = await dash(t, 'DELETE', `/links/${id}`, { cookie: cookieA, body: { slug: b1.slug } });
      expectError(res, 404, 'not_found');
      expect(res.body.error.message).toBe('No such link');
    }
    // Nothing changed: the link, its title and its variant are as they were.
    const kept = await call(admin, 'GET', `/links/${b1.id}`);
    expect({ status: kept.status, title: kept.body.title, variants: kept.body.variants.length }).toEqual({
      status: 200,
      title: null,
      variants: 1,
    });
    // Within the limits the same routes answer.
    expect((await call(editorA, 'GET', `/links/${a1.id}`)).status).toBe(200);
    expect((await call(goKey, 'GET', `/links/${a2.id}/stats`)).status).toBe(200);
    expect((await call(goKey, 'GET', `/links/${a1.id}`)).status).toBe(404);
  });

  test('a link made outside the limits is 400 naming projectId or domain; a domain-limited key without domain gets its only one', async () => {
    expectError(
      await call(editorA, 'POST', '/links', { destination: 'https://example.com/x' }),
      400,
      'invalid_request',
      'projectId',
    );
    expectError(
      await call(editorA, 'POST', '/links', { destination: 'https://example.com/x', projectId: projectB }),
      400,
      'invalid_request',
      'projectId',
    );
    const inA = await made(editorA, { destination: 'https://example.com/x', projectId: projectA });
    expect(inA.projectId).toBe(projectA);
    // A key limited to one domain, naming none: that domain. Naming another: 400 domain.
    const onGo = await made(goKey, { destination: 'https://example.com/go' });
    expect(onGo.domain).toBe('go.test');
    expect(onGo.shortUrl).toBe(`https://go.test/${onGo.slug}`);
    expectError(
      await call(goKey, 'POST', '/links', { destination: 'https://example.com/go', domain: 'sl.test' }),
      400,
      'invalid_request',
      'domain',
    );
    // Limited to two domains, neither the default: it must name one.
    expectError(
      await call(twoKey, 'POST', '/links', { destination: 'https://example.com/two' }),
      400,
      'invalid_request',
      'domain',
    );
    expect((await made(twoKey, { destination: 'https://example.com/two', domain: 'to.test' })).domain).toBe('to.test');
    // A custom slug is still an admin's (403 superuser_required, field slug).
    expectError(
      await call(editorA, 'POST', '/links', {
        destination: 'https://example.com/s',
        projectId: projectA,
        slug: 'mine',
      }),
      403,
      'superuser_required',
      'slug',
    );
  });

  test('a link moved outside the limits is 400 naming projectId or domain, and does not move', async () => {
    expectError(
      await call(editorA, 'PATCH', `/links/${a1.id}`, { projectId: projectB }),
      400,
      'invalid_request',
      'projectId',
    );
    expectError(
      await call(editorA, 'PATCH', `/links/${a1.id}`, { projectId: null }),
      400,
      'invalid_request',
      'projectId',
    );
    // An admin's key limited to the default domain may rename, but not move a link off it.
    expectError(
      await call(adminDefault, 'PATCH', `/links/${a1.id}`, { domain: 'go.test' }),
      400,
      'invalid_request',
      'domain',
    );
    // Another field within the limits changes.
    const renamed = await call(editorA, 'PATCH', `/links/${a1.id}`, { title: 'mine', projectId: projectA });
    expect({ status: renamed.status, title: renamed.body.title }).toEqual({ status: 200, title: 'mine' });
    const now = await call(admin, 'GET', `/links/${a1.id}`);
    expect({ projectId: now.body.projectId, domain: now.body.domain }).toEqual({
      projectId: projectA,
      domain: 'sl.test',
    });
  });

  test('bulk verbs treat links outside the limits as not found; bulk moves and creates stay within them', async () => {
    const status = await call(editorA, 'POST', '/links/bulk/status', { ids: [a1.id, b1.id], status: 'paused' });
    expect({ status: status.status, body: status.body }).toEqual({
      status: 200,
      body: { updated: 1, unchanged: 0, notFound: [b1.id] },
    });
    const tags = await call(editorA, 'POST', '/links/bulk/tags', { ids: [b1.id], add: ['x'] });
    expect(tags.body).toEqual({ updated: 0, unchanged: 0, notFound: [b1.id] });
    const params = await call(goKey, 'POST', '/links/bulk/params', { ids: [a1.id, a2.id], params: { p: '1' } });
    expect(params.body).toEqual({ updated: 1, notFound: [a1.id] });
    const deleted = await call(editorA, 'POST', '/links/bulk/delete', { ids: [b1.id] });
    expect(deleted.body).toEqual({ deleted: [], refused: [], notFound: [b1.id] });
    expectError(
      await call(editorA, 'POST', '/links/bulk/project', { ids: [a1.id], projectId: projectB }),
      400,
      'invalid_request',
      'projectId',
    );
    const b = await call(admin, 'GET', `/links/${b1.id}`);
    expect({ status: b.body.status, tags: b.body.tags, projectId: b.body.projectId }).toEqual({
      status: 'active',
      tags: [],
      projectId: projectB,
    });
    expect((await call(admin, 'GET', `/links/${a1.id}`)).body.projectId).toBe(projectA);
    // Bulk create and its preview: the caller's project (400 projectId otherwise) and domain.
    const text = `https://example.com/bulk-a\n${b1.destination}`;
    for (const path of ['/links/bulk/preview', '/links/bulk/create']) {
      expectError(await call(editorA, 'POST', path, { text }), 400, 'invalid_request', 'projectId');
      expectError(await call(goKey, 'POST', path, { text, domain: 'sl.test' }), 400, 'invalid_request', 'domain');
    }
    // A duplicate is looked for among the links it sees: b1 is never named to a caller of A.
    const preview = await call(editorA, 'POST', '/links/bulk/preview', { text, projectId: projectA });
    expect(preview.body.counts).toEqual({ create: 2, repeat: 0, duplicate: 0, invalid: 0 });
    const asAdmin = await call(admin, 'POST', '/links/bulk/preview', { text, projectId: projectA });
    expect(asAdmin.body.lines[1].duplicateOfLink).toBe(b1.id);
    const created = await call(goKey, 'POST', '/links/bulk/create', { text: 'https://example.com/bulk-go' });
    expect(created.status).toBe(201);
    expect(created.body.created.map((c: { link: { domain: string } }) => c.link.domain)).toEqual(['go.test']);
  });

  test('projects: a limited caller renames only its own; another is 404 as one that does not exist', async () => {
    const other = await call(editorA, 'PATCH', `/projects/${projectB}`, { name: 'taken over' });
    const none = await call(editorA, 'PATCH', '/projects/prj_doesnotexist000', { name: 'taken over' });
    expectError(other, 404, 'not_found');
    expect(other.body).toEqual(none.body);
    const own = await call(editorA, 'PATCH', `/projects/${projectA}`, { name: 'A2' });
    expect({ status: own.status, name: own.body.name }).toEqual({ status: 200, name: 'A2' });
    expect((await call(editorA, 'PATCH', `/projects/${projectA}`, { name: 'A' })).status).toBe(200);
  });

  test('domains: a key limited to domains reads only those; another is 404 as one that does not exist', async () => {
    const list = await call(goKey, 'GET', '/domains');
    expect(list.body.domains.map((d: { host: string }) => d.host)).toEqual(['go.test']);
    const other = await call(goKey, 'GET', '/domains/sl.test');
    const none = await call(goKey, 'GET', '/domains/nowhere.test');
    expectError(other, 404, 'not_found');
    expect(other.body).toEqual(none.body);
    expect((await call(goKey, 'GET', '/domains/go.test')).status).toBe(200);
    // A project limit hides no domain.
    expect((await call(editorA, 'GET', '/domains')).body.domains.length).toBe(3);
    // A domain outside the key's is, as a filter, a host that names none (400 domain).
    for (const path of ['/links?domain=sl.test', '/links/count?domain=sl.test', '/workspace/stats?domain=sl.test']) {
      const res = await call(goKey, 'GET', path);
      expectError(res, 400, 'invalid_request', 'domain');
      const none = await call(goKey, 'GET', path.replace('sl.test', 'nowhere.test'));
      expect(res.text.replace('sl.test', 'nowhere.test')).toBe(none.text);
    }
  });
});
