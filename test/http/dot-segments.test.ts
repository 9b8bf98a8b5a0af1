/**
 * Dot segments in API paths (docs/behaviour.md, "Rules worth knowing"): Bun resolves `..` and `.` (also
 * percent-encoded) in the request target before the app sees it, so these requests go through a
 * real listening server as raw HTTP, exactly as a client would send them.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { api, makeKey, makeTestApp, type TestApp } from '../helpers/app';
import { forEachEngine } from '../helpers/engines';
import { type RawResponse, rawRequest } from '../helpers/raw-http';

let t: TestApp;
let server: ReturnType<typeof Bun.serve>;
let key: string;
let linkId: string;
let variantId: string;

/** Sends one raw request line (the target as written, never normalised by a client library). */
function raw(method: string, target: string): Promise<RawResponse> {
  return rawRequest(server.port!, [
    `${method} ${target} HTTP/1.1`,
    'Host: localhost',
    `Authorization: Bearer ${key}`,
    'Connection: close',
  ]);
}

forEachEngine((engine) => {
  beforeAll(async () => {
    t = await makeTestApp({}, { engine });
    ({ key } = await makeKey(t, 'write'));
    const link = await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/a' } });
    linkId = link.body.id;
    const variant = await api(t, 'POST', `/links/${linkId}/variants`, { key, body: { code: 'x' } });
    expect(variant.status).toBe(201);
    variantId = variant.body.id;
    server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => t.app.fetch(request) });
  });

  afterAll(() => {
    server.stop(true);
    return t.close();
  });

  describe('a dot segment never reaches another resource', () => {
    test.each([
      ['DELETE', '/api/v1/links/{id}/variants/..'],
      ['DELETE', '/api/v1/links/{id}/variants/%2e%2e'],
      ['DELETE', '/api/v1/links/{id}/variants/%2E.'],
      ['DELETE', '/api/v1/links/{id}/variants/{variant}/..'],
      ['PATCH', '/api/v1/links/{id}/.'],
      ['GET', '/api/v1/links/{id}/'],
      ['GET', '/api/v1/links/{id}/variants/{variant}/%2e'],
    ])('%s %s is 404 not_found with the error body', async (method, template) => {
      const target = template.replace('{id}', linkId).replace('{variant}', variantId);
      const res = await raw(method, target);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
      expect(typeof res.body.error.message).toBe('string');
    });

    test('the link and its variant are still there', async () => {
      const link = await api(t, 'GET', `/links/${linkId}`, { key });
      expect(link.status).toBe(200);
      expect(link.body.variants.map((v: { id: string }) => v.id)).toEqual([variantId]);
    });

    test('the same paths without the dot segment still work', async () => {
      expect((await raw('GET', `/api/v1/links/${linkId}`)).status).toBe(200);
    });
  });
});
