/**
 * The API rate limit across several nodes on one PostgreSQL database (CONTRACT "Several nodes"):
 * SLINK_RATE_LIMIT holds per key, per account and per client address whichever node a request
 * reaches, with honest X-RateLimit-Remaining and Retry-After; finished windows are pruned; no
 * raw address is stored; while the database is unreachable each node counts in its own memory
 * and the limiter never causes a 500.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { openPostgres } from '../../src/db/postgres/client';
import { type ApiResult, api, makeKey, type TestApp } from '../helpers/app';
import { PASSWORD, signIn } from '../helpers/dashboard';
import { type Nodes, startNodes } from '../helpers/nodes';
import { startPostgres, stopPostgres } from '../helpers/postgres';
import { expectError } from '../helpers/schema';
import { waitUntil } from '../helpers/wait';

let cluster: Nodes | null = null;
afterEach(async () => {
  const c = cluster;
  cluster = null;
  if (c) await c.close();
});

const remaining = (res: ApiResult) => res.headers.get('x-ratelimit-remaining');

function expect429(res: ApiResult, limit: number, retryAfter: number): void {
  expectError(res, 429, 'rate_limited', null);
  expect({
    limit: res.headers.get('x-ratelimit-limit'),
    remaining: remaining(res),
    retryAfter: res.headers.get('retry-after'),
  }).toEqual({ limit: String(limit), remaining: '0', retryAfter: String(retryAfter) });
}

/** The rows of a table of the nodes' database. */
async function rows(url: string, query: string): Promise<Record<string, unknown>[]> {
  const sql = openPostgres(url, 1);
  try {
    return [...(await sql.unsafe(query))];
  } finally {
    await sql.close();
  }
}

describe('the API rate limit across nodes (PostgreSQL)', () => {
  test('a key at SLINK_RATE_LIMIT=5 sent to two nodes in turn: remaining 4,3,2,1,0, then 429 on either; the next window lets it through', async () => {
    cluster = await startNodes(2, { SLINK_RATE_LIMIT: '5' });
    const [a, b] = cluster.nodes as [TestApp, TestApp];
    const { key, keyId } = await makeKey(a, 'read');
    const seen: (string | null)[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await api(i % 2 ? b : a, 'GET', '/me', { key });
      expect({ status: res.status, key: res.body.key?.id }).toEqual({ status: 200, key: keyId });
      expect(res.headers.get('x-ratelimit-limit')).toBe('5');
      seen.push(remaining(res));
    }
    expect(seen).toEqual(['4', '3', '2', '1', '0']);
    expect429(await api(b, 'GET', '/me', { key }), 5, 60);
    expect429(await api(a, 'GET', '/links', { key }), 5, 60);
    // Retry-After counts down on both nodes; the window ends 60 s after its first request.
    cluster.advance(45_500);
    expect429(await api(a, 'GET', '/me', { key }), 5, 15);
    expect429(await api(b, 'GET', '/me', { key }), 5, 15);
    cluster.advance(14_499);
    expect429(await api(b, 'GET', '/me', { key }), 5, 1);
    cluster.advance(1);
    const fresh = await api(b, 'GET', '/me', { key });
    expect({ status: fresh.status, remaining: remaining(fresh), retryAfter: fresh.headers.get('retry-after') }).toEqual(
      {
        status: 200,
        remaining: '4',
        retryAfter: null,
      },
    );
    const next = await api(a, 'GET', '/links', { key });
    expect({ status: next.status, items: next.body.items, remaining: remaining(next) }).toEqual({
      status: 200,
      items: [],
      remaining: '3',
    });
  });

  test('requests without a key are limited per client address across nodes; a signed-in account per account', async () => {
    cluster = await startNodes(2, { SLINK_RATE_LIMIT: '3', SLINK_TRUST_PROXY: '1' });
    const [a, b] = cluster.nodes as [TestApp, TestApp];
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    const first = await api(a, 'GET', '/me', { headers: from('203.0.113.9') });
    expectError(first, 401, 'key_missing');
    expect(remaining(first)).toBe('2');
    expect(remaining(await api(b, 'GET', '/me', { headers: from('203.0.113.9') }))).toBe('1');
    expect(remaining(await api(a, 'GET', '/me', { key: 'slk_bad', headers: from('203.0.113.9') }))).toBe('0');
    expect429(await api(b, 'GET', '/me', { headers: from('203.0.113.9') }), 3, 60);
    expect(remaining(await api(b, 'GET', '/me', { headers: from('203.0.113.10') }))).toBe('2');

    // Password checks that answer at once: the limit, not argon2id, is under test.
    a.deps.verifyPassword = async (password) => password === PASSWORD;
    const { cookie } = await signIn(a);
    const viaSession = (t: TestApp) => api(t, 'GET', '/links', { headers: { cookie } });
    const counts: (string | null)[] = [];
    for (const t of [b, a, b]) {
      const res = await viaSession(t);
      expect(res.status).toBe(200);
      counts.push(remaining(res));
    }
    expect(counts).toEqual(['2', '1', '0']);
    expect429(await viaSession(a), 3, 60);
  });

  test('concurrent requests spread over two nodes at limit 20: exactly 20 get through, each remaining once', async () => {
    cluster = await startNodes(2, { SLINK_RATE_LIMIT: '20' });
    const [a, b] = cluster.nodes as [TestApp, TestApp];
    const { key } = await makeKey(a, 'read');
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => api(i % 2 ? b : a, 'GET', '/me', { key })));
    const passed = results.filter((r) => r.status === 200);
    expect(passed).toHaveLength(20);
    expect(passed.map((r) => Number(remaining(r))).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 20 }, (_, i) => i),
    );
    const refused = results.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(30);
    for (const r of refused) expect429(r, 20, 60);
  });

  test('finished windows are pruned; what is stored names no address, key or account', async () => {
    cluster = await startNodes(2, { SLINK_RATE_LIMIT: '10', SLINK_TRUST_PROXY: '1' });
    const [a, b] = cluster.nodes as [TestApp, TestApp];
    const { key, keyId } = await makeKey(a, 'read');
    for (let i = 0; i < 6; i++) {
      expect(
        (await api(i % 2 ? a : b, 'GET', '/me', { headers: { 'x-forwarded-for': `198.51.100.${i}` } })).status,
      ).toBe(401);
    }
    expect((await api(a, 'GET', '/me', { key })).status).toBe(200);
    const stored = await rows(cluster.url, 'SELECT identity, hits FROM rate_limit_windows');
    expect(stored).toHaveLength(7);
    for (const row of stored) {
      expect(row.identity).toMatch(/^[0-9a-f]{64}$/);
      expect(String(row.identity)).not.toContain(keyId);
    }
    // A window later, the next request of either node prunes the finished ones (in the background).
    cluster.advance(60_000);
    expect(remaining(await api(b, 'GET', '/me', { key }))).toBe('9');
    expect(remaining(await api(a, 'GET', '/me', { key }))).toBe('8');
    const url = cluster.url;
    await waitUntil(
      async () => (await rows(url, 'SELECT identity FROM rate_limit_windows')).length <= 1,
      'the finished windows to be pruned',
    );
    expect(await rows(cluster.url, 'SELECT hits FROM rate_limit_windows')).toEqual([{ hits: '2' }]);
  });
});

