/** /links/{id}/variants: second addresses {short_host}/<slug>/<code> of a link. */
import { afterEach, beforeEach, describe, expect, test } from 'bun:test';
import { LinkModel } from '../../src/modules/links/model';
import { VariantModel } from '../../src/modules/variants/model';
import { type ApiResult, api, makeKey, makeTestApp, T0, type TestApp } from '../helpers/app';
import { engineBlind, forEachEngine } from '../helpers/engines';
import { expectError, expectExactKeys, expectSchema } from '../helpers/schema';

const SHORT_HOST = 'https://sl.test';
const VARIANT_KEYS = ['id', 'code', 'url', 'params', 'clickCount', 'createdAt', 'updatedAt'] as const;

function expectVariant(body: any, slug: string): void {
  expectSchema(VariantModel, body);
  expectExactKeys(body, VARIANT_KEYS);
  for (const k of ['clickCount', 'createdAt', 'updatedAt'] as const) expect(Number.isSafeInteger(body[k])).toBe(true);
  expect(body.url).toBe(`${SHORT_HOST}/${slug}/${body.code}`);
}

let t: TestApp;
let su: string;
let link: any;

async function newLink(slug: string, params: Record<string, string> = {}): Promise<any> {
  const res = await api(t, 'POST', '/links', {
    key: su,
    body: { destination: 'https://example.com/landing', slug, params },
  });
  expect(res.status).toBe(201);
  return res.body;
}

async function createVariant(linkId: string, body: unknown): Promise<ApiResult> {
  return api(t, 'POST', `/links/${linkId}/variants`, { key: su, body });
}

async function listVariants(linkId: string): Promise<any[]> {
  const res = await api(t, 'GET', `/links/${linkId}/variants`, { key: su });
  expect(res.status).toBe(200);
  expect(Array.isArray(res.body)).toBe(true);
  return res.body;
}

