/**
 * The sign-in throttle across several nodes on one PostgreSQL database: 5 failures per email and
 * 20 per client address in 15 minutes, whichever nodes the attempts reached; attempts in flight
 * on several nodes cannot overshoot a limit; a node that knows an address is throttled refuses it
 * before reading the body; a success forgets the email's failures on every node. What is stored
 * names no email and no address, and finished windows are pruned.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { openPostgres } from '../../src/db/postgres/client';
import { createAccount } from '../../src/modules/auth/accounts';
import { SIGN_IN_LIMITS } from '../../src/modules/sessions/throttle';
import { type ApiResult, api, type TestApp } from '../helpers/app';
import { dash, PASSWORD, SAME_ORIGIN } from '../helpers/dashboard';
import { type Nodes, startNodes } from '../helpers/nodes';
import { expectError } from '../helpers/schema';

const WINDOW_S = SIGN_IN_LIMITS.windowMs / 1000;

let cluster: Nodes | null = null;
afterEach(async () => {
  const c = cluster;
  cluster = null;
  if (c) await c.close();
});

function attempt(t: TestApp, email: string, password: string, address: string): Promise<ApiResult> {
  return dash(t, 'POST', '/session', { body: { email, password }, headers: { 'x-forwarded-for': address } });
}

function expectThrottled(res: ApiResult, retryAfter: number): void {
  expectError(res, 429, 'rate_limited', null);
  expect(res.headers.get('retry-after')).toBe(String(retryAfter));
  expect(res.headers.get('set-cookie')).toBeNull();
}

/** Two nodes whose password checks answer at once and are counted (the limits, not argon2id, are under test). */
async function twoNodes(): Promise<{ a: TestApp; b: TestApp; verified: () => number }> {
  cluster = await startNodes(2, { SLINK_TRUST_PROXY: '1' });
  const [a, b] = cluster.nodes as [TestApp, TestApp];
  let verified = 0;
  for (const t of [a, b]) {
    t.deps.verifyPassword = async (password) => {
      verified++;
      return password === PASSWORD;
    };
  }
  await createAccount(a.deps, { email: 'ada@example.com', password: PASSWORD });
  return { a, b, verified: () => verified };
}

