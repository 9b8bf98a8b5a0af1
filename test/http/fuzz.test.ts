/**
 * Fuzz: every operation of the OpenAPI document, called a few thousand times with malformed
 * input (wrong types, sizes, nesting, encodings, unknown fields, odd numbers, path tricks) from a
 * fixed seed, over a real listening server. No answer may be a 5xx, every 4xx carries the error
 * body, and /healthz, polled alongside the whole time, keeps answering 200. How fast it answers
 * is a benchmark's question (timed assertions fail on a shared CI machine), so the slowest round
 * trip is printed, not asserted.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { api, makeKey, makeTestApp, type TestApp } from '../helpers/app';
import { forEachEngine } from '../helpers/engines';
import { pick, prng } from '../helpers/random';

const SEED = 20261123;
const ROUNDS = 3000;
const rand = prng(SEED);

let t: TestApp;
let server: ReturnType<typeof Bun.serve>;
let base: string;
let key: string;
let cookie: string;
let linkId: string;
let variantId: string;

interface Operation {
  method: string;
  path: string;
  query: string[];
  fields: string[];
  hasBody: boolean;
}

/** Operations a fuzzer must not call at random: they end its own session or cost an argon2 hash each. */
const SKIP = new Set([
  'DELETE /api/app/session',
  'DELETE /api/app/sessions',
  'POST /api/app/password',
  'POST /api/app/session',
  'POST /api/app/setup',
  'POST /api/app/accounts',
]);

const ODD_STRINGS = [
  '',
  ' ',
  '..',
  '.',
  '%2e%2e',
  '%00',
  '%ZZ',
  '\u0000',
  '\u202e',
  '😀'.repeat(50),
  'a'.repeat(5000),
  '<script>alert(1)</script>',
  "'; DROP TABLE links; --",
  'javascript:alert(1)',
  'https://example.com/\r\nSet-Cookie: x=1',
  '../../etc/passwd',
  '0x10',
  '1e308',
  '-0',
  'NaN',
  'Infinity',
  ' 42',
  '+42',
  '4.2',
  '9'.repeat(40),
  'true',
  'null',
  '[]',
  '{}',
];
const ODD_NUMBERS = [0, -1, 1.5, 1e308, -1e308, 2 ** 53, 2 ** 64, Number.MIN_VALUE, 42];

function nested(levels: number): unknown {
  let value: unknown = 'x';
  for (let i = 0; i < levels; i++) value = rand() < 0.5 ? [value] : { a: value };
  return value;
}

/** A value of any JSON type, sometimes large or deep. */
function oddValue(): unknown {
  const r = rand();
  if (r < 0.35) return pick(rand, ODD_STRINGS);
  if (r < 0.5) return pick(rand, ODD_NUMBERS);
  if (r < 0.55) return rand() < 0.5;
  if (r < 0.6) return null;
  if (r < 0.65) return nested(1 + Math.floor(rand() * 30));
  if (r < 0.7) return nested(1000 + Math.floor(rand() * 20_000));
  if (r < 0.8) return Array.from({ length: Math.floor(rand() * 300) }, () => pick(rand, ODD_STRINGS));
  if (r < 0.9)
    return Object.fromEntries(
      Array.from({ length: Math.floor(rand() * 120) }, (_, i) => [`k${i}`, pick(rand, ODD_STRINGS)]),
    );
  return 'x'.repeat(Math.floor(rand() * 200_000));
}

function oddPathPart(): string {
  const r = rand();
  if (r < 0.15) return linkId;
  if (r < 0.2) return variantId;
  if (r < 0.5) return encodeURIComponent(pick(rand, ODD_STRINGS)) || '%20';
  if (r < 0.6) return pick(rand, ['..', '.', '%2e%2e', '%2E.', '%2f', 'a%2fb', '%252e%252e']);
  if (r < 0.7) return 'x'.repeat(1 + Math.floor(rand() * 3000));
  return `lnk_${Math.floor(rand() * 1e9).toString(36)}`;
}

function oddQuery(op: Operation): string {
  const parts: string[] = [];
  for (const name of op.query) {
    if (rand() < 0.4) continue;
    const value = rand() < 0.8 ? pick(rand, ODD_STRINGS) : String(pick(rand, ODD_NUMBERS));
    parts.push(`${name}=${encodeURIComponent(value)}`);
    if (rand() < 0.1) parts.push(`${name}=${encodeURIComponent(pick(rand, ODD_STRINGS))}`); // repeated
  }
  if (rand() < 0.2) parts.push(`unknown=${encodeURIComponent(pick(rand, ODD_STRINGS))}`);
  if (rand() < 0.05) parts.push('%ZZ=%', '&&', '=');
  return parts.length ? `?${parts.join('&')}` : '';
}

/** The body: malformed JSON, a wrong shape, or the operation's fields with odd values. */
function oddBody(op: Operation): { body: string | Uint8Array; type: string } {
  const r = rand();
  if (r < 0.05) return { body: '{"a":', type: 'application/json' };
  if (r < 0.08)
    return { body: new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]), type: 'application/json' };
  if (r < 0.1) return { body: 'a=1&b=2', type: 'application/x-www-form-urlencoded' };
  if (r < 0.12) return { body: '[1,2,3]', type: 'application/json' };
  if (r < 0.14) return { body: JSON.stringify(oddValue()), type: 'application/json; charset=latin1' };
  const body: Record<string, unknown> = {};
  for (const field of op.fields) if (rand() < 0.7) body[field] = oddValue();
  if (rand() < 0.3) body[pick(rand, ['__proto__', 'constructor', 'unknownField', ''])] = oddValue();
  const text = JSON.stringify(body);
  // Most hostile bodies stay under the 1 MiB limit; a few go over it on purpose.
  return { body: text, type: 'application/json' };
}

