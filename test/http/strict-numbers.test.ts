/**
 * Numbers in queries and bodies (docs/behaviour.md, "Rules worth knowing"): a query integer is
 * digits only, a body number stays within its documented bounds, a window never starts before
 * 1970. Each refusal is 400 invalid_request naming the field.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { api, makeKey, makeTestApp, type TestApp } from '../helpers/app';
import { forEachEngine } from '../helpers/engines';

let t: TestApp;
let key: string;
let linkId: string;

forEachEngine((engine) => {
  beforeAll(async () => {
    t = await makeTestApp({}, { engine });
    ({ key } = await makeKey(t, 'write'));
    const link = await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/a' } });
    expect(link.status).toBe(201);
    linkId = link.body.id;
  });
  afterAll(() => t.close());

  function expectRefused(res: { status: number; body: any }, field: string) {
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.field).toBe(field);
    expect(res.body.error.message).toContain(field);
  }

  describe('query integers are digits only', () => {
    test.each(['0x100', '1e3', ' 256', '256 ', '+256', '256.0', '-1', '0b11', '', '9'.repeat(16)])(
      'size=%p on the QR code is 400 naming size',
      async (size) => {
        expectRefused(await api(t, 'GET', `/links/${linkId}/qr.svg?size=${encodeURIComponent(size)}`, { key }), 'size');
      },
    );

    test.each(['0x10', '1e1', ' 10', '10.5'])(
      'limit=%p on the links list and the clicks list is 400 naming limit',
      async (limit) => {
        const q = `limit=${encodeURIComponent(limit)}`;
        expectRefused(await api(t, 'GET', `/links?${q}`, { key }), 'limit');
        expectRefused(await api(t, 'GET', `/links/${linkId}/clicks?${q}`, { key }), 'limit');
      },
    );

    test('digits still work, and the range is still checked', async () => {
      const qr = await api(t, 'GET', `/links/${linkId}/qr.svg?size=256`, { key });
      expect(qr.status).toBe(200);
      expect(qr.text).toContain('width="256"');
      const list = await api(t, 'GET', '/links?limit=10', { key });
      expect(list.status).toBe(200);
      expect(list.body.items.length).toBe(1);
      expectRefused(await api(t, 'GET', `/links/${linkId}/qr.svg?size=5`, { key }), 'size');
      expectRefused(await api(t, 'GET', '/links?limit=101', { key }), 'limit');
    });
  });

  describe('a statistics window never starts before 1970', () => {
    test('to=0 with the default range is the first ms of the epoch, not a 1969 window', async () => {
      const res = await api(t, 'GET', `/links/${linkId}/stats?to=0`, { key });
      expect(res.status).toBe(200);
      expect(res.body.range).toEqual({ from: 0, to: 3_599_999, bots: false });
    });
  });

  describe('body numbers stay within their bounds', () => {
    test.each([
      ['clickLimit', 1e308],
      ['clickLimit', 2 ** 53],
      ['clickLimit', 0],
      ['clickLimit', 1.5],
      ['expiresAt', 1e308],
      ['expiresAt', 253_402_300_800_000],
      ['expiresAt', -1],
    ])('%s = %p is 400 naming the field, on create and on update', async (field, value) => {
      expectRefused(
        await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/b', [field]: value } }),
        field,
      );
      expectRefused(await api(t, 'PATCH', `/links/${linkId}`, { key, body: { [field]: value } }), field);
    });

    test('the largest allowed values are kept exactly', async () => {
      const res = await api(t, 'PATCH', `/links/${linkId}`, {
        key,
        body: { clickLimit: Number.MAX_SAFE_INTEGER, expiresAt: 253_402_300_799_999 },
      });
      expect(res.status).toBe(200);
      expect([res.body.clickLimit, res.body.expiresAt]).toEqual([Number.MAX_SAFE_INTEGER, 253_402_300_799_999]);
    });
  });
});