forEachEngine((engine) => {
  // Request validation and scopes (`blind`): SQLite only; what is stored, renamed and deleted: both engines.
  const blind = engineBlind(engine);
  beforeEach(async () => {
    t = await makeTestApp({}, { engine });
    su = (await makeKey(t, 'write', { superuser: true })).key;
    link = await newLink('promo', { utm_source: 'base' });
  });
  afterEach(() => t.close());

  describe('POST /links/{id}/variants', () => {
    test('201 Variant with url {short_host}/<slug>/<code>', async () => {
      const res = await createVariant(link.id, { code: 'fb', params: { utm_source: 'facebook', extra: '' } });
      expect(res.status).toBe(201);
      expectVariant(res.body, 'promo');
      const { id, ...rest } = res.body;
      expect(id).toEqual(expect.any(String));
      expect(rest).toEqual({
        code: 'fb',
        url: `${SHORT_HOST}/promo/fb`,
        params: { utm_source: 'facebook', extra: '' },
        clickCount: 0,
        createdAt: T0,
        updatedAt: T0,
      });
    });

    test('params default to {}', async () => {
      const res = await createVariant(link.id, { code: 'plain' });
      expect(res.status).toBe(201);
      expectVariant(res.body, 'promo');
      expect(res.body.params).toEqual({});
    });

    for (const code of ['a', 'Z', '9', 'A-b_9', '-', '_', 'x'.repeat(32), 'MiXeD-Case_123']) {
      test(`code "${code}" is accepted`, async () => {
        const res = await createVariant(link.id, { code });
        expect(res.status).toBe(201);
        expectVariant(res.body, 'promo');
        expect(res.body.code).toBe(code);
      });
    }

    const badCodes: [string, unknown][] = [
      ['33 characters', 'y'.repeat(33)],
      ['empty', ''],
      ['a space', 'a b'],
      ['a slash', 'a/b'],
      ['a dot', 'a.b'],
      ['a question mark', 'a?b'],
      ['a non-ASCII letter', 'ü'],
      ['a trailing newline', 'ab\n'],
      ['a number', 5],
      ['null', null],
      ['missing', undefined],
    ];
    for (const [name, code] of badCodes) {
      blind(`code ${name} -> 400 invalid_request (field code)`, async () => {
        const res = await createVariant(link.id, code === undefined ? { params: {} } : { code });
        expectError(res, 400, 'invalid_request', 'code');
        expect(await listVariants(link.id)).toEqual([]);
      });
    }

    blind('invalid params -> 400 field params', async () => {
      for (const params of [{ a: 1 }, { k: 'v'.repeat(1025) }, { ['k'.repeat(129)]: 'v' }, { 'a\u0000': 'v' }]) {
        expectError(await createVariant(link.id, { code: 'p', params }), 400, 'invalid_request', 'params');
      }
      expect(await listVariants(link.id)).toEqual([]);
    });

    test('a code already used on this link -> 409 conflict (field code)', async () => {
      const first = await createVariant(link.id, { code: 'dup', params: { a: '1' } });
      expect(first.status).toBe(201);
      const again = await createVariant(link.id, { code: 'dup', params: { a: '2' } });
      expectError(again, 409, 'conflict', 'code');
      expect(await listVariants(link.id)).toEqual([first.body]);
    });

    test('the same code is fine on another link, and codes are case-sensitive', async () => {
      const other = await newLink('other');
      const a = await createVariant(link.id, { code: 'same' });
      const b = await createVariant(other.id, { code: 'same' });
      expect([a.status, b.status]).toEqual([201, 201]);
      expect(a.body.id).not.toBe(b.body.id);
      expect(a.body.url).toBe(`${SHORT_HOST}/promo/same`);
      expect(b.body.url).toBe(`${SHORT_HOST}/other/same`);
      const upper = await createVariant(link.id, { code: 'SAME' });
      expect(upper.status).toBe(201);
      expect(upper.body.code).toBe('SAME');
    });

    test('unknown link -> 404 not_found', async () => {
      expectError(await createVariant('lnk_doesnotexist00', { code: 'x' }), 404, 'not_found', null);
    });

    blind('a read key cannot create a variant', async () => {
      const { key } = await makeKey(t, 'read');
      const res = await api(t, 'POST', `/links/${link.id}/variants`, { key, body: { code: 'r' } });
      expectError(res, 403, 'insufficient_scope', null);
      expect(await listVariants(link.id)).toEqual([]);
    });
  });

  describe('GET /links/{id}/variants', () => {
    test('[] for a link without variants', async () => {
      expect(await listVariants(link.id)).toEqual([]);
    });

    test("every variant of the link, oldest first, and only that link's", async () => {
      const other = await newLink('other');
      const created: any[] = [];
      for (const code of ['zeta', 'alpha', 'mid']) {
        t.clock.advance(1_000);
        const res = await createVariant(link.id, { code, params: { v: code } });
        expect(res.status).toBe(201);
        created.push(res.body);
      }
      expect((await createVariant(other.id, { code: 'elsewhere' })).status).toBe(201);
      const list = await listVariants(link.id);
      for (const v of list) expectVariant(v, 'promo');
      expect(list).toEqual(created);
      expect((await listVariants(other.id)).map((v) => v.code)).toEqual(['elsewhere']);
    });

    blind('a read key may list', async () => {
      const v = await createVariant(link.id, { code: 'r' });
      const { key } = await makeKey(t, 'read');
      const res = await api(t, 'GET', `/links/${link.id}/variants`, { key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual([v.body]);
    });

    test('unknown link -> 404 not_found', async () => {
      expectError(await api(t, 'GET', '/links/lnk_doesnotexist00/variants', { key: su }), 404, 'not_found', null);
    });

    test('the link itself carries its variants', async () => {
      const a = await createVariant(link.id, { code: 'a', params: { x: '1' } });
      t.clock.advance(1);
      const b = await createVariant(link.id, { code: 'b' });
      const got = await api(t, 'GET', `/links/${link.id}`, { key: su });
      expect(got.status).toBe(200);
      expectSchema(LinkModel, got.body);
      expect(got.body.variants).toEqual([a.body, b.body]);
      // The link's own params are not changed by its variants.
      expect(got.body.params).toEqual({ utm_source: 'base' });
      const list = await api(t, 'GET', '/links', { key: su });
      expect(list.status).toBe(200);
      expect(list.body.items.find((l: any) => l.id === link.id).variants).toEqual([a.body, b.body]);
    });
  });

  describe('PATCH /links/{id}/variants/{variantId}', () => {
    test('code change: 200, url follows, updatedAt moves, params kept', async () => {
      const v = (await createVariant(link.id, { code: 'old', params: { p: '1' } })).body;
      t.clock.advance(3_000);
      const res = await api(t, 'PATCH', `/links/${link.id}/variants/${v.id}`, { key: su, body: { code: 'new' } });
      expect(res.status).toBe(200);
      expectVariant(res.body, 'promo');
      expect(res.body).toEqual({ ...v, code: 'new', url: `${SHORT_HOST}/promo/new`, updatedAt: T0 + 3_000 });
      expect(await listVariants(link.id)).toEqual([res.body]);
    });

    test('params change: replaced, code kept', async () => {
      const v = (await createVariant(link.id, { code: 'c', params: { p: '1', q: '2' } })).body;
      t.clock.advance(1_000);
      const res = await api(t, 'PATCH', `/links/${link.id}/variants/${v.id}`, {
        key: su,
        body: { params: { r: '3' } },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...v, params: { r: '3' }, updatedAt: T0 + 1_000 });
    });

    test('an empty body or the same code changes nothing', async () => {
      const v = (await createVariant(link.id, { code: 'c', params: { p: '1' } })).body;
      t.clock.advance(1_000);
      const empty = await api(t, 'PATCH', `/links/${link.id}/variants/${v.id}`, { key: su, body: {} });
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual(v);
      const same = await api(t, 'PATCH', `/links/${link.id}/variants/${v.id}`, { key: su, body: { code: 'c' } });
      expect(same.status).toBe(200);
      expect(same.body).toEqual(v);
    });

    test('renaming to a code used by another variant of the link -> 409 conflict', async () => {
      const a = (await createVariant(link.id, { code: 'a' })).body;
      t.clock.advance(1);
      const b = (await createVariant(link.id, { code: 'b' })).body;
      const res = await api(t, 'PATCH', `/links/${link.id}/variants/${b.id}`, { key: su, body: { code: 'a' } });
      expectError(res, 409, 'conflict', 'code');
      expect(await listVariants(link.id)).toEqual([a, b]);
    });

    blind('invalid code or params -> 400 naming the field', async () => {
      const v = (await createVariant(link.id, { code: 'c' })).body;
      for (const code of ['', 'x'.repeat(33), 'a b', 'a/b']) {
        expectError(
          await api(t, 'PATCH', `/links/${link.id}/variants/${v.id}`, { key: su, body: { code } }),
          400,
          'invalid_request',
          'code',
        );
      }
      expectError(
        await api(t, 'PATCH', `/links/${link.id}/variants/${v.id}`, { key: su, body: { params: { a: 1 } } }),
        400,
        'invalid_request',
        'params',
      );
      expect(await listVariants(link.id)).toEqual([v]);
    });

    test('unknown variant id, a variant of another link, unknown link -> 404 not_found', async () => {
      const other = await newLink('other');
      const foreign = (await createVariant(other.id, { code: 'f' })).body;
      expectError(
        await api(t, 'PATCH', `/links/${link.id}/variants/var_doesnotexist00`, { key: su, body: { code: 'x' } }),
        404,
        'not_found',
        null,
      );
      expectError(
        await api(t, 'PATCH', `/links/${link.id}/variants/${foreign.id}`, { key: su, body: { code: 'x' } }),
        404,
        'not_found',
        null,
      );
      expectError(
        await api(t, 'PATCH', `/links/lnk_doesnotexist00/variants/${foreign.id}`, { key: su, body: { code: 'x' } }),
        404,
        'not_found',
        null,
      );
      expect(await listVariants(other.id)).toEqual([foreign]);
    });
  });

  describe('DELETE /links/{id}/variants/{variantId}', () => {
    test('200 {id, deleted:true}; gone from the list and the link; second delete 404', async () => {
      const a = (await createVariant(link.id, { code: 'a' })).body;
      const b = (await createVariant(link.id, { code: 'b' })).body;
      const res = await api(t, 'DELETE', `/links/${link.id}/variants/${a.id}`, { key: su });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: a.id, deleted: true });
      expect(await listVariants(link.id)).toEqual([b]);
      const got = await api(t, 'GET', `/links/${link.id}`, { key: su });
      expect(got.body.variants).toEqual([b]);
      expectError(await api(t, 'DELETE', `/links/${link.id}/variants/${a.id}`, { key: su }), 404, 'not_found', null);
      // The code is free again.
      expect((await createVariant(link.id, { code: 'a' })).status).toBe(201);
    });

    test('a variant of another link, or an unknown one -> 404, and nothing is deleted', async () => {
      const other = await newLink('other');
      const foreign = (await createVariant(other.id, { code: 'f' })).body;
      expectError(
        await api(t, 'DELETE', `/links/${link.id}/variants/${foreign.id}`, { key: su }),
        404,
        'not_found',
        null,
      );
      expectError(
        await api(t, 'DELETE', `/links/${link.id}/variants/var_doesnotexist00`, { key: su }),
        404,
        'not_found',
        null,
      );
      expectError(
        await api(t, 'DELETE', `/links/lnk_doesnotexist00/variants/${foreign.id}`, { key: su }),
        404,
        'not_found',
        null,
      );
      expect(await listVariants(other.id)).toEqual([foreign]);
    });

    blind('a read key cannot delete', async () => {
      const v = (await createVariant(link.id, { code: 'v' })).body;
      const { key } = await makeKey(t, 'read');
      expectError(
        await api(t, 'DELETE', `/links/${link.id}/variants/${v.id}`, { key }),
        403,
        'insufficient_scope',
        null,
      );
      expect(await listVariants(link.id)).toEqual([v]);
    });
  });

  describe('variants and their link', () => {
    test('variant urls follow a slug rename', async () => {
      const v = (await createVariant(link.id, { code: 'ig' })).body;
      expect(v.url).toBe(`${SHORT_HOST}/promo/ig`);
      const renamed = await api(t, 'PATCH', `/links/${link.id}`, { key: su, body: { slug: 'spring' } });
      expect(renamed.status).toBe(200);
      expect(renamed.body.variants).toEqual([{ ...v, url: `${SHORT_HOST}/spring/ig` }]);
      expect(await listVariants(link.id)).toEqual([{ ...v, url: `${SHORT_HOST}/spring/ig` }]);
      const patched = await api(t, 'PATCH', `/links/${link.id}/variants/${v.id}`, {
        key: su,
        body: { params: { a: 'b' } },
      });
      expect(patched.body.url).toBe(`${SHORT_HOST}/spring/ig`);
    });

    test('deleting the link deletes its variants', async () => {
      const v = (await createVariant(link.id, { code: 'x' })).body;
      expect((await api(t, 'DELETE', `/links/${link.id}`, { key: su })).status).toBe(200);
      expectError(await api(t, 'GET', `/links/${link.id}/variants`, { key: su }), 404, 'not_found', null);
      expectError(
        await api(t, 'PATCH', `/links/${link.id}/variants/${v.id}`, { key: su, body: { code: 'y' } }),
        404,
        'not_found',
        null,
      );
    });

    // Elysia's default normalize used to mangle non-object params before validation (see
    // links.test.ts); createApp uses normalize: 'typebox' now.
    blind('params that are not an object -> 400 field params', async () => {
      for (const params of ['a=b', ['a'], 3, true, null]) {
        expectError(await createVariant(link.id, { code: 'p', params }), 400, 'invalid_request', 'params');
      }
      expect(await listVariants(link.id)).toEqual([]);
    });
  });
});
