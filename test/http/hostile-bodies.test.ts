/**
 * Hostile JSON bodies (docs/behaviour.md, "Rules worth knowing"): nesting beyond 16 levels is 400
 * before validation runs, and a chunked body is held to the same 1 MiB as one with a
 * Content-Length. Sent through a real listening server, so chunked transfer is real.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { MAX_BODY_BYTES, MAX_JSON_DEPTH, MAX_JSON_VALUES } from '../../src/http/json-body';
import { api, makeKey, makeTestApp, type TestApp } from '../helpers/app';
import { forEachEngine } from '../helpers/engines';

let t: TestApp;
let key: string;
let server: ReturnType<typeof Bun.serve>;
let linkId: string;

/** JSON text of `levels` nested objects or arrays around a string, built as text (JSON.stringify would overflow). */
function nest(levels: number, asObject: boolean): string {
  return `${(asObject ? '{"a":' : '[').repeat(levels)}"x"${(asObject ? '}' : ']').repeat(levels)}`;
}

/** A link body whose `field` holds `json` as written. */
const withField = (field: string, json: string) => `{"destination":"https://example.com/deep","${field}":${json}}`;

/** POSTs raw JSON text (not re-encoded) to the listening server. */
async function post(path: string, text: string, chunked = false) {
  const body = chunked
    ? new ReadableStream<Uint8Array>({
        start(controller) {
          const bytes = new TextEncoder().encode(text);
          for (let i = 0; i < bytes.length; i += 64 * 1024) controller.enqueue(bytes.slice(i, i + 64 * 1024));
          controller.close();
        },
      })
    : text;
  const res = await fetch(`http://127.0.0.1:${server.port}/api/v1${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, body: (await res.json()) as any };
}

forEachEngine((engine) => {
  beforeAll(async () => {
    t = await makeTestApp({}, { engine });
    ({ key } = await makeKey(t, 'write'));
    server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (request) => t.app.fetch(request) });
    const link = await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/a' } });
    linkId = link.body.id;
  });
  afterAll(() => {
    server.stop(true);
    return t.close();
  });

  describe('nesting', () => {
    test.each([
      ['params, objects 20,000 deep', withField('params', nest(20_000, true))],
      ['tags, arrays 20,000 deep', withField('tags', nest(20_000, false))],
      ['a param value, arrays 5,000 deep', withField('params', `{"a":${nest(5_000, false)}}`)],
      ['title, arrays 200,000 deep', withField('title', nest(200_000, false))],
      ['an unknown field, one level too deep', withField('extra', nest(MAX_JSON_DEPTH, true))],
    ])('%s: 400 invalid_request naming body, nothing created', async (_, text) => {
      const res = await post('/links', text);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: 'invalid_request',
        message: `Request body nests arrays and objects deeper than ${MAX_JSON_DEPTH}`,
        field: 'body',
      });
      const list = await api(t, 'GET', '/links', { key });
      expect(list.body.items.map((l: { id: string }) => l.id)).toEqual([linkId]);
    });

    test('brackets inside strings (escaped quotes too) are text, not nesting', async () => {
      const title = `${'['.repeat(40)}"\\"{{{${'{'.repeat(40)}`;
      const res = await post('/links', JSON.stringify({ destination: 'https://example.com/s', title }));
      expect(res.status).toBe(201);
      expect(res.body.title).toBe(title);
      await api(t, 'DELETE', `/links/${res.body.id}`, { key });
    });

    test('a body nested exactly 16 deep passes (an unknown field is ignored)', async () => {
      const res = await post('/links', withField('extra', nest(MAX_JSON_DEPTH - 1, false)));
      expect(res.status).toBe(201);
      await api(t, 'DELETE', `/links/${res.body.id}`, { key });
    });

    test('more than 5,000 values (a 50,000-key params object, 10,000 tags) is 400 before validation; 5,000 pass the guard', async () => {
      for (const text of [
        withField(
          'params',
          JSON.stringify(Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, 'v']))),
        ),
        withField('tags', JSON.stringify(Array.from({ length: 10_000 }, (_, i) => `t${i}`))),
      ]) {
        const res = await post('/links', text);
        expect(res.status).toBe(400);
        expect(res.body.error).toEqual({
          code: 'invalid_request',
          message: `Request body holds more than ${MAX_JSON_VALUES} values`,
          field: 'body',
        });
      }
      // At the limit the body is read and validated as usual: too many tags for a link, named.
      const atLimit = await post(
        '/links',
        withField('tags', JSON.stringify(Array.from({ length: 4_998 }, (_, i) => `t${i}`))),
      );
      expect(atLimit.status).toBe(400);
      expect(atLimit.body.error.field).toBe('tags');
    });

    test('malformed JSON is 400 naming body', async () => {
      const res = await post('/links', '{"destination": "https://example.com/x",');
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({
        code: 'invalid_request',
        message: 'Request body is not valid JSON',
        field: 'body',
      });
    });
  });

  describe('size', () => {
    const big = (bytes: number) => JSON.stringify({ destination: 'https://example.com/big', title: 'x'.repeat(bytes) });

    test('a chunked body over 1 MiB is 413 payload_too_large, like one with a Content-Length', async () => {
      for (const chunked of [true, false]) {
        const res = await post('/links', big(MAX_BODY_BYTES + 500 * 1024), chunked);
        expect(res.status).toBe(413);
        expect(res.body.error.code).toBe('payload_too_large');
      }
    });

    test('a chunked body under the limit is read as usual', async () => {
      const res = await post(
        '/links',
        JSON.stringify({ destination: 'https://example.com/chunked', title: 'ok' }),
        true,
      );
      expect(res.status).toBe(201);
      expect(res.body.title).toBe('ok');
      await api(t, 'DELETE', `/links/${res.body.id}`, { key });
    });
  });

  describe('UTF-8', () => {
    const encode = (text: string) => new TextEncoder().encode(text);
    /** `before`, then bytes that are not UTF-8 (Latin-1 "é", a lone continuation byte, an overlong "/"), then `after`. */
    const notUtf8 = (before: string, after: string) =>
      new Uint8Array([...encode(before), 0xe9, 0x80, 0xc0, 0xaf, ...encode(after)]);

    async function send(method: string, path: string, body: Uint8Array, contentType: string | null) {
      const headers: Record<string, string> = { authorization: `Bearer ${key}` };
      if (path.startsWith('/api/app/')) delete headers.authorization;
      if (contentType !== null) headers['content-type'] = contentType;
      const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { method, headers, body });
      return { status: res.status, body: (await res.json()) as any };
    }

    const refusal = { code: 'invalid_request', message: 'Request body is not valid UTF-8', field: 'body' };

    test.each([
      ['POST', '/api/v1/links', 'application/json'],
      ['POST', '/api/v1/links', null],
      ['PATCH', '/api/v1/links/{id}', 'application/json; charset=utf-8'],
      ['POST', '/api/v1/links/bulk/create', 'application/json'],
      ['POST', '/api/app/session', 'application/json'],
    ])('%s %s (Content-Type %s): 400 naming body, nothing changed', async (method, path, type) => {
      const text = path.endsWith('/session')
        ? notUtf8('{"email":"ada@example.com","password":"p', '"}')
        : path.endsWith('/bulk/create')
          ? notUtf8('{"text":"https://example.com/bulk\\tT', '"}')
          : notUtf8('{"destination":"https://example.com/latin","title":"caf', '"}');
      const links = async () => (await api(t, 'GET', '/links', { key })).body.items;
      const before = await links();
      const res = await send(method, path.replace('{id}', linkId), text, type);
      expect(res).toEqual({ status: 400, body: { error: refusal } });
      expect(await links()).toEqual(before);
    });

    test('UTF-8 text (accents, emoji) is taken as sent', async () => {
      const res = await send(
        'POST',
        '/api/v1/links',
        encode('{"destination":"https://example.com/utf8","title":"café 🚀 naïve"}'),
        'application/json',
      );
      expect(res.status).toBe(201);
      expect(res.body.title).toBe('café 🚀 naïve');
      await api(t, 'DELETE', `/links/${res.body.id}`, { key });
    });

    test('an unpaired surrogate escape in any string is 400 naming its field; a pair is text', async () => {
      const links = async () => (await api(t, 'GET', '/links', { key })).body.items;
      const before = await links();
      const cases: [string, string, string][] = [
        ['POST', '{"destination":"https://example.com/s","title":"a\\ud800b"}', 'title'],
        ['POST', '{"destination":"https://example.com/s","preview":{"title":"\\uDFFF"}}', 'preview.title'],
        [
          'POST',
          '{"destination":"https://example.com/s","rules":[{"when":{"country":["FR","\\udc00E"]},"destination":"https://example.com/r"}]}',
          'rules[0].when.country',
        ],
        ['POST', '{"destination":"https://example.com/s","params":{"k\\ud83d":"v"}}', 'params'],
        ['PATCH', '{"tags":["ok","x\\ud83d"]}', 'tags'],
        ['POST', '{"destination":"https://example.com/s","params":{"k":"v\\udbff"}}', 'params'],
        [
          'POST',
          '{"destination":"https://example.com/s","rules":[{"when":{"query":{"a":"\\ud800"}},"destination":"https://example.com/r"}]}',
          'rules[0].when.query',
        ],
      ];
      for (const [method, text, field] of cases) {
        const path = method === 'PATCH' ? `/api/v1/links/${linkId}` : '/api/v1/links';
        const res = await send(method, path, encode(text), 'application/json');
        expect({ field, res }).toEqual({
          field,
          res: {
            status: 400,
            body: {
              error: {
                code: 'invalid_request',
                message: `${field} holds an unpaired surrogate (\\uD800-\\uDFFF): not text`,
                field,
              },
            },
          },
        });
      }
      expect(await links()).toEqual(before);
      const pair = await send(
        'POST',
        '/api/v1/links',
        encode('{"destination":"https://example.com/pair","title":"\\ud83d\\ude80"}'),
        'application/json',
      );
      expect({ status: pair.status, title: pair.body.title }).toEqual({ status: 201, title: '🚀' });
      await api(t, 'DELETE', `/links/${pair.body.id}`, { key });
    });

    test('a body without a Content-Type goes through the same checks (nesting too)', async () => {
      const res = await send('POST', '/api/v1/links', encode(withField('params', nest(40, true))), null);
      expect(res).toEqual({
        status: 400,
        body: {
          error: {
            code: 'invalid_request',
            message: `Request body nests arrays and objects deeper than ${MAX_JSON_DEPTH}`,
            field: 'body',
          },
        },
      });
    });
  });
});
