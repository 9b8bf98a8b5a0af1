/**
 * Errors (interface description): every error is {error:{code,message,field}} with the
 * documented status; bad bodies are 400/413/415, unknown paths 404, and no input, however odd,
 * produces a 500.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { MAX_BODY_BYTES } from '../../src/http/json-body';
import { type ApiResult, api, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../helpers/app';
import { dash } from '../helpers/dashboard';
import { engineBlind, forEachEngine } from '../helpers/engines';
import { expectError, expectErrorShape } from '../helpers/schema';

let t: TestApp | null = null;
/** 3,300 requests, many of them writes: on PostgreSQL on a loaded machine, longer than a default timeout. */
const FUZZ_TIMEOUT = 180_000;
forEachEngine((engine) => {
  // Body, content-type, size, path and field-type checks and the 500 mapping happen before the
  // store (`blind`: SQLite only); unknown resources and the fuzz, whose odd ids and headers reach
  // the store, run on both engines.
  const blind = engineBlind(engine);
  afterEach(async () => {
    if (t) await disposeTestApp(t);
    t = null;
  });

  async function setup(env: Record<string, string> = {}) {
    t = await makeTestApp({ SLINK_RATE_LIMIT: '1000000', ...env }, { engine });
    const { key } = await makeKey(t, 'write', { superuser: true });
    const link = await api(t, 'POST', '/links', {
      key,
      body: { destination: 'https://a.example/x', title: 'A', tags: ['t'] },
    });
    expect(link.status).toBe(201);
    const variant = await api(t, 'POST', `/links/${link.body.id}/variants`, {
      key,
      body: { code: 'v1', params: { a: 'b' } },
    });
    expect(variant.status).toBe(201);
    const project = await api(t, 'POST', '/projects', { key, body: { name: 'P' } });
    expect(project.status).toBe(201);
    return {
      t,
      key,
      linkId: link.body.id as string,
      variantId: variant.body.id as string,
      projectId: project.body.id as string,
    };
  }

  /** Every route with a JSON body, with a valid body for it. */
  function bodyRoutes(ids: { linkId: string; variantId: string; projectId: string }) {
    return [
      { method: 'POST', path: '/links', valid: { destination: 'https://b.example/' } },
      { method: 'PATCH', path: `/links/${ids.linkId}`, valid: { title: 'T' } },
      { method: 'POST', path: `/links/${ids.linkId}/variants`, valid: { code: 'vv' } },
      { method: 'PATCH', path: `/links/${ids.linkId}/variants/${ids.variantId}`, valid: { params: { x: 'y' } } },
      { method: 'POST', path: '/projects', valid: { name: 'Q' } },
      { method: 'PATCH', path: `/projects/${ids.projectId}`, valid: { name: 'R' } },
    ] as const;
  }

  describe('malformed and non-object bodies: 400 invalid_request', () => {
    blind('malformed JSON on every JSON route is 400 invalid_request naming body', async () => {
      const s = await setup();
      for (const { method, path } of bodyRoutes(s)) {
        for (const rawBody of [
          '{',
          '{"destination":',
          '{destination: "x"}',
          "{'a':1}",
          '[1,',
          'nul',
          '{"a":1}}',
          '\u0000',
          '{"a":"\\x"}',
        ]) {
          const res = await api(s.t, method, path, {
            key: s.key,
            rawBody,
            headers: { 'content-type': 'application/json' },
          });
          expectError(res, 400, 'invalid_request', 'body');
        }
      }
    });

    blind('an empty body with a JSON content type is 400 naming body', async () => {
      const s = await setup();
      for (const { method, path } of bodyRoutes(s)) {
        expectError(
          await api(s.t, method, path, { key: s.key, rawBody: '', headers: { 'content-type': 'application/json' } }),
          400,
          'invalid_request',
          'body',
        );
        expectError(await api(s.t, method, path, { key: s.key }), 400, 'invalid_request', 'body');
      }
    });

    blind('a JSON array, string, number, boolean or null where an object is expected is 400 naming body', async () => {
      const s = await setup();
      for (const { method, path } of bodyRoutes(s)) {
        for (const body of [[], [{ destination: 'https://b.example/' }], 'x', '', 1, 0, true, false, null]) {
          const res = await api(s.t, method, path, {
            key: s.key,
            rawBody: JSON.stringify(body),
            headers: { 'content-type': 'application/json' },
          });
          expect({ path, body, status: res.status }).toEqual({ path, body, status: 400 });
          expectError(res, 400, 'invalid_request', 'body');
        }
      }
      // And nothing changed: the PATCHes above were refused.
      const link = await api(s.t, 'GET', `/links/${s.linkId}`, { key: s.key });
      expect(link.body.title).toBe('A');
      expect(link.body.variants.map((v: { code: string }) => v.code)).toEqual(['v1']);
    });
  });

  describe('content type and size', () => {
    blind('a body with a non-JSON content type is 415 unsupported_media_type', async () => {
      const s = await setup();
      const types = [
        'text/plain',
        'text/plain;charset=UTF-8',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/xml',
        'application/jsonp',
        'text/json',
      ];
      for (const { method, path, valid } of bodyRoutes(s)) {
        for (const type of types) {
          const res = await api(s.t, method, path, {
            key: s.key,
            rawBody: JSON.stringify(valid),
            headers: { 'content-type': type },
          });
          expect({ path, type, status: res.status }).toEqual({ path, type, status: 415 });
          expectError(res, 415, 'unsupported_media_type', null);
          // Same with an explicit content-length, as a real client sends it.
          const withLength = await api(s.t, method, path, {
            key: s.key,
            rawBody: JSON.stringify(valid),
            headers: { 'content-type': type, 'content-length': String(JSON.stringify(valid).length) },
          });
          expectError(withLength, 415, 'unsupported_media_type', null);
        }
      }
      // Nothing was created or changed.
      const list = await api(s.t, 'GET', '/links', { key: s.key });
      expect(list.body.items).toHaveLength(1);
      expect(list.body.items[0].title).toBe('A');
    });

    blind('JSON content types with parameters or a +json suffix are accepted, in any case', async () => {
      const s = await setup();
      for (const type of [
        'application/json',
        'application/json; charset=utf-8',
        'APPLICATION/JSON',
        'application/vnd.slink+json',
      ]) {
        const res = await api(s.t, 'POST', '/links', {
          key: s.key,
          rawBody: JSON.stringify({ destination: 'https://c.example/' }),
          headers: { 'content-type': type },
        });
        expect({ type, status: res.status }).toEqual({ type, status: 201 });
        expect(res.body.destination).toBe('https://c.example/');
      }
    });

    blind('a POST without a content type but with a JSON body is accepted', async () => {
      const s = await setup();
      const res = await api(s.t, 'POST', '/links', {
        key: s.key,
        rawBody: JSON.stringify({ destination: 'https://d.example/p', title: 'no type' }),
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ destination: 'https://d.example/p', title: 'no type' });
      const patch = await api(s.t, 'PATCH', `/links/${s.linkId}`, {
        key: s.key,
        rawBody: JSON.stringify({ title: 'patched' }),
      });
      expect(patch.status).toBe(200);
      expect(patch.body.title).toBe('patched');
      const project = await api(s.t, 'POST', '/projects', { key: s.key, rawBody: JSON.stringify({ name: 'Untyped' }) });
      expect(project.status).toBe(201);
      expect(project.body.name).toBe('Untyped');
    });

    blind('a body over 1 MiB by content-length is 413 payload_too_large', async () => {
      const s = await setup();
      for (const { method, path } of bodyRoutes(s)) {
        for (const length of [MAX_BODY_BYTES + 1, 50 * 1024 * 1024]) {
          const res = await api(s.t, method, path, {
            key: s.key,
            rawBody: '{}',
            headers: { 'content-type': 'application/json', 'content-length': String(length) },
          });
          expectError(res, 413, 'payload_too_large', null);
        }
      }
    });

    blind('a real body of exactly 1 MiB is read (and judged on its content); one byte more is 413', async () => {
      const s = await setup();
      const make = (size: number) => {
        const skeleton = JSON.stringify({ destination: 'https://e.example/', title: '' });
        return JSON.stringify({ destination: 'https://e.example/', title: 'x'.repeat(size - skeleton.length) });
      };
      const exact = make(MAX_BODY_BYTES);
      expect(exact.length).toBe(MAX_BODY_BYTES);
      const ok = await api(s.t, 'POST', '/links', {
        key: s.key,
        rawBody: exact,
        headers: { 'content-type': 'application/json', 'content-length': String(exact.length) },
      });
      expectError(ok, 400, 'invalid_request', 'title'); // too long a title, but not too large a body
      const over = make(MAX_BODY_BYTES + 1);
      const res = await api(s.t, 'POST', '/links', {
        key: s.key,
        rawBody: over,
        headers: { 'content-type': 'application/json', 'content-length': String(over.length) },
      });
      expectError(res, 413, 'payload_too_large', null);
    });

    blind(
      'through a real server: 413 for a 1.5 MiB body, 415 for a form post, 201 for JSON without a content type',
      async () => {
        const s = await setup();
        s.t.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false });
        const base = `http://127.0.0.1:${s.t.app.server!.port}/api/v1`;
        const auth = { authorization: `Bearer ${s.key}` };
        const big = await fetch(`${base}/links`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ destination: 'https://f.example/', title: 'x'.repeat(1.5 * 1024 * 1024) }),
        });
        expect(big.status).toBe(413);
        expect(((await big.json()) as any).error).toMatchObject({ code: 'payload_too_large', field: null });
        const form = await fetch(`${base}/links`, {
          method: 'POST',
          headers: auth,
          body: new URLSearchParams({ destination: 'https://f.example/' }),
        });
        expect(form.status).toBe(415);
        expect(((await form.json()) as any).error.code).toBe('unsupported_media_type');
        const chunked = await fetch(`${base}/links`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'text/plain' },
          body: new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode(JSON.stringify({ destination: 'https://f.example/' })));
              c.close();
            },
          }),
        });
        expect(chunked.status).toBe(415);
        expect(((await chunked.json()) as any).error.code).toBe('unsupported_media_type');
        const plain = await fetch(`${base}/links`, {
          method: 'POST',
          headers: auth,
          body: JSON.stringify({ destination: 'https://f.example/' }),
        });
        expect(plain.status).toBe(201);
        expect(((await plain.json()) as any).destination).toBe('https://f.example/');
      },
    );
  });

  describe('unknown paths', () => {
    blind('unknown paths and methods under /api/v1 are 404 not_found with an error body', async () => {
      const s = await setup();
      for (const [method, path] of [
        ['GET', '/nope'],
        ['GET', ''],
        ['GET', '/'],
        ['GET', '/links/x/y/z'],
        ['GET', `/links/${s.linkId}/variants/${s.variantId}/extra`],
        ['POST', '/me'],
        ['PUT', '/links'],
        ['DELETE', '/projects'],
        ['GET', '/LINKS'],
        ['GET', '/api/v2/links'],
        ['GET', '/%F0%9F%98%80'],
      ] as const) {
        const res = await api(s.t, method, path, { key: s.key });
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
        expectError(res, 404, 'not_found', null);
      }
    });

    test('unknown resources are 404 not_found', async () => {
      const s = await setup();
      for (const [method, path, body] of [
        ['GET', '/links/lnk_nope', undefined],
        ['PATCH', '/links/lnk_nope', { title: 'x' }],
        ['DELETE', '/links/lnk_nope', undefined],
        ['GET', '/links/lnk_nope/variants', undefined],
        ['POST', '/links/lnk_nope/variants', { code: 'x' }],
        ['PATCH', `/links/${s.linkId}/variants/var_nope`, { code: 'x' }],
        ['DELETE', `/links/${s.linkId}/variants/var_nope`, undefined],
        ['PATCH', '/projects/prj_nope', { name: 'x' }],
        ['DELETE', '/projects/prj_nope', undefined],
      ] as const) {
        const res = await api(s.t, method, path, { key: s.key, body });
        expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
        expectError(res, 404, 'not_found');
      }
    });
  });

  describe('wrong field types name the field', () => {
    blind('bodies', async () => {
      const s = await setup();
      const cases: [string, string, Record<string, unknown>, string][] = [
        ['POST', '/links', { destination: 'https://a.example', tags: 'x' }, 'tags'],
        ['POST', '/links', { destination: 'https://a.example', tags: ['ok', 5] }, 'tags'],
        ['POST', '/links', { destination: 'https://a.example', tags: { a: 'b' } }, 'tags'],
        ['POST', '/links', { destination: 'https://a.example', params: { a: 1 } }, 'params'],
        ['POST', '/links', { destination: 'https://a.example', params: ['a'] }, 'params'],
        ['POST', '/links', { destination: 'https://a.example', params: 'a=b' }, 'params'],
        ['POST', '/links', { destination: 'https://a.example', params: { a: { b: 'c' } } }, 'params'],
        ['POST', '/links', { destination: 'https://a.example', title: 5 }, 'title'],
        ['POST', '/links', { destination: 'https://a.example', title: ['t'] }, 'title'],
        ['POST', '/links', { destination: 5 }, 'destination'],
        ['POST', '/links', { destination: null }, 'destination'],
        ['POST', '/links', { destination: 'ftp://a.example' }, 'destination'],
        ['POST', '/links', { title: 'no destination' }, 'destination'],
        ['POST', '/links', { destination: 'https://a.example', slug: 5 }, 'slug'],
        ['POST', '/links', { destination: 'https://a.example', slug: 'has space' }, 'slug'],
        ['POST', '/links', { destination: 'https://a.example', projectId: 5 }, 'projectId'],
        ['POST', '/links', { destination: 'https://a.example', projectId: 'prj_nope' }, 'projectId'],
        ['POST', '/links', { destination: 'https://a.example', expiresAt: 'tomorrow' }, 'expiresAt'],
        ['POST', '/links', { destination: 'https://a.example', expiresAt: 1.5 }, 'expiresAt'],
        ['POST', '/links', { destination: 'https://a.example', expiresAt: -1 }, 'expiresAt'],
        ['POST', '/links', { destination: 'https://a.example', clickLimit: 0 }, 'clickLimit'],
        ['POST', '/links', { destination: 'https://a.example', clickLimit: '10' }, 'clickLimit'],
        ['PATCH', `/links/${s.linkId}`, { status: 'deleted' }, 'status'],
        ['PATCH', `/links/${s.linkId}`, { status: 5 }, 'status'],
        ['PATCH', `/links/${s.linkId}`, { tags: 'x' }, 'tags'],
        ['PATCH', `/links/${s.linkId}`, { params: { a: 1 } }, 'params'],
        ['PATCH', `/links/${s.linkId}`, { title: 5 }, 'title'],
        ['PATCH', `/links/${s.linkId}`, { destination: null }, 'destination'],
        ['PATCH', `/links/${s.linkId}`, { title: 'x'.repeat(501) }, 'title'],
        ['POST', `/links/${s.linkId}/variants`, { code: '' }, 'code'],
        ['POST', `/links/${s.linkId}/variants`, { code: 'x'.repeat(33) }, 'code'],
        ['POST', `/links/${s.linkId}/variants`, { code: 'a/b' }, 'code'],
        ['POST', `/links/${s.linkId}/variants`, { code: 5 }, 'code'],
        ['POST', `/links/${s.linkId}/variants`, { code: 'ok', params: { a: 1 } }, 'params'],
        ['PATCH', `/links/${s.linkId}/variants/${s.variantId}`, { params: 'x' }, 'params'],
        ['POST', '/projects', { name: 5 }, 'name'],
        ['POST', '/projects', { name: '' }, 'name'],
        ['POST', '/projects', { name: 'n'.repeat(101) }, 'name'],
        ['PATCH', `/projects/${s.projectId}`, { name: null }, 'name'],
      ];
      for (const [method, path, body, field] of cases) {
        const res = await api(s.t, method, path, { key: s.key, body });
        expect({ body, status: res.status, code: res.body.error?.code, field: res.body.error?.field }).toEqual({
          body,
          status: 400,
          code: 'invalid_request',
          field,
        });
        expectErrorShape(res);
      }
    });

    blind('query strings', async () => {
      const s = await setup();
      for (const [query, field] of [
        ['limit=0', 'limit'],
        ['limit=101', 'limit'],
        ['limit=abc', 'limit'],
        ['limit=1.5', 'limit'],
        ['limit=-1', 'limit'],
        ['limit=', 'limit'],
        ['sort=newest', 'sort'],
        ['status=deleted', 'status'],
        [`q=${'x'.repeat(201)}`, 'q'],
        ['cursor=garbage', 'cursor'],
        [`cursor=${Buffer.from(JSON.stringify(['oldest', 1, 'x'])).toString('base64url')}`, 'cursor'],
      ] as const) {
        const res = await api(s.t, 'GET', `/links?${query}`, { key: s.key });
        expect({ query: query.slice(0, 40), status: res.status, field: res.body.error?.field }).toEqual({
          query: query.slice(0, 40),
          status: 400,
          field,
        });
        expectError(res, 400, 'invalid_request', field);
      }
    });
  });

  describe('fuzz: no input produces a 500', () => {
    function deepArray(depth: number): unknown {
      let v: unknown = 'leaf';
      for (let i = 0; i < depth; i++) v = [v];
      return v;
    }
    function deepObject(depth: number): unknown {
      let v: unknown = 'leaf';
      for (let i = 0; i < depth; i++) v = { a: v };
      return v;
    }
    const FIELDS = [
      'destination',
      'slug',
      'title',
      'tags',
      'params',
      'projectId',
      'expiresAt',
      'clickLimit',
      'status',
      'code',
      'name',
    ];
    const ODD_VALUES: unknown[] = [
      null,
      [],
      {},
      '',
      ' ',
      'x',
      0,
      -1,
      1.5,
      1e308,
      -1e308,
      Number.MAX_SAFE_INTEGER + 2,
      true,
      ['a', null, 1, {}],
      { a: null },
      { '': '' },
      'é😀\u202e\u200b文字',
      'a\u0000b',
      '\ud800', // lone surrogate
      'https://例え.テスト/パス?utm_source=ü',
      `https://a.example/?utm_source=x&utm_medium=${'m'.repeat(3000)}`,
      'javascript:alert(1)',
      'x'.repeat(100_000),
      deepArray(200),
      deepObject(50),
      Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, 'v'])),
      Array.from({ length: 500 }, (_, i) => `tag${i}`),
      '__proto__',
      'api',
      '../../etc/passwd',
      "'; DROP TABLE links; --",
      '%00%zz',
    ];
    const BODIES: { label: string; raw: string }[] = [
      ...[null, [], 'x', 1, {}, true].map((b) => ({ label: JSON.stringify(b), raw: JSON.stringify(b) })),
      { label: 'deep array', raw: JSON.stringify(deepArray(3000)) },
      { label: 'deep object', raw: JSON.stringify(deepObject(1500)) },
      { label: 'huge string', raw: JSON.stringify('x'.repeat(900_000)) },
      { label: 'all null', raw: JSON.stringify(Object.fromEntries(FIELDS.map((f) => [f, null]))) },
      { label: 'all empty', raw: JSON.stringify(Object.fromEntries(FIELDS.map((f) => [f, '']))) },
      { label: 'all unicode', raw: JSON.stringify(Object.fromEntries(FIELDS.map((f) => [f, '😀ü\u0301']))) },
      { label: 'all arrays', raw: JSON.stringify(Object.fromEntries(FIELDS.map((f) => [f, ['x']]))) },
      { label: 'all objects', raw: JSON.stringify(Object.fromEntries(FIELDS.map((f) => [f, { x: 'y' }]))) },
      {
        label: 'proto pollution',
        raw: '{"__proto__":{"isSuperuser":true},"constructor":{"prototype":{"x":1}},"destination":"https://a.example","name":"pp","code":"pp","params":{"__proto__":{"a":"b"}}}',
      },
      { label: 'duplicate keys', raw: '{"destination":"https://a.example","destination":5,"name":"a","name":null}' },
      { label: 'numbers as strings', raw: '{"destination":"https://a.example","expiresAt":"1e3","clickLimit":"0x10"}' },
      { label: 'big numbers', raw: '{"destination":"https://a.example","expiresAt":1e400,"clickLimit":-0}' },
    ];

    function checkResponse(res: ApiResult, label: string): void {
      expect({ label, serverError: res.status >= 500 }).toEqual({ label, serverError: false });
      if (res.status >= 400) expectErrorShape(res);
      else if (!label.startsWith('HEAD ')) expect({ label, type: typeof res.body }).toEqual({ label, type: 'object' });
      else expect(res.text).toBe('');
    }

    test('odd whole bodies on every body route', async () => {
      const s = await setup();
      for (const { method, path } of bodyRoutes(s)) {
        for (const { label, raw } of BODIES) {
          const res = await api(s.t, method, path, {
            key: s.key,
            rawBody: raw,
            headers: { 'content-type': 'application/json' },
          });
          checkResponse(res, `${method} ${path} ${label}`);
        }
      }
    });

    test(
      'odd values in every field of every body route',
      async () => {
        const s = await setup();
        let count = 0;
        for (const { method, path, valid } of bodyRoutes(s)) {
          for (const field of FIELDS) {
            for (const value of ODD_VALUES) {
              const res = await api(s.t, method, path, { key: s.key, body: { ...valid, [field]: value } });
              checkResponse(res, `${method} ${path} ${field}=${JSON.stringify(value)?.slice(0, 60)}`);
              count++;
            }
          }
        }
        expect(count).toBe(6 * FIELDS.length * ODD_VALUES.length);
      },
      FUZZ_TIMEOUT,
    );

    test('invalid UTF-8 and binary bodies', async () => {
      const s = await setup();
      for (const { method, path } of bodyRoutes(s)) {
        for (const bytes of [
          new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
          new Uint8Array([0, 1, 2, 3]),
          new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]),
        ]) {
          const raw = await s.t.app.handle(
            new Request(`http://localhost/api/v1${path}`, {
              method,
              headers: { authorization: `Bearer ${s.key}`, 'content-type': 'application/json' },
              body: bytes,
            }),
          );
          const text = await raw.text();
          expect({ path, status: raw.status < 500 }).toEqual({ path, status: true });
          if (raw.status >= 400)
            expectErrorShape({ status: raw.status, headers: raw.headers, text, body: JSON.parse(text) });
        }
      }
    });

    test('odd ids in paths and odd query strings on every route', async () => {
      const s = await setup();
      // (No dot segments here: the URL parser resolves `/links/<id>/variants/..` to `/links/<id>/`
      // before the request is sent, so a DELETE there really is a DELETE of the link.)
      const ids = [
        '%00',
        '%zz',
        '%',
        'x'.repeat(5000),
        '%F0%9F%98%80',
        '.',
        '%2F',
        'lnk_%0A',
        ' ',
        "'--",
        s.linkId.toUpperCase(),
        'null',
        'undefined',
        '0',
        '-1',
      ];
      const queries = [
        '',
        '?',
        '?&&&=',
        '?limit=-1',
        '?limit=1e309',
        '?limit=0x10',
        '?limit=%00',
        '?limit[]=1',
        '?limit=1&limit=2',
        '?limit=1&limit=x',
        '?cursor=',
        '?cursor=%zz',
        `?cursor=${Buffer.from('["created",1e308,"x"]').toString('base64url')}`,
        `?cursor=${Buffer.from('["created",1,5]').toString('base64url')}`,
        `?cursor=${Buffer.from('["created",-1,"\\u0000"]').toString('base64url')}`,
        `?cursor=${Buffer.from('null').toString('base64url')}`,
        `?cursor=${Buffer.from('{"__proto__":1}').toString('base64url')}`,
        `?cursor=${'A'.repeat(10_000)}`,
        '?status=ARCHIVED',
        '?status=archived&status=active',
        '?sort=clicks&limit=100',
        '?sort[]=x',
        '?q=%F0%9F%98%80',
        '?q=%',
        '?q=%25%5F',
        "?q='%20OR%201=1--",
        '?project=none',
        `?project=${'p'.repeat(3000)}`,
        '?tag=%F0%9F%98%80',
        '?tag=',
        '?%zz=1',
        '?__proto__[x]=1',
        '?constructor=1',
      ];
      const routes = (id: string) => [
        ['GET', '/me'],
        ['GET', '/workspace'],
        ['GET', '/links'],
        ['GET', '/links/tags'],
        ['GET', `/links/${id}`],
        ['GET', `/links/${id}/variants`],
        ['GET', '/projects'],
        ['PATCH', `/links/${id}`],
        ['PATCH', `/links/${s.linkId}/variants/${id}`],
        ['PATCH', `/projects/${id}`],
        ['DELETE', `/links/${s.linkId}/variants/${id}`],
        ['DELETE', `/projects/${id}`],
        ['DELETE', `/links/${id}`],
        ['HEAD', '/links'],
        ['OPTIONS', '/links'],
      ];
      for (const id of ids) {
        for (const [method, path] of routes(id)) {
          const res = await api(s.t, method!, path!, {
            key: s.key,
            body: method === 'PATCH' ? { name: 'n', title: 't', code: 'c' } : undefined,
          });
          checkResponse(res, `${method} ${path!.slice(0, 80)}`);
        }
      }
      for (const query of queries) {
        for (const [method, path] of routes(s.linkId).filter(([m]) => m === 'GET')) {
          const res = await api(s.t, method!, `${path}${query}`, { key: s.key });
          checkResponse(res, `${method} ${path}${query.slice(0, 80)}`);
        }
      }
      // The link itself survived every odd id (no DELETE matched it by accident).
      const link = await api(s.t, 'GET', `/links/${s.linkId}`, { key: s.key });
      expect(link.status).toBe(200);
      expect(link.body.id).toBe(s.linkId);
    });

    test('odd Authorization and content-type headers', async () => {
      t = await makeTestApp({}, { engine });
      const { key } = await makeKey(t, 'write');
      for (const authorization of [
        'Bearer \u00ff',
        `Bearer ${key}\t`,
        'Bearer%20x',
        `${'Bearer '.repeat(1000)}`,
        `Bearer ${'%00'.repeat(10)}`,
      ]) {
        const res = await api(t, 'GET', '/me', { headers: { authorization } });
        checkResponse(res, authorization.slice(0, 30));
      }
      for (const type of [
        '',
        ';',
        'application/json; charset=latin1',
        'application/json;;;',
        'application',
        '*/*',
        'application/json, text/plain',
      ]) {
        const res = await api(t, 'POST', '/links', {
          key,
          rawBody: '{"destination":"https://g.example"}',
          headers: { 'content-type': type },
        });
        checkResponse(res, `content-type ${type}`);
      }
    });
  });

  describe('an unexpected error', () => {
    blind('answers the generic 500 and logs one line: what, where, never a stack trace', async () => {
      t = await makeTestApp({}, { engine });
      const logged: unknown[][] = [];
      t.deps.log = { info: () => {}, error: (...args: unknown[]) => logged.push(args) };
      // Any failure no mapper knows: here the password check of a sign-in.
      t.deps.verifyPassword = () => {
        throw new TypeError('boom\n    at a line of its own');
      };
      const res = await dash(t, 'POST', '/session', { body: { email: 'ada@example.com', password: 'whatever!' } });
      expectError(res, 500, 'internal_error', null);
      expect(res.body.error.message).toBe('Something went wrong on our side');
      expect(logged).toHaveLength(1);
      // The message alone: an error object would make the console logger print its whole stack.
      expect(logged[0]).toHaveLength(1);
      expect(logged[0]![0]).toMatch(
        /^unhandled error on POST \/api\/app\/session: TypeError: boom at a line of its own \(at .*errors\.test\.ts:\d+:\d+\)?\)$/,
      );
    });
  });
});
