/**
 * The Host header as a hostile or ancient client sends it (docs/behaviour.md, "Hosts"), against
 * the real server with raw requests: none at all (HTTP/1.0), an empty one, and hosts of 1 to 3
 * characters, which Elysia's router alone misroutes. A redirect never depends on the Host; a
 * request with no usable Host is the short host's; routing never depends on the Host's length;
 * and none of it writes an error, let alone a stack trace, to the log.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { clientAddress, routable } from '../../src/http/client';
import { createLinkAt, freshDb, superuserWriteKey } from '../helpers/cli';
import { BUN, cleanEnv, freePort, type RunningProcess, start, waitHealthy } from '../helpers/proc';
import { type RawResponse, rawRequest } from '../helpers/raw-http';

interface Served {
  server: RunningProcess;
  port: number;
  key: string;
  linkId: string;
}

const SLUG = 'hosted';
const DESTINATION = 'https://example.com/landing';
let single: Served;
let split: Served;

async function serve(env: Record<string, string>): Promise<Served> {
  const db = freshDb();
  const key = await superuserWriteKey(db);
  const port = freePort();
  const server = start([BUN, 'run', 'src/index.ts', 'serve'], port, {
    env: cleanEnv({ SLINK_DB: db, SLINK_PORT: String(port), SLINK_HOSTNAME: '127.0.0.1', ...env }),
  });
  await waitHealthy(server);
  const linkId = await createLinkAt(server.base, key, SLUG);
  return { server, port, key, linkId };
}

beforeAll(async () => {
  [single, split] = await Promise.all([
    serve({}),
    // A short host of two characters, as intranets name theirs (go/<slug>).
    serve({ SLINK_SHORT_HOST: 'http://go', SLINK_APP_HOST: 'http://links.internal' }),
  ]);
}, 60_000);

afterAll(() => {
  single?.server.kill();
  split?.server.kill();
});

/** GET (or `method`) `target` with exactly these header lines after the request line. */
function send(s: Served, target: string, lines: string[], method = 'GET', body = ''): Promise<RawResponse> {
  return rawRequest(s.port, [`${method} ${target} ${lines[0]}`, ...lines.slice(1)], body);
}

const NO_HOST = ['HTTP/1.0'];
const EMPTY_HOST = ['HTTP/1.1', 'Host:', 'Connection: close'];
const hostLines = (host: string, ...more: string[]) => ['HTTP/1.1', `Host: ${host}`, 'Connection: close', ...more];

function expectRedirect(res: RawResponse): void {
  expect({ status: res.status, location: res.headers.location, text: res.text }).toEqual({
    status: 302,
    location: DESTINATION,
    text: '',
  });
}

describe('no usable Host', () => {
  test.each([
    ['HTTP/1.0 without Host', NO_HOST],
    ['HTTP/1.1 with an empty Host', EMPTY_HOST],
  ])('%s: a short link redirects, with one host and with split hosts', async (_, lines) => {
    expectRedirect(await send(single, `/${SLUG}`, lines));
    expectRedirect(await send(split, `/${SLUG}`, lines));
    expectRedirect(await send(split, `/${SLUG}/`, lines));
  });

  test('one host: the request is the short host’s, which also serves the API (a 404 is the API’s error body)', async () => {
    const link = await send(single, `/api/v1/links/${single.linkId}`, [
      ...NO_HOST,
      `Authorization: Bearer ${single.key}`,
    ]);
    expect({ status: link.status, id: link.body.id, slug: link.body.slug }).toEqual({
      status: 200,
      id: single.linkId,
      slug: SLUG,
    });
    const missing = await send(single, '/api/v1/no/such/route', [...EMPTY_HOST, `Authorization: Bearer ${single.key}`]);
    expect({ status: missing.status, body: missing.body }).toEqual({
      status: 404,
      body: { error: { code: 'not_found', message: 'No route for GET /api/v1/no/such/route', field: null } },
    });
    const health = await send(single, '/healthz', NO_HOST);
    expect({ status: health.status, body: health.body }).toEqual({
      status: 200,
      body: { status: 'ok', node: expect.any(String) },
    });
  });

  test('split hosts: the request is the short host’s (404 page for the API, / to the app, health answers)', async () => {
    const api = await send(split, `/api/v1/links/${split.linkId}`, [...NO_HOST, `Authorization: Bearer ${split.key}`]);
    expect(api.status).toBe(404);
    expect(api.headers['content-type']).toStartWith('text/html');
    expect(api.text).toContain('<title>');
    const root = await send(split, '/', EMPTY_HOST);
    expect({ status: root.status, location: root.headers.location }).toEqual({
      status: 302,
      location: 'http://links.internal/',
    });
    const health = await send(split, '/healthz', NO_HOST);
    expect({ status: health.status, body: health.body }).toEqual({
      status: 200,
      body: { status: 'ok', node: expect.any(String) },
    });
  });
});

