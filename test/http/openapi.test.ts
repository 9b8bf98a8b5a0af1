/**
 * /api/openapi.json describes every operation of the interface description (those built so
 * far) with summaries, tags, schemas and the bearer scheme; /api/docs renders it from local
 * assets only; /healthz answers.
 */

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { hostname } from 'node:os';
import { api, makeTestApp, type TestApp } from '../helpers/app';
import { engineBlind, forEachEngine } from '../helpers/engines';

let t: TestApp;
let doc: any;

forEachEngine((engine) => {
  // The document and the docs page are built from the routes' schemas, not the store (`blind`:
  // SQLite only); /healthz asks the store and runs on both engines.
  const blind = engineBlind(engine);
  beforeAll(async () => {
    t = await makeTestApp({}, { engine });
    const res = await api(t, 'GET', '/api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    doc = res.body;
  });
  afterAll(() => {
    expect(t.errors).toEqual([]);
    return t.close();
  });

  const OPERATIONS = [
    ['get', '/api/v1/me'],
    ['get', '/api/v1/workspace'],
    ['get', '/api/v1/links'],
    ['post', '/api/v1/links'],
    ['get', '/api/v1/links/{id}'],
    ['patch', '/api/v1/links/{id}'],
    ['delete', '/api/v1/links/{id}'],
    ['get', '/api/v1/links/tags'],
    ['get', '/api/v1/links/count'],
    ['get', '/api/v1/links/{id}/variants'],
    ['post', '/api/v1/links/{id}/variants'],
    ['patch', '/api/v1/links/{id}/variants/{variantId}'],
    ['delete', '/api/v1/links/{id}/variants/{variantId}'],
    ['get', '/api/v1/projects'],
    ['post', '/api/v1/projects'],
    ['patch', '/api/v1/projects/{id}'],
    ['delete', '/api/v1/projects/{id}'],
    ['get', '/api/v1/workspace/stats'],
    ['get', '/api/v1/links/{id}/stats'],
    ['get', '/api/v1/links/{id}/clicks'],
    ['get', '/api/v1/links/{id}/export.csv'],
    ['get', '/api/v1/links/{id}/qr.svg'],
    ['post', '/api/v1/links/bulk/preview'],
    ['post', '/api/v1/links/bulk/create'],
    ['post', '/api/v1/links/bulk/params'],
    ['post', '/api/v1/links/bulk/project'],
  ] as const;

  /** POSTs that create answer 201; these POSTs change or create nothing new and answer 200. */
  const POST_200 = new Set(['/api/v1/links/bulk/preview', '/api/v1/links/bulk/params', '/api/v1/links/bulk/project']);
  /** Operations whose success body is not JSON, with its media type. */
  const NOT_JSON: Record<string, string> = {
    '/api/v1/links/{id}/export.csv': 'text/csv',
    '/api/v1/links/{id}/qr.svg': 'image/svg+xml',
  };

  const WITH_BODY = new Set([
    'post /api/v1/links',
    'patch /api/v1/links/{id}',
    'post /api/v1/links/{id}/variants',
    'patch /api/v1/links/{id}/variants/{variantId}',
    'post /api/v1/projects',
    'patch /api/v1/projects/{id}',
    'post /api/v1/links/bulk/preview',
    'post /api/v1/links/bulk/create',
    'post /api/v1/links/bulk/params',
    'post /api/v1/links/bulk/project',
  ]);

  function op(method: string, path: string): any {
    return doc.paths?.[path]?.[method];
  }

  function jsonSchema(content: any): any {
    return content?.['application/json']?.schema;
  }

  /** Follows a local $ref, if any. */
  function deref(schema: any): any {
    if (schema?.$ref) {
      const name = String(schema.$ref).replace('#/components/schemas/', '');
      return doc.components?.schemas?.[name];
    }
    return schema;
  }

  /** The allowed values of an enum, written either as `enum` or as a union of `const`s. */
  function enumOf(schema: any): unknown[] {
    return schema.enum ?? schema.anyOf?.map((a: any) => a.const ?? a.enum?.[0]);
  }

  function expectErrorSchema(schema: any): void {
    const s = deref(schema);
    expect(s.type).toBe('object');
    expect(s.required).toEqual(['error']);
    const inner = deref(s.properties.error);
    expect(inner.type).toBe('object');
    expect([...inner.required].sort()).toEqual(['code', 'field', 'message']);
    expect(inner.properties.code.type).toBe('string');
    expect(inner.properties.message.type).toBe('string');
    const fieldTypes = inner.properties.field.type ?? inner.properties.field.anyOf?.map((a: any) => a.type);
    expect([...fieldTypes].sort()).toEqual(['null', 'string']);
  }

  describe('GET /api/openapi.json', () => {
    blind('is an OpenAPI 3.1 document with title, version and servers', () => {
      expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
      expect(doc.info.title).toBe('Slink API');
      expect(doc.info.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(doc.servers).toEqual([{ url: 'https://app.sl.test' }]);
    });

    blind('declares the bearer security scheme and applies it', () => {
      const schemes = doc.components.securitySchemes;
      const bearerNames = Object.entries<any>(schemes)
        .filter(([, s]) => s.type === 'http' && s.scheme === 'bearer')
        .map(([n]) => n);
      expect(bearerNames.length).toBe(1);
      for (const [method, path] of OPERATIONS) {
        const security = op(method, path)?.security ?? doc.security;
        expect({ op: `${method} ${path}`, security }).toEqual({
          op: `${method} ${path}`,
          security: [{ [bearerNames[0]!]: [] }],
        });
      }
    });

    blind('every operation built so far is present, with a summary, a declared tag and response schemas', () => {
      const declaredTags = new Set(doc.tags.map((tag: { name: string }) => tag.name));
      for (const [method, path] of OPERATIONS) {
        const o = op(method, path);
        const label = `${method.toUpperCase()} ${path}`;
        expect({ label, present: o !== undefined }).toEqual({ label, present: true });
        expect(typeof o.summary).toBe('string');
        expect(o.summary.length).toBeGreaterThan(3);
        expect(o.tags.length).toBeGreaterThanOrEqual(1);
        for (const tag of o.tags)
          expect({ label, tag, declared: declaredTags.has(tag) }).toEqual({ label, tag, declared: true });
        const success = Object.keys(o.responses).filter((s) => s.startsWith('2'));
        expect({ label, success }).toEqual({
          label,
          success: [method === 'post' && !POST_200.has(path) ? '201' : '200'],
        });
        const content = o.responses[success[0]!].content;
        const hasSchema = NOT_JSON[path]
          ? content?.[NOT_JSON[path]!]?.schema !== undefined
          : jsonSchema(content) !== undefined;
        expect({ label, hasSchema }).toEqual({ label, hasSchema: true });
        // Every operation documents 401 and 429; changes document 403.
        expect(Object.keys(o.responses)).toEqual(
          expect.arrayContaining(method === 'get' ? ['401', '429'] : ['401', '403', '429']),
        );
        // Operations with a JSON body document it, the others do not.
        const key = `${method} ${path}`;
        if (WITH_BODY.has(key)) {
          expect({ label, required: o.requestBody?.required }).toEqual({ label, required: true });
          const body = deref(jsonSchema(o.requestBody.content));
          expect(body.type).toBe('object');
          expect(Object.keys(body.properties).length).toBeGreaterThan(0);
        } else {
          expect({ label, requestBody: o.requestBody }).toEqual({ label, requestBody: undefined });
        }
        // Path parameters are declared.
        for (const name of path.match(/\{(\w+)\}/g) ?? []) {
          const param = (o.parameters ?? []).find((p: any) => p.in === 'path' && `{${p.name}}` === name);
          expect({ label, name, declared: param !== undefined }).toEqual({ label, name, declared: true });
        }
      }
    });

    blind('operations appear under their own tags', () => {
      const tagOf = (method: string, path: string) => op(method, path).tags;
      expect(tagOf('get', '/api/v1/me')).toEqual(['Identity']);
      expect(tagOf('post', '/api/v1/links')).toEqual(['Links']);
      expect(tagOf('post', '/api/v1/links/{id}/variants')).toEqual(['Variants']);
      expect(tagOf('delete', '/api/v1/projects/{id}')).toEqual(['Projects']);
      expect(tagOf('post', '/api/v1/links/bulk/create')).toEqual(['Bulk']);
      expect(tagOf('get', '/api/v1/links/{id}/stats')).toEqual(['Analytics']);
      expect(tagOf('get', '/api/v1/links/{id}/qr.svg')).toEqual(['Links']);
    });

    blind('documents nothing outside /api/v1 and /api/app (no docs assets, no health check)', () => {
      for (const path of Object.keys(doc.paths)) expect(path).toMatch(/^\/api\/(v1|app)\//);
    });

    blind('error responses carry the Error schema', () => {
      let count = 0;
      for (const [method, path] of OPERATIONS) {
        for (const [status, response] of Object.entries<any>(op(method, path).responses)) {
          if (!/^[45]/.test(status)) continue;
          expectErrorSchema(jsonSchema(response.content));
          count++;
        }
      }
      expect(count).toBeGreaterThan(OPERATIONS.length * 2);
    });

    blind('response schemas match the resources of the description', () => {
      const link = deref(jsonSchema(op('post', '/api/v1/links').responses['201'].content));
      expect([...link.required].sort()).toEqual(
        [
          'id',
          'slug',
          'shortUrl',
          'domain',
          'destination',
          'title',
          'tags',
          'status',
          'availability',
          'params',
          'variants',
          'projectId',
          'projectName',
          'clickCount',
          'uniqueCount',
          'botCount',
          'expiresAt',
          'clickLimit',
          'fallbackUrl',
          'redirectStatus',
          'forwardQuery',
          'passwordProtected',
          'rules',
          'preview',
          'lastClickedAt',
          'fallbackCount',
          'imported',
          'createdAt',
          'updatedAt',
        ].sort(),
      );
      expect(link.properties.fallbackCount.description).toContain('fallbackUrl');
      expect(link.properties.imported.description).toContain('imported');
      expect(enumOf(link.properties.status)).toEqual(['active', 'paused', 'archived']);
      expect(enumOf(link.properties.availability)).toEqual(['live', 'paused', 'expired', 'limit']);
      expect(link.properties.availability.description).toContain('first of paused, expired, limit');
      expect(link.properties.redirectStatus.description).toContain('Browsers cache a 301 or 308');
      expect(enumOf(link.properties.redirectStatus)).toEqual([301, 302, 307, 308]);
      expect(link.properties.fallbackUrl.description).toContain('instead of the 410 page');
      expect(link.properties.forwardQuery.description).toContain('keeps their value');
      expect(link.properties.passwordProtected.description).toContain('Read-only');
      expect(link.properties.rules.description).toContain('first whose conditions all hold');
      expect(link.properties.rules.maxItems).toBe(20);
      const create = deref(jsonSchema(op('post', '/api/v1/links').requestBody.content));
      expect(create.properties.password.description).toContain('never returned');
      // A password and a preview together: the password wins, and every description says so.
      expect(create.properties.password.description).toContain('It wins over a `preview`');
      expect(create.properties.preview.description).toContain('never while the link has a password');
      expect(link.properties.preview.description).toContain('never while the link has a password');
      expect(link.properties.password).toBeUndefined();
      const list = deref(jsonSchema(op('get', '/api/v1/links').responses['200'].content));
      expect([...list.required].sort()).toEqual(['cursor', 'items']);
      const variant = deref(jsonSchema(op('post', '/api/v1/links/{id}/variants').responses['201'].content));
      expect([...variant.required].sort()).toEqual([
        'clickCount',
        'code',
        'createdAt',
        'id',
        'params',
        'updatedAt',
        'url',
      ]);
      const project = deref(jsonSchema(op('post', '/api/v1/projects').responses['201'].content));
      expect([...project.required].sort()).toEqual(['createdAt', 'id', 'linkCount', 'name', 'updatedAt']);
      const projects = deref(jsonSchema(op('get', '/api/v1/projects').responses['200'].content));
      expect([...projects.required].sort()).toEqual(['projects', 'totalCount', 'unfiledCount']);
      const me = deref(jsonSchema(op('get', '/api/v1/me').responses['200'].content));
      expect([...me.required].sort()).toEqual(['account', 'key', 'scope']);
      const workspace = deref(jsonSchema(op('get', '/api/v1/workspace').responses['200'].content));
      expect([...workspace.required].sort()).toEqual(['appHost', 'hostname', 'name', 'shortHost']);
      expect(op('get', '/api/v1/links/{id}/variants').responses['200'].content['application/json'].schema.type).toBe(
        'array',
      );
    });

    blind('the key scopes: read, write and create, each described', () => {
      const me = deref(jsonSchema(op('get', '/api/v1/me').responses['200'].content));
      for (const scope of [me.properties.scope, me.properties.key.properties.scope]) {
        expect(scope.enum).toEqual(['read', 'write', 'create']);
        expect(scope.description).toContain('create: only POST /api/v1/links and GET /api/v1/me');
      }
    });

    blind('documents the length limits', () => {
      const create = deref(jsonSchema(op('post', '/api/v1/links').requestBody.content));
      expect(create.required).toEqual(['destination']);
      const title = create.properties.title;
      const titleMax = title.maxLength ?? title.anyOf?.find((a: any) => a.type === 'string')?.maxLength;
      expect(titleMax).toBe(500);
      expect(create.properties.tags.maxItems).toBe(50);
      expect(create.properties.tags.items.maxLength).toBe(64);
      expect(create.properties.params.maxProperties).toBe(50);
      expect(Object.values<any>(create.properties.params.patternProperties)[0].maxLength).toBe(1024);
      expect(create.properties.params.description).toContain('128'); // key length
      expect(create.properties.destination.description).toContain('2048');
      expect(create.properties.slug.description).toContain('64');
      const update = deref(jsonSchema(op('patch', '/api/v1/links/{id}').requestBody.content));
      expect(update.required ?? []).toEqual([]);
      expect(enumOf(update.properties.status)).toEqual(['active', 'paused', 'archived']);
      const variant = deref(jsonSchema(op('post', '/api/v1/links/{id}/variants').requestBody.content));
      expect(variant.required).toEqual(['code']);
      expect(variant.properties.code.pattern).toBe('^[A-Za-z0-9_-]{1,32}$');
      const project = deref(jsonSchema(op('post', '/api/v1/projects').requestBody.content));
      expect(project.required).toEqual(['name']);
      const nameLimit =
        project.properties.name.maxLength ??
        Number(/(\d+) characters/.exec(project.properties.name.description ?? '')?.[1]);
      expect(nameLimit).toBe(100);
    });

    blind('documents the GET /links query parameters and the page size limit', () => {
      const params = op('get', '/api/v1/links').parameters.filter((p: any) => p.in === 'query');
      expect(params.map((p: any) => p.name).sort()).toEqual([
        'availability',
        'cursor',
        'domain',
        'limit',
        'project',
        'q',
        'sort',
        'status',
        'tag',
      ]);
      expect(enumOf(params.find((p: any) => p.name === 'availability').schema)).toEqual([
        'live',
        'paused',
        'expired',
        'limit',
      ]);
      // The count takes the list's filters, and no paging or sort.
      const countParams = op('get', '/api/v1/links/count').parameters.filter((p: any) => p.in === 'query');
      expect(countParams.map((p: any) => p.name).sort()).toEqual([
        'availability',
        'domain',
        'project',
        'q',
        'status',
        'tag',
      ]);
      const count = deref(jsonSchema(op('get', '/api/v1/links/count').responses['200'].content));
      expect(count.required).toEqual(['count']);
      const limit = params.find((p: any) => p.name === 'limit');
      const limitSchema = limit.schema.anyOf?.find((a: any) => a.type === 'integer') ?? limit.schema;
      expect(limitSchema.maximum).toBe(100);
      expect(limitSchema.minimum).toBe(1);
      const sort = params.find((p: any) => p.name === 'sort');
      expect(enumOf(sort.schema)).toEqual(['created', 'oldest', 'clicks', 'updated']);
    });

    blind('documents the variant breakdowns and topLinks of link and workspace statistics', () => {
      const link = deref(jsonSchema(op('get', '/api/v1/links/{id}/stats').responses['200'].content));
      const linkVariant = link.properties.breakdowns.properties.variant;
      expect([...linkVariant.items.required].sort()).toEqual(['clicks', 'value']);
      expect(linkVariant.description).toContain('`""` counts the clicks on the link itself');
      expect(linkVariant.description).toContain('adds up to totals.clicks');
      const workspace = deref(jsonSchema(op('get', '/api/v1/workspace/stats').responses['200'].content));
      const wsVariant = workspace.properties.breakdowns.properties.variant;
      expect([...wsVariant.items.required].sort()).toEqual(['clicks', 'code', 'linkId', 'value']);
      expect(wsVariant.items.properties.value.description).toContain('<slug>/<code>');
      expect([...workspace.properties.topLinks.items.required].sort()).toEqual(['clicks', 'id', 'slug', 'title']);
    });

    blind('is served without a key and is not rate limited', async () => {
      const res = await api(t, 'GET', '/api/openapi.json');
      expect(res.status).toBe(200);
      expect(res.body.paths['/api/v1/me']).toBeDefined();
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    });
  });

  /** The dashboard's endpoints: [method, path, success status, answers JSON, takes a JSON body]. */
  const APP_OPERATIONS = [
    ['get', '/api/app/setup', '200', true, false],
    ['post', '/api/app/setup', '201', true, true],
    ['post', '/api/app/session', '200', true, true],
    ['post', '/api/app/invite/status', '200', true, true],
    ['post', '/api/app/invite', '201', true, true],
    ['get', '/api/app/session', '200', true, false],
    ['delete', '/api/app/session', '204', false, false],
    ['get', '/api/app/sessions', '200', true, false],
    ['delete', '/api/app/sessions', '204', false, false],
    ['delete', '/api/app/sessions/{id}', '204', false, false],
    ['post', '/api/app/password', '204', false, true],
    ['get', '/api/app/keys', '200', true, false],
    ['get', '/api/app/keys/all', '200', true, false],
    ['post', '/api/app/keys', '201', true, true],
    ['delete', '/api/app/keys/{id}', '204', false, false],
    ['delete', '/api/app/links/{id}', '204', false, true],
    ['get', '/api/app/accounts', '200', true, false],
    ['post', '/api/app/accounts', '201', true, true],
    ['patch', '/api/app/accounts/{id}', '200', true, true],
    ['get', '/api/app/audit', '200', true, false],
    ['post', '/api/app/imports', '202', true, true],
    ['get', '/api/app/imports', '200', true, false],
    ['get', '/api/app/imports/{id}', '200', true, false],
    ['delete', '/api/app/imports/{id}', '200', true, false],
    ['get', '/api/app/imports/{id}/report.csv', '200', false, false],
  ] as const;

  /** Reachable without a session: no security requirement. */
  const DOORS = new Set([
    'get /api/app/setup',
    'post /api/app/setup',
    'post /api/app/session',
    'post /api/app/invite/status',
    'post /api/app/invite',
  ]);

  describe('the dashboard endpoints in /api/openapi.json', () => {
    blind('declare the session cookie scheme and the App tag', () => {
      expect(doc.components.securitySchemes.session).toMatchObject({
        type: 'apiKey',
        in: 'cookie',
        name: '__Host-slink_session',
      });
      expect(doc.tags.map((tag: { name: string }) => tag.name)).toContain('App');
    });

    blind('every operation is there under App, with its security, success answer, errors and body', () => {
      const documented = Object.entries<any>(doc.paths)
        .filter(([path]) => path.startsWith('/api/app/'))
        .flatMap(([path, ops]) => Object.keys(ops).map((method) => `${method} ${path}`))
        .sort();
      expect(documented).toEqual(APP_OPERATIONS.map(([method, path]) => `${method} ${path}`).sort());
      for (const [method, path, success, json, body] of APP_OPERATIONS) {
        const label = `${method} ${path}`;
        const o = op(method, path);
        expect({ label, tags: o.tags, summary: typeof o.summary }).toEqual({ label, tags: ['App'], summary: 'string' });
        expect({ label, security: o.security }).toEqual({ label, security: DOORS.has(label) ? [] : [{ session: [] }] });
        const successes = Object.keys(o.responses).filter((s) => s.startsWith('2'));
        expect({ label, successes }).toEqual({ label, successes: [success] });
        const answer = o.responses[success];
        expect({ label, json: jsonSchema(answer.content) !== undefined }).toEqual({ label, json });
        if (!json) expect({ label, content: answer.content }).toEqual({ label, content: undefined });
        const errorStatuses = Object.keys(o.responses).filter((s) => /^[45]/.test(s));
        if (!DOORS.has(label))
          expect({ label, has403: errorStatuses.includes('403') }).toEqual({ label, has403: true });
        for (const status of errorStatuses) expectErrorSchema(jsonSchema(o.responses[status].content));
        expect({ label, body: o.requestBody !== undefined }).toEqual({ label, body });
        if (body) expect(deref(jsonSchema(o.requestBody.content)).type).toBe('object');
      }
    });

    blind('the bodies name their fields', () => {
      const required = (method: string, path: string) =>
        [...(deref(jsonSchema(op(method, path).requestBody.content)).required ?? [])].sort();
      expect(required('post', '/api/app/setup')).toEqual(['email', 'password', 'token']);
      expect(required('post', '/api/app/session')).toEqual(['email', 'password']);
      expect(required('post', '/api/app/invite/status')).toEqual(['token']);
      expect(required('post', '/api/app/invite')).toEqual(['password', 'token']);
      expect(required('post', '/api/v1/invites')).toEqual(['email', 'role']);
      expect(required('post', '/api/app/password')).toEqual(['currentPassword', 'newPassword']);
      expect(required('post', '/api/app/keys')).toEqual(['scope']);
      expect(required('delete', '/api/app/links/{id}')).toEqual(['slug']);
      // Role, projects and status: each optional, absent ones unchanged.
      expect(required('patch', '/api/app/accounts/{id}')).toEqual([]);
      expect(required('post', '/api/app/accounts')).toEqual(['email']);
      expect(required('post', '/api/v1/accounts')).toEqual(['email']);
      const keys = deref(jsonSchema(op('get', '/api/app/keys').responses['200'].content));
      expect([...deref(keys.properties.items.items).required].sort()).toEqual(
        [
          'createdAt',
          'domains',
          'expiresAt',
          'id',
          'lastUsedAt',
          'name',
          'prefix',
          'projects',
          'revokedAt',
          'scope',
          'status',
        ].sort(),
      );
    });
  });

  describe('GET /api/docs', () => {
    blind('is an HTML page that loads only local assets, which are served', async () => {
      const res = await api(t, 'GET', '/api/docs');
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      const html = res.text;
      expect(html).toContain('<html');
      expect(html).toContain('swagger-ui');
      const scripts = [...html.matchAll(/<script[^>]*\bsrc\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]!);
      const styles = [...html.matchAll(/<link[^>]*\bhref\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]!);
      expect(scripts.length).toBeGreaterThanOrEqual(1);
      expect(styles.length).toBeGreaterThanOrEqual(1);
      // Nothing from another origin: no absolute or protocol-relative URLs anywhere in the page.
      expect(html).not.toMatch(/(src|href)\s*=\s*["']\s*(https?:)?\/\//i);
      expect(html).not.toMatch(/@import|url\(\s*["']?(https?:)?\/\//i);
      expect(html).not.toMatch(/unpkg|jsdelivr|cdnjs|googleapis/i);
      const docsUrl = 'http://localhost/api/docs';
      for (const [url, type, minSize] of [
        ...scripts.map((s) => [s, 'javascript', 500_000] as const),
        ...styles.map((s) => [s, 'text/css', 50_000] as const),
      ]) {
        const resolved = new URL(url, docsUrl);
        expect(resolved.origin).toBe('http://localhost');
        const asset = await t.app.handle(new Request(resolved.href));
        expect({ url, status: asset.status }).toEqual({ url, status: 200 });
        expect(asset.headers.get('content-type')).toContain(type);
        const body = await asset.text();
        expect(body.length).toBeGreaterThan(minSize);
      }
    });

    blind('points the UI at the spec URL that actually serves the document', async () => {
      const res = await api(t, 'GET', '/api/docs');
      const match = /"url"\s*:\s*"([^"]+)"/.exec(res.text);
      expect(match).not.toBeNull();
      const specUrl = new URL(match![1]!, 'http://localhost/api/docs');
      expect(specUrl.origin).toBe('http://localhost');
      const spec = await t.app.handle(new Request(specUrl.href));
      expect(spec.status).toBe(200);
      expect(((await spec.json()) as any).openapi).toMatch(/^3\.1/);
    });

    blind('the assets are the swagger-ui bundle and stylesheet', async () => {
      const js = await t.app.handle(new Request('http://localhost/api/docs/assets/swagger-ui-bundle.js'));
      expect(js.status).toBe(200);
      expect(await js.text()).toContain('SwaggerUIBundle');
      const css = await t.app.handle(new Request('http://localhost/api/docs/assets/swagger-ui.css'));
      expect(css.status).toBe(200);
      expect(await css.text()).toContain('.swagger-ui');
      const missing = await api(t, 'GET', '/api/docs/assets/nope.js');
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('not_found');
    });
  });

  describe('GET /healthz', () => {
    test('answers 200 {"status":"ok","node":...} without a key', async () => {
      const res = await api(t, 'GET', '/healthz');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok', node: expect.any(String) });
      expect(res.text).toBe(JSON.stringify({ status: 'ok', node: hostname() }));
      expect(res.headers.get('content-type')).toContain('application/json');
    });

    test('answers 503 when the database is gone', async () => {
      const other = await makeTestApp({}, { engine });
      try {
        await other.deps.stores.close();
        const res = await api(other, 'GET', '/healthz');
        expect(res.status).toBe(503);
        // A SQLite file that cannot answer is unavailable; a database server out of reach is a
        // degraded service (redirects answer, clicks wait: docs/operations.md, "Health and logs").
        expect(res.body).toEqual(
          engine === 'sqlite'
            ? { status: 'unavailable', node: expect.any(String) }
            : { status: 'degraded', reason: 'database unreachable', node: expect.any(String) },
        );
        expect(other.errors).toEqual([]);
      } finally {
        await other.close();
      }
    });
  });
});
