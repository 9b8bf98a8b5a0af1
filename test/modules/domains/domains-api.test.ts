/**
 * /api/v1/domains and /tls/ask (docs/behaviour.md, "Short domains"): every status and body of the
 * contract's table, validation per field, the superuser rule, punycode, lastSeenAt. One app per
 * engine: each test adds domains of its own hosts.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { DomainModel } from '../../../src/modules/domains/model';
import { api, makeKey, makeTestApp, T0, type TestApp } from '../../helpers/app';
import { engineBlind, forEachEngine } from '../../helpers/engines';
import { expectError, expectExactKeys, expectSchema } from '../../helpers/schema';
import { sessionFor } from '../../helpers/session';

const DOMAIN_KEYS = [
  'host',
  'origin',
  'default',
  'rootUrl',
  'notFoundUrl',
  'expiredUrl',
  'upstream',
  'appleAppSiteAssociation',
  'assetLinks',
  'linkCount',
  'lastSeenAt',
  'createdAt',
] as const;

function expectDomain(body: any): void {
  expectSchema(DomainModel, body);
  expectExactKeys(body, DOMAIN_KEYS);
}

let t: TestApp;
let su: string;
let writer: string;
let reader: string;

async function tlsAsk(query: string): Promise<{ status: number; body: any }> {
  const res = await t.app.handle(new Request(`https://app.sl.test/tls/ask${query}`));
  return { status: res.status, body: await res.json() };
}

forEachEngine((engine) => {
  const blind = engineBlind(engine);
  beforeAll(async () => {
    t = await makeTestApp({}, { engine });
    su = (await makeKey(t, 'write', { superuser: true })).key;
    writer = (await makeKey(t, 'write')).key;
    reader = (await makeKey(t, 'read')).key;
  });
  afterAll(async () => {
    expect(t.errors).toEqual([]);
    await t.close();
  });

  test('the default domain is there from the start, SLINK_SHORT_HOST’s', async () => {
    const res = await api(t, 'GET', '/domains', { key: reader });
    expect(res.status).toBe(200);
    expectExactKeys(res.body, ['domains']);
    const first = res.body.domains[0];
    expectDomain(first);
    expect(first).toMatchObject({ host: 'sl.test', origin: 'https://sl.test', default: true, lastSeenAt: null });
    expect(res.body.domains.filter((d: any) => d.default)).toHaveLength(1);
  });

  test('POST 201 Domain; GET lists it oldest first and answers it by host; linkCount counts its links', async () => {
    const added = await api(t, 'POST', '/domains', {
      key: su,
      body: { origin: 'https://Go.Example.com/', rootUrl: 'https://example.com/home', notFoundUrl: null },
    });
    expect(added.status).toBe(201);
    expectDomain(added.body);
    expect(added.body).toEqual({
      host: 'go.example.com',
      origin: 'https://go.example.com',
      default: false,
      rootUrl: 'https://example.com/home',
      notFoundUrl: null,
      expiredUrl: null,
      upstream: null,
      appleAppSiteAssociation: null,
      assetLinks: null,
      linkCount: 0,
      lastSeenAt: null,
      createdAt: T0,
    });
    // In memory at once: short URLs and routing use it.
    expect(t.deps.domains.byHost('go.example.com')?.origin).toBe('https://go.example.com');
    const list = await api(t, 'GET', '/domains', { key: reader });
    const hosts = list.body.domains.map((d: any) => d.host);
    expect(hosts[0]).toBe('sl.test');
    expect(hosts).toContain('go.example.com');
    const one = await api(t, 'GET', '/domains/GO.example.com', { key: reader });
    expect(one.status).toBe(200);
    expect(one.body).toEqual(added.body);
    // A link on the domain is counted (written as the links module does: its domain id).
    const link = await api(t, 'POST', '/links', { key: su, body: { destination: 'https://example.com/x' } });
    expect(link.status).toBe(201);
    const defaultCount = (await api(t, 'GET', '/domains/sl.test', { key: reader })).body.linkCount;
    expect(defaultCount).toBeGreaterThanOrEqual(1);
  });

  test('PATCH sets and clears each field; the JSON files come back as the same JSON values', async () => {
    expect((await api(t, 'POST', '/domains', { key: su, body: { origin: 'http://patch.example:8080' } })).status).toBe(
      201,
    );
    const aasa = { applinks: { apps: [], details: [{ appID: 'ABCDE.com.example', paths: ['*'] }] } };
    const assetLinks = [{ relation: ['delegate_permission/common.handle_all_urls'], target: { namespace: 'android' } }];
    const set = await api(t, 'PATCH', '/domains/patch.example', {
      key: su,
      body: {
        rootUrl: 'https://example.com/',
        notFoundUrl: 'https://example.com/missing?x=1',
        expiredUrl: 'https://bücher.example/expired',
        upstream: 'https://old.example.net/',
        appleAppSiteAssociation: aasa,
        assetLinks,
      },
    });
    expect(set.status).toBe(200);
    expectDomain(set.body);
    expect(set.body).toMatchObject({
      host: 'patch.example',
      origin: 'http://patch.example:8080',
      rootUrl: 'https://example.com/',
      notFoundUrl: 'https://example.com/missing?x=1',
      expiredUrl: 'https://xn--bcher-kva.example/expired',
      upstream: 'https://old.example.net',
      appleAppSiteAssociation: aasa,
      assetLinks,
    });
    expect((await api(t, 'GET', '/domains/patch.example', { key: reader })).body).toEqual(set.body);
    // Only the fields sent change; null clears.
    const cleared = await api(t, 'PATCH', '/domains/patch.example', {
      key: su,
      body: { rootUrl: null, appleAppSiteAssociation: null },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ rootUrl: null, appleAppSiteAssociation: null, assetLinks });
    expect(t.deps.domains.byHost('patch.example')).toMatchObject({
      rootUrl: null,
      assetLinks: JSON.stringify(assetLinks),
      upstream: 'https://old.example.net',
    });
    const empty = await api(t, 'PATCH', '/domains/patch.example', { key: su, body: {} });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual(cleared.body);
  });

  test('DELETE 200 {host, deleted}; then 404; 409 while a link is on it and for the default domain', async () => {
    expect((await api(t, 'POST', '/domains', { key: su, body: { origin: 'https://gone.example' } })).status).toBe(201);
    const deleted = await api(t, 'DELETE', '/domains/GONE.example', { key: su });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ host: 'gone.example', deleted: true });
    expect(t.deps.domains.byHost('gone.example')).toBeUndefined();
    expectError(await api(t, 'GET', '/domains/gone.example', { key: reader }), 404, 'not_found');
    expectError(await api(t, 'DELETE', '/domains/gone.example', { key: su }), 404, 'not_found');
    expectError(await api(t, 'PATCH', '/domains/gone.example', { key: su, body: {} }), 404, 'not_found');
    expectError(await api(t, 'DELETE', '/domains/sl.test', { key: su }), 409, 'conflict', 'host');
    // The default domain holds links: refused as the default first.
    expect((await api(t, 'GET', '/domains/sl.test', { key: reader })).status).toBe(200);
  });

  test('DELETE of a domain holding a link: 409 conflict, the domain stays; deletable once the link moves', async () => {
    expect((await api(t, 'POST', '/domains', { key: su, body: { origin: 'https://held.example' } })).status).toBe(201);
    const link = await api(t, 'POST', '/links', {
      key: su,
      body: { destination: 'https://example.com/held', domain: 'HELD.example' },
    });
    expect(link.status).toBe(201);
    expect(link.body.shortUrl).toStartWith('https://held.example/');
    expectError(await api(t, 'DELETE', '/domains/held.example', { key: su }), 409, 'conflict', 'host');
    const still = await api(t, 'GET', '/domains/held.example', { key: reader });
    expect(still.status).toBe(200);
    expect(still.body.linkCount).toBe(1);
    const listed = (await api(t, 'GET', '/domains', { key: reader })).body.domains.find(
      (d: any) => d.host === 'held.example',
    );
    expect(listed.linkCount).toBe(1);
    const moved = await api(t, 'PATCH', `/links/${link.body.id}`, { key: su, body: { domain: 'sl.test' } });
    expect(moved.status).toBe(200);
    expect((await api(t, 'GET', '/domains/held.example', { key: reader })).body.linkCount).toBe(0);
    expect((await api(t, 'DELETE', '/domains/held.example', { key: su })).status).toBe(200);
  });

  test('an internationalised host: stored as punycode, found by its Unicode or punycode name', async () => {
    const added = await api(t, 'POST', '/domains', { key: su, body: { origin: 'https://Bücher.example' } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ host: 'xn--bcher-kva.example', origin: 'https://xn--bcher-kva.example' });
    for (const path of ['/domains/xn--bcher-kva.example', `/domains/${encodeURIComponent('bÜcher.example')}`]) {
      const res = await api(t, 'GET', path, { key: reader });
      expect({ path, status: res.status, host: res.body.host }).toEqual({
        path,
        status: 200,
        host: 'xn--bcher-kva.example',
      });
    }
    expectError(
      await api(t, 'POST', '/domains', { key: su, body: { origin: 'http://xn--bcher-kva.example:81' } }),
      409,
      'conflict',
      'origin',
    );
    expect((await tlsAsk(`?domain=${encodeURIComponent('bücher.example')}`)).status).toBe(200);
  });

  test('an existing host is 409 conflict naming origin, whatever its scheme, port or case', async () => {
    expect((await api(t, 'POST', '/domains', { key: su, body: { origin: 'https://dup.example' } })).status).toBe(201);
    for (const origin of ['https://dup.example', 'http://DUP.example:8443', 'https://dup.example/'])
      expectError(await api(t, 'POST', '/domains', { key: su, body: { origin } }), 409, 'conflict', 'origin');
    expectError(
      await api(t, 'POST', '/domains', { key: su, body: { origin: 'https://sl.test:444' } }),
      409,
      'conflict',
      'origin',
    );
  });

  blind('origin validation: a clear 400 naming origin', async () => {
    const bad: [unknown, RegExp][] = [
      [undefined, /origin/],
      ['', /origin/],
      ['   ', /required/],
      [42, /origin/],
      ['go.example', /http/],
      ['ftp://go.example', /http/],
      ['https://', /valid URL|host/],
      ['https://go.example/path', /no path/],
      ['https://go.example/?', /no path/],
      ['https://go.example?x=1', /no path/],
      ['https://go.example#top', /no path/],
      ['https://go.example\\path', /no path/],
      ['https://user:pw@go.example', /user name/],
      ['https://@go.example', /user name/],
      ['https://go.example.', /trailing dot/],
      ['https://a..example', /valid host/],
      [`https://${'a'.repeat(64)}.example`, /valid host/],
      ['https://go example', /valid URL/],
      ['https://go.example:99999', /valid URL/],
      ['https://go.example\n', /control/],
      [`https://${'a.'.repeat(150)}example`, /origin/],
    ];
    for (const [origin, message] of bad) {
      const res = await api(t, 'POST', '/domains', { key: su, body: origin === undefined ? {} : { origin } });
      expect({ origin, status: res.status, code: res.body.error?.code, field: res.body.error?.field }).toEqual({
        origin,
        status: 400,
        code: 'invalid_request',
        field: 'origin',
      });
      expect(res.body.error.message).toMatch(message);
    }
  });

  blind('the app host (SLINK_APP_HOST, apart from SLINK_SHORT_HOST) cannot be a short domain: 400 origin', async () => {
    for (const origin of ['https://app.sl.test', 'http://APP.sl.test:8080']) {
      const res = await api(t, 'POST', '/domains', { key: su, body: { origin } });
      expectError(res, 400, 'invalid_request', 'origin');
      expect(res.body.error.message).toMatch(/SLINK_APP_HOST/);
    }
  });

  blind('IP literals and localhost-style hosts are domains like any (tests and local setups use them)', async () => {
    for (const [origin, host] of [
      ['http://127.0.0.2:3000', '127.0.0.2'],
      ['http://[::2]:8080', '[::2]'],
      ['http://short.localhost:3000', 'short.localhost'],
    ]) {
      const res = await api(t, 'POST', '/domains', { key: su, body: { origin } });
      expect({ origin, status: res.status, host: res.body.host }).toEqual({ origin, status: 201, host });
    }
    expect((await tlsAsk('?domain=[::2]:443')).status).toBe(200);
    expect((await api(t, 'GET', '/domains/[::2]', { key: reader })).body.origin).toBe('http://[::2]:8080');
  });

  blind('the URL fields follow the destination rules, each 400 naming its field', async () => {
    expect((await api(t, 'POST', '/domains', { key: su, body: { origin: 'https://urls.example' } })).status).toBe(201);
    const bad: unknown[] = [
      'example.com/x',
      'javascript:alert(1)',
      'ftp://example.com/',
      'https://user:pw@example.com/',
      'https://example.com/\u0007',
      `https://example.com/${'a'.repeat(2048)}`,
      'https://sl.test/loop',
      'https://app.sl.test/',
      42,
      {},
    ];
    for (const field of ['rootUrl', 'notFoundUrl', 'expiredUrl']) {
      for (const value of bad) {
        const res = await api(t, 'PATCH', '/domains/urls.example', { key: su, body: { [field]: value } });
        expect({ field, value, status: res.status, code: res.body.error?.code, at: res.body.error?.field }).toEqual({
          field,
          value,
          status: 400,
          code: 'invalid_request',
          at: field,
        });
      }
      // On create too.
      const res = await api(t, 'POST', '/domains', { key: su, body: { origin: 'https://x.example', [field]: 'nope' } });
      expectError(res, 400, 'invalid_request', field);
    }
    // A target on the domain being added, or on one already there: its visitors would come back.
    for (const field of ['rootUrl', 'notFoundUrl', 'expiredUrl'])
      for (const [origin, target] of [
        ['https://x.example', 'https://X.example/home'],
        ['https://x.example', 'http://x.example:8080/'],
        ['https://x.example', 'https://urls.example/'],
      ])
        expectError(
          await api(t, 'POST', '/domains', { key: su, body: { origin, [field]: target } }),
          400,
          'invalid_request',
          field,
        );
    expect((await api(t, 'GET', '/domains/x.example', { key: reader })).status).toBe(404);
    for (const upstream of [
      'https://old.example/path',
      'old.example',
      'https://sl.test',
      'https://app.sl.test',
      'https://urls.example',
      'https://URLS.example:8443',
      'mailto:a@b.example',
      7,
    ]) {
      const res = await api(t, 'PATCH', '/domains/urls.example', { key: su, body: { upstream } });
      expect({ upstream, status: res.status, at: res.body.error?.field }).toEqual({
        upstream,
        status: 400,
        at: 'upstream',
      });
    }
    expect((await api(t, 'GET', '/domains/urls.example', { key: reader })).body).toMatchObject({
      rootUrl: null,
      notFoundUrl: null,
      expiredUrl: null,
      upstream: null,
    });
  });

  blind('appleAppSiteAssociation is a JSON object and assetLinks a JSON array, each at most 64 KB', async () => {
    expect((await api(t, 'POST', '/domains', { key: su, body: { origin: 'https://json.example' } })).status).toBe(201);
    for (const value of [[], 'text', 3, true])
      expectError(
        await api(t, 'PATCH', '/domains/json.example', { key: su, body: { appleAppSiteAssociation: value } }),
        400,
        'invalid_request',
        'appleAppSiteAssociation',
      );
    for (const value of [{}, 'text', 3, false])
      expectError(
        await api(t, 'PATCH', '/domains/json.example', { key: su, body: { assetLinks: value } }),
        400,
        'invalid_request',
        'assetLinks',
      );
    const big = 'x'.repeat(64 * 1024);
    const tooBig = await api(t, 'PATCH', '/domains/json.example', {
      key: su,
      body: { appleAppSiteAssociation: { big } },
    });
    expectError(tooBig, 400, 'invalid_request', 'appleAppSiteAssociation');
    expect(tooBig.body.error.message).toMatch(/64 KB/);
    expectError(
      await api(t, 'PATCH', '/domains/json.example', { key: su, body: { assetLinks: [big] } }),
      400,
      'invalid_request',
      'assetLinks',
    );
    // Nested values, unicode and numbers come back as given.
    const aasa = { webcredentials: { apps: ['A.b'] }, ключ: [1, 2.5, null, { deep: { deeper: true } }] };
    const ok = await api(t, 'PATCH', '/domains/json.example', {
      key: su,
      body: { appleAppSiteAssociation: aasa, assetLinks: [] },
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ appleAppSiteAssociation: aasa, assetLinks: [] });
  });

  blind(
    'writes need a superuser (key or session); read keys list and get; write scope as the rest of the API',
    async () => {
      expect((await api(t, 'POST', '/domains', { key: su, body: { origin: 'https://perm.example' } })).status).toBe(
        201,
      );
      for (const [method, path, body] of [
        ['POST', '/domains', { origin: 'https://perm2.example' }],
        ['PATCH', '/domains/perm.example', { rootUrl: null }],
        ['DELETE', '/domains/perm.example', undefined],
      ] as const) {
        expectError(await api(t, method, path, { key: writer, body }), 403, 'superuser_required');
        expectError(await api(t, method, path, { key: reader, body }), 403, 'insufficient_scope');
        expectError(await api(t, method, path, { body }), 401, 'key_missing');
        const plain = await sessionFor(t);
        expectError(
          await api(t, method, path, { body, headers: { cookie: plain.cookie, origin: 'https://app.sl.test' } }),
          403,
          'superuser_required',
        );
      }
      expect((await api(t, 'GET', '/domains', { key: reader })).status).toBe(200);
      expect((await api(t, 'GET', '/domains/perm.example', { key: reader })).status).toBe(200);
      expectError(await api(t, 'GET', '/domains'), 401, 'key_missing');
      // A superuser's session writes, same-origin only.
      const admin = await sessionFor(t, { superuser: true });
      expectError(
        await api(t, 'PATCH', '/domains/perm.example', { body: { rootUrl: null }, headers: { cookie: admin.cookie } }),
        403,
        'csrf_rejected',
      );
      const patched = await api(t, 'PATCH', '/domains/perm.example', {
        body: { rootUrl: 'https://example.com/' },
        headers: { cookie: admin.cookie, origin: 'https://app.sl.test' },
      });
      expect(patched.status).toBe(200);
      expect(patched.body.rootUrl).toBe('https://example.com/');
    },
  );

  blind('a path that names no host is 404; a bad body 400', async () => {
    expectError(await api(t, 'GET', '/domains/a%2Fb', { key: reader }), 404, 'not_found');
    expectError(await api(t, 'GET', '/domains/nothing.example', { key: reader }), 404, 'not_found');
    expectError(
      await api(t, 'PATCH', '/domains/sl.test', {
        key: su,
        rawBody: '[1]',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'invalid_request',
      'body',
    );
    expectError(
      await api(t, 'POST', '/domains', { key: su, rawBody: '{', headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_request',
      'body',
    );
  });

  test('lastSeenAt: noted in memory, answered at once, written by the flush, never moved back', async () => {
    expect((await api(t, 'POST', '/domains', { key: su, body: { origin: 'https://seen.example' } })).status).toBe(201);
    const id = t.deps.domains.byHost('seen.example')!.id;
    const stored = async () => (await t.deps.stores.domains.list()).find((d) => d.host === 'seen.example')!.lastSeenAt;
    t.deps.domains.noteSeen(id, T0 + 5_000);
    t.deps.domains.noteSeen(id, T0 + 1_000);
    expect((await api(t, 'GET', '/domains/seen.example', { key: reader })).body.lastSeenAt).toBe(T0 + 5_000);
    expect(await stored()).toBeNull();
    await t.deps.domainSeen.flush();
    expect(await stored()).toBe(T0 + 5_000);
    // Another node that saw it earlier writes an older time: the later one stays.
    await t.deps.stores.domains.recordSeen([{ id, at: T0 + 2_000 }]);
    expect(await stored()).toBe(T0 + 5_000);
    // ...and a later one from another node is answered over this node's own.
    await t.deps.stores.domains.recordSeen([{ id, at: T0 + 9_000 }]);
    const listed = (await api(t, 'GET', '/domains', { key: reader })).body.domains.find(
      (d: any) => d.host === 'seen.example',
    );
    expect(listed.lastSeenAt).toBe(T0 + 9_000);
    // Nothing moved since: the flush writes nothing (its own value would not move the stored one anyway).
    expect(t.deps.domains.unwrittenSeen().some((s) => s.id === id)).toBe(false);
    // Surviving a reload of the domains (another change).
    expect(
      (await api(t, 'PATCH', '/domains/seen.example', { key: su, body: { rootUrl: 'https://example.com/' } })).status,
    ).toBe(200);
    t.deps.domains.noteSeen(id, T0 + 20_000);
    expect(t.deps.domains.seenSince(id)).toBe(T0 + 20_000);
    await t.deps.domainSeen.flush();
    expect(await stored()).toBe(T0 + 20_000);
  });

  test('a request whose Host is a domain’s sets its lastSeenAt (the redirect notes it, the flush writes it)', async () => {
    for (const origin of ['https://visited.example', 'https://unvisited.example'])
      expect((await api(t, 'POST', '/domains', { key: su, body: { origin } })).status).toBe(201);
    expect((await api(t, 'GET', '/domains/visited.example', { key: reader })).body.lastSeenAt).toBeNull();
    const res = await t.app.handle(
      new Request('https://Visited.Example:443/no-such-slug', { headers: { 'user-agent': 'Mozilla/5.0' } }),
    );
    expect(res.status).toBe(404);
    await res.arrayBuffer();
    const now = t.deps.clock.now();
    expect((await api(t, 'GET', '/domains/visited.example', { key: reader })).body.lastSeenAt).toBe(now);
    await t.deps.domainSeen.flush();
    const stored = (await t.deps.stores.domains.list()).find((d) => d.host === 'visited.example');
    expect(stored?.lastSeenAt).toBe(now);
    // A request on another host leaves it alone.
    expect((await api(t, 'GET', '/domains/unvisited.example', { key: reader })).body.lastSeenAt).toBeNull();
  });

  blind('the OpenAPI document has the paths, the Domain schema and the Domains tag; not /tls/ask', async () => {
    const doc: any = await (await t.app.handle(new Request('http://localhost/api/openapi.json'))).json();
    expect(Object.keys(doc.paths).filter((p) => /domain|tls/.test(p))).toEqual([
      '/api/v1/domains',
      '/api/v1/domains/{host}',
    ]);
    expect(Object.keys(doc.paths['/api/v1/domains']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/v1/domains/{host}']).sort()).toEqual(['delete', 'get', 'patch']);
    const domain = doc.paths['/api/v1/domains/{host}'].get.responses['200'].content['application/json'].schema;
    expect(domain.title).toBe('Domain');
    expect(domain.required).toEqual([...DOMAIN_KEYS]);
    expect(doc.paths['/api/v1/domains'].post.tags).toEqual(['Domains']);
    expect(doc.tags.map((tag: any) => tag.name)).toContain('Domains');
  });

  test('/tls/ask: 200 for a domain (any case, a port ignored), 404 otherwise, 400 without a host; no key', async () => {
    expect((await api(t, 'POST', '/domains', { key: su, body: { origin: 'https://ask.example' } })).status).toBe(201);
    for (const q of ['?domain=ask.example', '?domain=ASK.Example', '?domain=ask.example:443', '?domain=sl.test'])
      expect({ q, ...(await tlsAsk(q)) }).toMatchObject({ q, status: 200 });
    expect((await tlsAsk('?domain=ask.example')).body).toEqual({ host: 'ask.example' });
    // As Caddy asks it: by address, a Host that is neither a domain nor the app host.
    const direct = await t.app.handle(new Request('http://127.0.0.1:3000/tls/ask?domain=ask.example'));
    expect(direct.status).toBe(200);
    expect(await direct.json()).toEqual({ host: 'ask.example' });
    const unknown = await tlsAsk('?domain=other.example');
    expect(unknown).toEqual({
      status: 404,
      body: { error: { code: 'not_found', message: expect.any(String), field: null } },
    });
    for (const q of ['', '?domain=', '?domain=a/b', '?domain=a%20b', '?domain=user@ask.example']) {
      const res = await tlsAsk(q);
      expect({ q, status: res.status, error: res.body.error.code, field: res.body.error.field }).toEqual({
        q,
        status: 400,
        error: 'invalid_request',
        field: 'domain',
      });
    }
  });
});