describe('the database out of reach', () => {
  test('each node counts in its own memory: answers as without a database, never 500; the database counts again once back', async () => {
    cluster = await startNodes(2, { SLINK_RATE_LIMIT: '3', SLINK_TRUST_PROXY: '1' });
    const [a, b] = cluster.nodes as [TestApp, TestApp];
    const { key } = await makeKey(a, 'write');
    const from = { 'x-forwarded-for': '192.0.2.1' };
    expect(remaining(await api(a, 'GET', '/me', { headers: from }))).toBe('2');
    await stopPostgres();
    try {
      // No key: nothing to read, so the API answers 401 as it would; counted in each node's memory.
      for (const [t, left] of [
        [a, '2'],
        [a, '1'],
        [b, '2'],
        [a, '0'],
      ] as const) {
        const res = await api(t, 'GET', '/me', { headers: from });
        expectError(res, 401, 'key_missing');
        expect(remaining(res)).toBe(left);
      }
      expect429(await api(a, 'GET', '/links', { headers: from }), 3, 60);
      // A key cannot be checked without the database: 503, as any request that needs it.
      const write = await api(b, 'POST', '/links', { key, body: { destination: 'https://example.com/' } });
      expectError(write, 503, 'storage_unavailable');
    } finally {
      await startPostgres();
    }
    for (const t of [a, b]) {
      expect(t.errors.some((e) => e.startsWith('rate limit: the database cannot count'))).toBe(true);
      expect(t.errors.filter((e) => e.includes('unhandled'))).toEqual([]);
      t.errors.length = 0;
    }
    // Back: the database's window (one request before the outage) counts again, on both nodes.
    for (const t of [a, b]) {
      let back: ApiResult | null = null;
      for (let spins = 0; spins < 200 && back?.status !== 200; spins++) {
        back = await api(t, 'GET', '/me', { key });
        if (back.status !== 200) await Bun.sleep(25);
      }
      expect(back!.status).toBe(200);
      // The restart's own refusals (503 while the server came up) are not under test.
      t.errors.length = 0;
    }
    expect(remaining(await api(b, 'GET', '/me', { headers: from }))).toBe('1');
    expect(remaining(await api(a, 'GET', '/me', { headers: from }))).toBe('0');
    expect429(await api(b, 'GET', '/me', { headers: from }), 3, 60);
  });
});