function request(op: Operation): { url: string; init: RequestInit } {
  const path = op.path.replace(/\{[^}]+\}/g, () => oddPathPart());
  const headers: Record<string, string> = {};
  if (op.path.startsWith('/api/app')) {
    headers.cookie = cookie;
    headers.origin = 'https://app.sl.test';
  } else if (rand() < 0.95) headers.authorization = `Bearer ${key}`;
  else headers.authorization = pick(rand, ['Bearer ', 'Bearer slk_x', 'Basic abc', `Bearer ${key.slice(0, -1)}x`]);
  const init: RequestInit = { method: op.method, headers, redirect: 'manual' };
  if (op.hasBody || (op.method !== 'GET' && rand() < 0.2)) {
    const { body, type } = oddBody(op);
    init.body = body;
    headers['content-type'] = type;
  }
  return { url: `${base}${path}${oddQuery(op)}`, init };
}

forEachEngine((engine) => {
  beforeAll(async () => {
    t = await makeTestApp({ SLINK_RATE_LIMIT: '1000000' }, { engine });
    const made = await makeKey(t, 'write', { superuser: true });
    key = made.key;
    const link = await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/f', tags: ['t'] } });
    linkId = link.body.id;
    const variant = await api(t, 'POST', `/links/${linkId}/variants`, { key, body: { code: 'v' } });
    variantId = variant.body.id;
    server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => t.app.fetch(req) });
    base = `http://127.0.0.1:${server.port}`;
    const signIn = await fetch(`${base}/api/app/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://app.sl.test', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify({ email: made.account.email, password: 'correct horse battery' }),
    });
    expect(signIn.status).toBe(200);
    cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
  });

  afterAll(() => {
    server.stop(true);
    return t.close();
  });

  test(`${ROUNDS} malformed calls over every operation: no 5xx, every 4xx in the error format, /healthz answering throughout`, async () => {
    const doc = (await (await fetch(`${base}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string }[]; requestBody?: any }>>;
    };
    const operations: Operation[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (SKIP.has(`${method.toUpperCase()} ${path}`)) continue;
        const schema = op.requestBody?.content?.['application/json']?.schema;
        operations.push({
          method: method.toUpperCase(),
          path,
          query: (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name),
          fields: Object.keys(schema?.properties ?? {}),
          hasBody: op.requestBody !== undefined,
        });
      }
    }
    expect(operations.length).toBeGreaterThan(30);

    // Every request is made up front: building hostile bodies (JSON.stringify of 20,000 levels)
    // runs on this same event loop and must not count against the server's /healthz.
    const calls = Array.from({ length: ROUNDS }, () => {
      const op = pick(rand, operations);
      return { op, ...request(op) };
    });

    // A full collection now, not in the middle of the run: the calls above made a large heap.
    Bun.gc(true);

    // /healthz polled the whole time, on its own connection.
    const health: number[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const started = performance.now();
        const res = await fetch(`${base}/healthz`);
        await res.text();
        expect(res.status).toBe(200);
        health.push(performance.now() - started);
        await Bun.sleep(10);
      }
    })();

    const problems: string[] = [];
    const seen = new Map<string, Set<number>>();
    try {
      for (let i = 0; i < ROUNDS; i += 4) {
        await Promise.all(
          calls.slice(i, i + 4).map(async ({ op, url, init }) => {
            const res = await fetch(url, init);
            // The live events stream never ends by itself: its answer is its status and type.
            const stream = res.headers.get('content-type')?.startsWith('text/event-stream') === true;
            if (stream) await res.body?.cancel();
            const text = stream ? '' : await res.text();
            const name = `${op.method} ${op.path}`;
            if (!seen.has(name)) seen.set(name, new Set());
            seen.get(name)!.add(res.status);
            if (res.status >= 500)
              problems.push(`${res.status} ${init.method} ${url.slice(0, 200)}: ${text.slice(0, 200)}`);
            else if (res.status >= 400 && res.headers.get('content-type')?.includes('json')) {
              const body = JSON.parse(text);
              if (
                typeof body?.error?.code !== 'string' ||
                typeof body.error.message !== 'string' ||
                !('field' in body.error)
              )
                problems.push(
                  `${res.status} without the error body: ${init.method} ${url.slice(0, 200)}: ${text.slice(0, 200)}`,
                );
            } else if (res.status >= 400 && !res.headers.get('content-type')?.includes('text/html'))
              problems.push(`${res.status} neither JSON nor an HTML page: ${init.method} ${url.slice(0, 200)}`);
          }),
        );
      }
    } finally {
      polling = false;
      await poller;
    }

    expect(problems).toEqual([]);
    expect(seen.size).toBe(operations.length);
    // Polled every 10 ms for the whole run: an event loop blocked by a hostile body would leave
    // few answers, so a handful is a failure even without a clock bound.
    expect(health.length).toBeGreaterThan(10);
    console.log(`/healthz during the fuzz: ${health.length} answers, slowest ${Math.max(...health).toFixed(1)} ms`);
  });
});