describe('sign-in throttling across nodes (PostgreSQL)', () => {
  test('five wrong passwords for one email, alternating between nodes, lock it on both: the right one is refused on either', async () => {
    const { a, b } = await twoNodes();
    for (let i = 0; i < SIGN_IN_LIMITS.perEmail; i++) {
      // Each from its own address: only the email's count is reached.
      expectError(await attempt(i % 2 ? b : a, 'ada@example.com', 'wrong', `192.0.2.${i}`), 401, 'sign_in_failed');
    }
    const onB = await attempt(b, 'ADA@example.com', PASSWORD, '192.0.2.50');
    const onA = await attempt(a, 'ada@example.com', PASSWORD, '192.0.2.51');
    expectThrottled(onB, WINDOW_S);
    expectThrottled(onA, WINDOW_S);
    expect(onA.text).toBe(onB.text);
    cluster!.advance(SIGN_IN_LIMITS.windowMs - 60_000);
    expectThrottled(await attempt(b, 'ada@example.com', PASSWORD, '192.0.2.52'), 60);
    expectThrottled(await attempt(a, 'ada@example.com', PASSWORD, '192.0.2.52'), 60);
    cluster!.advance(60_000);
    const res = await attempt(b, 'ada@example.com', PASSWORD, '192.0.2.52');
    expect({ status: res.status, email: res.body.account?.email }).toEqual({ status: 200, email: 'ada@example.com' });
  });

  test('twenty failures from one address, alternating between nodes, lock that address on both; other addresses go on', async () => {
    const { a, b } = await twoNodes();
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i++) {
      expectError(await attempt(i % 2 ? b : a, `guess${i}@example.com`, 'wrong', '203.0.113.7'), 401, 'sign_in_failed');
    }
    expectThrottled(await attempt(a, 'ada@example.com', PASSWORD, '203.0.113.7'), WINDOW_S);
    expectThrottled(await attempt(b, 'ada@example.com', PASSWORD, '203.0.113.7'), WINDOW_S);
    expect((await attempt(a, 'ada@example.com', PASSWORD, '203.0.113.8')).status).toBe(200);
    expect((await attempt(b, 'ada@example.com', PASSWORD, '203.0.113.8')).status).toBe(200);
  });

  test('once a node knows an address is throttled, it refuses it before reading the body or asking the database', async () => {
    const { a, b, verified } = await twoNodes();
    // Node B counts the last failure: it knows at once; node A learns it from its next attempt.
    for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i++) {
      expect((await attempt(i % 2 ? b : a, `guess${i}@example.com`, 'wrong', '203.0.113.7')).status).toBe(401);
    }
    expect(verified()).toBe(SIGN_IN_LIMITS.perAddress);
    const malformed = (t: TestApp) =>
      api(t, 'POST', '/api/app/session', {
        rawBody: '{"email": "ada@',
        headers: { ...SAME_ORIGIN, 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7' },
      });
    expectThrottled(await malformed(b), WINDOW_S);
    expectThrottled(await attempt(a, 'ada@example.com', PASSWORD, '203.0.113.7'), WINDOW_S);
    expectThrottled(await malformed(a), WINDOW_S);
    expect(verified()).toBe(SIGN_IN_LIMITS.perAddress);
    expect([a.deps.signInThrottle.stats, b.deps.signInThrottle.stats]).toEqual([
      { verified: SIGN_IN_LIMITS.perAddress / 2, throttled: 2, busy: 0 },
      { verified: SIGN_IN_LIMITS.perAddress / 2, throttled: 1, busy: 0 },
    ]);
  });

  test('a success on one node forgets the email’s failures on every node', async () => {
    const { a, b } = await twoNodes();
    for (let i = 0; i < 4; i++)
      expect((await attempt(i % 2 ? b : a, 'ada@example.com', 'wrong', '192.0.2.1')).status).toBe(401);
    expect((await attempt(a, 'ada@example.com', PASSWORD, '192.0.2.1')).status).toBe(200);
    for (let i = 0; i < 5; i++)
      expect((await attempt(i % 2 ? a : b, 'ada@example.com', 'wrong', '192.0.2.1')).status).toBe(401);
    expectThrottled(await attempt(b, 'ada@example.com', 'wrong', '192.0.2.1'), WINDOW_S);
    expectThrottled(await attempt(a, 'ada@example.com', PASSWORD, '192.0.2.1'), WINDOW_S);
  });

  test('attempts in flight on both nodes at once cannot overshoot the limit: exactly five are checked', async () => {
    const { a, b } = await twoNodes();
    let checked = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    for (const t of [a, b]) {
      t.deps.verifyPassword = async () => {
        checked++;
        await gate;
        return false;
      };
    }
    const settled: ApiResult[] = [];
    const all = Array.from({ length: 12 }, (_, i) =>
      attempt(i % 2 ? b : a, 'ada@example.com', 'wrong', `198.51.100.${i}`).then((res) => {
        settled.push(res);
        return res;
      }),
    );
    // The attempts beyond the limit are refused while the first five still wait to be checked.
    for (let spins = 0; settled.length < 12 - SIGN_IN_LIMITS.perEmail && spins < 2000; spins++) await Bun.sleep(5);
    expect(settled).toHaveLength(12 - SIGN_IN_LIMITS.perEmail);
    for (const res of settled) expectThrottled(res, WINDOW_S);
    open();
    const answers = await Promise.all(all);
    expect(answers.filter((r) => r.status === 401)).toHaveLength(SIGN_IN_LIMITS.perEmail);
    expect(answers.filter((r) => r.status === 429)).toHaveLength(12 - SIGN_IN_LIMITS.perEmail);
    expect(checked).toBe(SIGN_IN_LIMITS.perEmail);
  });

  test('what is stored names no email and no address; finished windows are pruned', async () => {
    const { a, b } = await twoNodes();
    expect((await attempt(a, 'ada@example.com', 'wrong', '203.0.113.77')).status).toBe(401);
    expect((await attempt(b, 'nobody@example.com', 'wrong', '203.0.113.78')).status).toBe(401);
    const sql = openPostgres(cluster!.url, 1);
    try {
      const rows = [...(await sql`SELECT key, failures FROM sign_in_failures ORDER BY key`)];
      expect(rows).toHaveLength(4);
      for (const row of rows) {
        expect(row).toEqual({ key: expect.stringMatching(/^[0-9a-f]{64}$/), failures: 1 });
      }
      // A window later, the next attempt of a node prunes the finished windows (in the background).
      cluster!.advance(SIGN_IN_LIMITS.windowMs);
      expect((await attempt(b, 'ada@example.com', 'wrong', '203.0.113.79')).status).toBe(401);
      let left = rows.length + 2;
      for (let spins = 0; left > 2 && spins < 400; spins++) {
        await Bun.sleep(5);
        left = (await sql`SELECT key FROM sign_in_failures`).length;
      }
      expect(left).toBe(2);
    } finally {
      await sql.close();
    }
  });
});
