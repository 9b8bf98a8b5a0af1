/**
 * Limits (interface description): every /api/v1 response carries X-RateLimit-Limit and
 * X-RateLimit-Remaining; over the per-key budget the answer is 429 rate_limited with
 * Retry-After in seconds. Requests without a valid key are budgeted per client address.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { clientAddress } from '../../src/http/client';
import { ErrorModel } from '../../src/http/models';
import { RateLimiter } from '../../src/http/rate-limit';
import { fixedClock } from '../../src/lib/clock';
import { createApiKey } from '../../src/modules/auth/keys';
import { type ApiResult, api, disposeTestApp, makeKey, makeTestApp, T0, type TestApp } from '../helpers/app';
import { forEachEngine } from '../helpers/engines';
import { expectSchema } from '../helpers/schema';

let t: TestApp | null = null;
afterEach(async () => {
  if (t) await disposeTestApp(t);
  t = null;
});

function limitHeaders(res: { headers: Headers }) {
  return {
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: res.headers.get('x-ratelimit-remaining'),
  };
}

function expect429(res: ApiResult, limit: number, retryAfter?: number): void {
  expect(res.status).toBe(429);
  expectSchema(ErrorModel, res.body);
  expect(res.body.error.code).toBe('rate_limited');
  expect(res.body.error.field).toBeNull();
  expect(limitHeaders(res)).toEqual({ limit: String(limit), remaining: '0' });
  const header = res.headers.get('retry-after');
  expect(header).toMatch(/^\d+$/);
  expect(Number(header)).toBeGreaterThanOrEqual(1);
  expect(Number(header)).toBeLessThanOrEqual(60);
  if (retryAfter !== undefined) expect(Number(header)).toBe(retryAfter);
}

describe('RateLimiter (unit)', () => {
  test('counts down to zero, then refuses with the seconds left in the window', () => {
    const clock = fixedClock(T0);
    const limiter = new RateLimiter(3, clock);
    expect(limiter.hit('a')).toEqual({ allowed: true, limit: 3, remaining: 2, retryAfter: 60 });
    expect(limiter.hit('a')).toEqual({ allowed: true, limit: 3, remaining: 1, retryAfter: 60 });
    expect(limiter.hit('a')).toEqual({ allowed: true, limit: 3, remaining: 0, retryAfter: 60 });
    expect(limiter.hit('a')).toEqual({ allowed: false, limit: 3, remaining: 0, retryAfter: 60 });
    clock.advance(20_000);
    expect(limiter.hit('a')).toEqual({ allowed: false, limit: 3, remaining: 0, retryAfter: 40 });
  });

  test('Retry-After rounds up and is never below one second', () => {
    const clock = fixedClock(T0);
    const limiter = new RateLimiter(1, clock);
    limiter.hit('a');
    clock.advance(59_001);
    expect(limiter.hit('a')).toMatchObject({ allowed: false, retryAfter: 1 });
    clock.advance(998); // 1 ms before the window ends
    expect(limiter.hit('a')).toMatchObject({ allowed: false, retryAfter: 1 });
    clock.set(T0 + 500);
    expect(limiter.hit('a')).toMatchObject({ allowed: false, retryAfter: 60 });
  });

  test('a new window starts 60 s after the first hit, however often refused hits arrive', () => {
    const clock = fixedClock(T0);
    const limiter = new RateLimiter(2, clock);
    limiter.hit('a');
    limiter.hit('a');
    for (let i = 0; i < 59; i++) {
      clock.advance(1000);
      expect(limiter.hit('a').allowed).toBe(false);
    }
    clock.advance(1000); // T0 + 60 s
    expect(limiter.hit('a')).toEqual({ allowed: true, limit: 2, remaining: 1, retryAfter: 60 });
  });

  test('identities have separate budgets', () => {
    const limiter = new RateLimiter(1, fixedClock(T0));
    expect(limiter.hit('key:a').allowed).toBe(true);
    expect(limiter.hit('key:a').allowed).toBe(false);
    expect(limiter.hit('key:b').allowed).toBe(true);
    expect(limiter.hit('ip:1.2.3.4').allowed).toBe(true);
    expect(limiter.hit('key:b').allowed).toBe(false);
  });

  test('finished windows are swept, so memory stays bounded', () => {
    const clock = fixedClock(T0);
    const limiter = new RateLimiter(10, clock);
    for (let i = 0; i < 5000; i++) limiter.hit(`ip:${i}`);
    const windows = (limiter as unknown as { windows: Map<string, unknown> }).windows;
    expect(windows.size).toBe(5000);
    clock.advance(60_000);
    for (let i = 0; i < 2048; i++) limiter.hit('key:only');
    expect(windows.size).toBe(1);
    expect(limiter.hit('ip:1')).toMatchObject({ allowed: true, remaining: 9 });
  });
});

describe('clientAddress (unit)', () => {
  const server = { requestIP: () => ({ address: '10.0.0.9' }) };
  const req = (xff?: string) =>
    new Request('http://localhost/', { headers: xff === undefined ? {} : { 'x-forwarded-for': xff } });

  test('is the socket peer unless a proxy is trusted', () => {
    expect(clientAddress(req('1.2.3.4'), server, 0)).toBe('10.0.0.9');
    expect(clientAddress(req(), server, 1)).toBe('10.0.0.9');
    expect(clientAddress(req(), null, 0)).toBeNull();
  });

  test('behind N proxies, is the N-th X-Forwarded-For entry from the right: what a client prepends is never believed', () => {
    // The client sent "6.6.6.6" itself; our one proxy appended the address it saw.
    expect(clientAddress(req('6.6.6.6, 1.2.3.4'), server, 1)).toBe('1.2.3.4');
    expect(clientAddress(req('1.2.3.4'), server, 1)).toBe('1.2.3.4');
    // Two proxies: the outer one appended the client, the inner one the outer proxy.
    expect(clientAddress(req(' 6.6.6.6 , 1.2.3.4, 10.0.0.1'), server, 2)).toBe('1.2.3.4');
    expect(clientAddress(req('2001:db8::1, 10.0.0.1'), null, 2)).toBe('2001:db8::1');
    // Fewer entries than proxies: the nearest one there is.
    expect(clientAddress(req('1.2.3.4'), server, 3)).toBe('1.2.3.4');
    expect(clientAddress(req('5.6.7.8, '), server, 1)).toBe('10.0.0.9');
  });
});

forEachEngine((engine) => {
  describe('X-RateLimit-* headers on every /api/v1 response', () => {
    test('success, 400, 401, 403, 404, 413, 415 all carry them and each request costs one', async () => {
      t = await makeTestApp({}, { engine });
      const write = await makeKey(t, 'write');
      const read = await makeKey(t, 'read');
      const sequence: { res: ApiResult; status: number; remaining: number }[] = [];
      const run = async (
        status: number,
        remaining: number,
        method: string,
        path: string,
        opts: Parameters<typeof api>[3],
      ) => {
        const res = await api(t!, method, path, opts);
        sequence.push({ res, status, remaining });
        expect({ path, status: res.status }).toEqual({ path, status });
        expect(limitHeaders(res)).toEqual({ limit: '600', remaining: String(remaining) });
        if (status >= 400) expectSchema(ErrorModel, res.body);
        return res;
      };
      const ok = await run(200, 599, 'GET', '/me', { key: write.key });
      expect(ok.body.scope).toBe('write');
      const created = await run(201, 598, 'POST', '/links', {
        key: write.key,
        body: { destination: 'https://a.example' },
      });
      expect(created.body.destination).toBe('https://a.example/');
      const bad = await run(400, 597, 'POST', '/links', { key: write.key, body: { destination: 'nope' } });
      expect(bad.body.error).toMatchObject({ code: 'invalid_request', field: 'destination' });
      const badJson = await run(400, 596, 'POST', '/links', {
        key: write.key,
        rawBody: '{',
        headers: { 'content-type': 'application/json' },
      });
      expect(badJson.body.error.code).toBe('invalid_request');
      const notFound = await run(404, 595, 'GET', '/no/such/path', { key: write.key });
      expect(notFound.body.error.code).toBe('not_found');
      const missingLink = await run(404, 594, 'GET', '/links/lnk_nope', { key: write.key });
      expect(missingLink.body.error.code).toBe('not_found');
      const tooBig = await run(413, 593, 'POST', '/links', {
        key: write.key,
        rawBody: '{}',
        headers: { 'content-type': 'application/json', 'content-length': String(2 * 1024 * 1024) },
      });
      expect(tooBig.body.error.code).toBe('payload_too_large');
      const wrongType = await run(415, 592, 'POST', '/links', {
        key: write.key,
        rawBody: 'destination=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(wrongType.body.error.code).toBe('unsupported_media_type');
      // A read key has its own budget.
      const forbidden = await run(403, 599, 'POST', '/links', {
        key: read.key,
        body: { destination: 'https://a.example' },
      });
      expect(forbidden.body.error.code).toBe('insufficient_scope');
      const readOk = await run(200, 598, 'GET', '/links', { key: read.key });
      expect(readOk.body.items).toHaveLength(1);
      // No key, or a bad key: budgeted by client address.
      const noKey = await run(401, 599, 'GET', '/me', {});
      expect(noKey.body.error.code).toBe('key_missing');
      const badKey = await run(401, 598, 'GET', '/links', { key: 'garbage' });
      expect(badKey.body.error.code).toBe('key_unknown');
      const noKeyUnknownPath = await run(401, 597, 'GET', '/nope', {});
      expect(noKeyUnknownPath.body.error.code).toBe('key_missing');
      expect(sequence).toHaveLength(13);
    });

    test('remaining decreases by exactly one per request', async () => {
      t = await makeTestApp({ SLINK_RATE_LIMIT: '50' }, { engine });
      const { key } = await makeKey(t, 'read');
      for (let i = 1; i <= 50; i++) {
        const res = await api(t, 'GET', i % 2 ? '/me' : '/links', { key });
        expect(res.status).toBe(200);
        expect(limitHeaders(res)).toEqual({ limit: '50', remaining: String(50 - i) });
      }
      expect429(await api(t, 'GET', '/me', { key }), 50, 60);
    });

    test('routes outside /api/v1 are not counted', async () => {
      t = await makeTestApp({ SLINK_RATE_LIMIT: '2' }, { engine });
      const { key } = await makeKey(t, 'read');
      for (let i = 0; i < 5; i++) {
        const health = await api(t, 'GET', '/healthz');
        expect(health.status).toBe(200);
        expect(health.body).toEqual({ status: 'ok', node: expect.any(String) });
        expect(health.headers.get('x-ratelimit-remaining')).toBeNull();
        const spec = await api(t, 'GET', '/api/openapi.json');
        expect(spec.status).toBe(200);
        expect(spec.body.openapi).toStartWith('3.1');
      }
      const res = await api(t, 'GET', '/me', { key });
      expect(res.status).toBe(200);
      expect(limitHeaders(res)).toEqual({ limit: '2', remaining: '1' });
    });
  });

  describe('429 rate_limited', () => {
    test('the 6th request of a key is 429 with Retry-After and an error body; other keys are unaffected', async () => {
      t = await makeTestApp({ SLINK_RATE_LIMIT: '5' }, { engine });
      const a = await makeKey(t, 'write');
      const b = await makeKey(t, 'read');
      for (let i = 0; i < 5; i++) expect((await api(t, 'GET', '/me', { key: a.key })).status).toBe(200);
      const limited = await api(t, 'GET', '/me', { key: a.key });
      expect429(limited, 5, 60);
      expect(limited.body.error.message.length).toBeGreaterThan(0);
      // Every method and path of that key is limited, even ones that would be 404 or 400.
      expect429(await api(t, 'POST', '/links', { key: a.key, body: { destination: 'https://a.example' } }), 5);
      expect429(await api(t, 'GET', '/nope', { key: a.key }), 5);
      // Nothing was created by the refused POST.
      const list = await api(t, 'GET', '/links', { key: b.key });
      expect(list.status).toBe(200);
      expect(list.body.items).toEqual([]);
      expect(limitHeaders(list)).toEqual({ limit: '5', remaining: '4' });
    });

    test('Retry-After counts down with the clock and the window resets after 60 s', async () => {
      t = await makeTestApp({ SLINK_RATE_LIMIT: '5' }, { engine });
      const { key } = await makeKey(t, 'read');
      for (let i = 0; i < 5; i++) {
        t.clock.advance(1000); // the window starts at the first request
        expect((await api(t, 'GET', '/me', { key })).status).toBe(200);
      }
      // first request at T0+1s; now T0+5s
      expect429(await api(t, 'GET', '/me', { key }), 5, 56);
      t.clock.advance(45_500);
      expect429(await api(t, 'GET', '/me', { key }), 5, 11);
      t.clock.set(T0 + 1000 + 59_999);
      expect429(await api(t, 'GET', '/me', { key }), 5, 1);
      t.clock.advance(1);
      const fresh = await api(t, 'GET', '/me', { key });
      expect(fresh.status).toBe(200);
      expect(fresh.body.scope).toBe('read');
      expect(limitHeaders(fresh)).toEqual({ limit: '5', remaining: '4' });
      expect(fresh.headers.get('retry-after')).toBeNull();
    });

    test('two keys of the same account have separate budgets', async () => {
      t = await makeTestApp({ SLINK_RATE_LIMIT: '3' }, { engine });
      const a = await makeKey(t, 'write');
      const b = await createApiKey(t.deps, { accountId: a.account.id, scope: 'write' });
      for (let i = 0; i < 3; i++) expect((await api(t, 'GET', '/me', { key: a.key })).status).toBe(200);
      expect429(await api(t, 'GET', '/me', { key: a.key }), 3);
      for (let i = 2; i >= 0; i--) {
        const res = await api(t, 'GET', '/me', { key: b.key });
        expect(res.status).toBe(200);
        expect(res.body.key.id).toBe(b.row.id);
        expect(limitHeaders(res).remaining).toBe(String(i));
      }
      expect429(await api(t, 'GET', '/me', { key: b.key }), 3);
    });

    test('requests without a valid key are limited per client address, and do not use up key budgets', async () => {
      t = await makeTestApp({ SLINK_RATE_LIMIT: '3', SLINK_TRUST_PROXY: '1' }, { engine });
      const { key } = await makeKey(t, 'read');
      const from = (ip: string) => ({ 'x-forwarded-for': ip });
      expect((await api(t, 'GET', '/me', { headers: from('1.1.1.1') })).status).toBe(401);
      expect((await api(t, 'GET', '/me', { key: 'slk_bad', headers: from('1.1.1.1') })).status).toBe(401);
      const third = await api(t, 'GET', '/links', { headers: from('1.1.1.1') });
      expect(third.status).toBe(401);
      expect(limitHeaders(third)).toEqual({ limit: '3', remaining: '0' });
      expect429(await api(t, 'GET', '/me', { headers: from('1.1.1.1') }), 3, 60);
      // Another address still has its budget.
      const other = await api(t, 'GET', '/me', { headers: from('2.2.2.2') });
      expect(other.status).toBe(401);
      expect(other.body.error.code).toBe('key_missing');
      expect(limitHeaders(other)).toEqual({ limit: '3', remaining: '2' });
      // A valid key from the limited address is counted against the key, not the address.
      const keyed = await api(t, 'GET', '/me', { key, headers: from('1.1.1.1') });
      expect(keyed.status).toBe(200);
      expect(limitHeaders(keyed)).toEqual({ limit: '3', remaining: '2' });
      t.clock.advance(60_000);
      const reset = await api(t, 'GET', '/me', { headers: from('1.1.1.1') });
      expect(reset.status).toBe(401);
      expect(limitHeaders(reset)).toEqual({ limit: '3', remaining: '2' });
    });

    test('without a trusted proxy, X-Forwarded-For cannot buy a fresh budget', async () => {
      t = await makeTestApp({ SLINK_RATE_LIMIT: '2' }, { engine });
      for (const ip of ['1.1.1.1', '2.2.2.2'])
        expect((await api(t, 'GET', '/me', { headers: { 'x-forwarded-for': ip } })).status).toBe(401);
      expect429(await api(t, 'GET', '/me', { headers: { 'x-forwarded-for': '3.3.3.3' } }), 2);
    });
  });

  describe('exact under concurrency', () => {
    test('50 concurrent requests at limit 20: exactly 20 succeed (app.handle)', async () => {
      t = await makeTestApp({ SLINK_RATE_LIMIT: '20' }, { engine });
      const { key } = await makeKey(t, 'read');
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => api(t!, 'GET', i % 3 ? '/me' : '/links', { key })),
      );
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(20);
      expect(statuses.filter((s) => s === 429)).toHaveLength(30);
      const remaining = results
        .filter((r) => r.status === 200)
        .map((r) => Number(r.headers.get('x-ratelimit-remaining')));
      expect(remaining.sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i));
      for (const r of results.filter((r) => r.status === 429)) expect429(r, 20, 60);
    });

    test('50 concurrent requests at limit 20 through a real server: exactly 20 succeed', async () => {
      t = await makeTestApp({ SLINK_RATE_LIMIT: '20' }, { engine });
      const { key } = await makeKey(t, 'write');
      t.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false });
      const port = t.app.server!.port;
      const base = `http://127.0.0.1:${port}/api/v1`;
      const responses = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          i % 5 === 0
            ? fetch(`${base}/projects`, {
                method: 'POST',
                headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
                body: JSON.stringify({ name: `p${i}` }),
              })
            : fetch(`${base}/me`, { headers: { authorization: `Bearer ${key}` } }),
        ),
      );
      const bodies = await Promise.all(responses.map((r) => r.json() as Promise<any>));
      const ok = responses.filter((r) => r.status === 200 || r.status === 201);
      const limited = responses.map((r, i) => ({ r, body: bodies[i] })).filter(({ r }) => r.status === 429);
      expect(ok).toHaveLength(20);
      expect(limited).toHaveLength(30);
      for (const { r, body } of limited) {
        expect(body.error.code).toBe('rate_limited');
        expect(Number(r.headers.get('retry-after'))).toBe(60);
        expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
      }
      const created = responses.filter((r) => r.status === 201).length;
      // Exactly the POSTs that were let through created a project.
      t.clock.advance(60_000);
      const list = await fetch(`${base}/projects`, { headers: { authorization: `Bearer ${key}` } });
      expect(list.status).toBe(200);
      expect(((await list.json()) as any).projects).toHaveLength(created);
    });

    test('unauthenticated requests through a real server are limited per peer address', async () => {
      t = await makeTestApp({ SLINK_RATE_LIMIT: '4' }, { engine });
      const { key } = await makeKey(t, 'read');
      t.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false });
      const base = `http://127.0.0.1:${t.app.server!.port}/api/v1`;
      const responses = await Promise.all(Array.from({ length: 10 }, () => fetch(`${base}/me`)));
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses).toEqual([401, 401, 401, 401, 429, 429, 429, 429, 429, 429]);
      for (const r of responses) {
        const body = (await r.json()) as any;
        expect(body.error.code).toBe(r.status === 401 ? 'key_missing' : 'rate_limited');
      }
      const keyed = await fetch(`${base}/me`, { headers: { authorization: `Bearer ${key}` } });
      expect(keyed.status).toBe(200);
      expect(keyed.headers.get('x-ratelimit-remaining')).toBe('3');
    });
  });
});