describe('routing does not depend on the length of the Host', () => {
  test.each(['a', 'ab', 'abc', 'a:1'])('Host: %s reaches the API, the dashboard and its endpoints', async (host) => {
    for (const s of [single, split]) {
      const auth = `Authorization: Bearer ${s.key}`;
      const link = await send(s, `/api/v1/links/${s.linkId}`, hostLines(host, auth));
      expect({ status: link.status, id: link.body.id }).toEqual({ status: 200, id: s.linkId });
      const missing = await send(s, '/api/v1/links/lnk_missing', hostLines(host, auth));
      expect({ status: missing.status, code: missing.body.error?.code }).toEqual({ status: 404, code: 'not_found' });
      const body = JSON.stringify({ destination: `https://example.com/${host}` });
      const created = await send(
        s,
        '/api/v1/links',
        hostLines(host, auth, 'Content-Type: application/json', `Content-Length: ${body.length}`),
        'POST',
        body,
      );
      expect({ status: created.status, destination: created.body.destination }).toEqual({
        status: 201,
        destination: `https://example.com/${host}`,
      });
      const setup = await send(s, '/api/app/setup', hostLines(host));
      expect({ status: setup.status, body: setup.body }).toEqual({ status: 200, body: { needed: false } });
      const page = await send(s, '/app/links', hostLines(host));
      expect(page.status).toBe(200);
      expect(page.headers['content-type']).toStartWith('text/html');
    }
  });

  test('a short host of two characters redirects, and answers its 404 page for the API', async () => {
    expectRedirect(await send(split, `/${SLUG}`, hostLines('go')));
    const api = await send(
      split,
      `/api/v1/links/${split.linkId}`,
      hostLines('go', `Authorization: Bearer ${split.key}`),
    );
    expect(api.status).toBe(404);
    expect(api.headers['content-type']).toStartWith('text/html');
  });

  test('the app still sees the client address of a request it was handed under another origin', async () => {
    const server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: (request, bun) => {
        const handed = routable(request);
        return Response.json({ copied: handed !== request, url: handed.url, address: clientAddress(handed, bun, 0) });
      },
    });
    try {
      const res = await rawRequest(server.port!, ['GET / HTTP/1.1', 'Host: abc', 'Connection: close']);
      expect(res.body).toEqual({ copied: true, url: 'http://localhost/', address: '127.0.0.1' });
    } finally {
      server.stop(true);
    }
  });
});

test('nothing above wrote an error or a stack trace to the log', async () => {
  for (const s of [single, split]) {
    expect(await s.server.stop()).toBe(0);
    const [stdout, stderr] = await Promise.all([s.server.stdout, s.server.stderr]);
    expect(stderr).toBe('');
    expect(stdout).not.toMatch(/^\s+at /m);
    expect(stdout).not.toMatch(/error/i);
  }
}, 30_000);
