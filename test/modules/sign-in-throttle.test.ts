/**
 * Sign-in throttling: failures limited per email and per client address without telling which
 * emails exist, a throttled address refused before its body is read, and at most half the cores'
 * worth of argon2id verifications at once (one on 2 cores) with a short queue, so sign-in can
 * never take the CPU the redirects need. Verifications are observed through a counting verifier
 * injected in deps and the throttle's own counts, not through timing.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { fixedClock } from '../../src/lib/clock';
import { RateLimitedError } from '../../src/lib/errors';
import { createAccount } from '../../src/modules/auth/accounts';
import { SIGN_IN_LIMITS, SignInThrottle, signInLimits, verificationSlots } from '../../src/modules/sessions/throttle';
import { type ApiResult, api, makeTestApp, T0, type TestApp } from '../helpers/app';
import { dash, PASSWORD, SAME_ORIGIN, signIn } from '../helpers/dashboard';
import { forEachEngine } from '../helpers/engines';
import { firstSettled, until } from '../helpers/held-checks';
import { expectError } from '../helpers/schema';

const WINDOW_S = SIGN_IN_LIMITS.windowMs / 1000;

let t: TestApp;
afterEach(() => {
  expect(t.errors).toEqual([]);
  return t.close();
});

function attempt(t: TestApp, email: string, password: string, address = '198.51.100.1'): Promise<ApiResult> {
  return dash(t, 'POST', '/session', { body: { email, password }, headers: { 'x-forwarded-for': address } });
}

function expectThrottled(res: ApiResult, retryAfter: number): void {
  expectError(res, 429, 'rate_limited', null);
  expect(res.headers.get('retry-after')).toBe(String(retryAfter));
  expect(res.headers.get('set-cookie')).toBeNull();
}

/** Password checks that answer at once (the limits, not argon2id, are under test). */
function fastPasswords(t: TestApp): void {
  t.deps.verifyPassword = async (password) => password === PASSWORD;
}

forEachEngine((engine) => {
  describe('failures per email', () => {
    test('5 failures lock the email for 15 minutes, the right password included; unknown emails alike', async () => {
      t = await makeTestApp({ SLINK_TRUST_PROXY: '1' }, { engine });
      fastPasswords(t);
      await createAccount(t.deps, { email: 'ada@example.com', password: PASSWORD });
      for (const email of ['ada@example.com', 'nobody@example.com']) {
        for (let i = 0; i < SIGN_IN_LIMITS.perEmail; i++) {
          // Each from its own address: only the email's count is reached.
          expectError(await attempt(t, email, 'wrong password', `192.0.2.${i}`), 401, 'sign_in_failed');
        }
        expectThrottled(await attempt(t, email, 'wrong password', '192.0.2.99'), WINDOW_S);
      }
      // The same answer for the account that exists and the email that does not.
      const known = await attempt(t, 'ADA@example.com', PASSWORD, '192.0.2.100');
      const unknown = await attempt(t, 'nobody@example.com', PASSWORD, '192.0.2.100');
      expectThrottled(known, WINDOW_S);
      expect(known.text).toBe(unknown.text);
      t.clock.advance(SIGN_IN_LIMITS.windowMs - 60_000);
      expectThrottled(await attempt(t, 'ada@example.com', PASSWORD), 60);
      t.clock.advance(60_000);
      expect((await attempt(t, 'ada@example.com', PASSWORD)).status).toBe(200);
    });

    test('a success forgets the email’s failures', async () => {
      t = await makeTestApp({}, { engine });
      fastPasswords(t);
      await createAccount(t.deps, { email: 'ada@example.com', password: PASSWORD });
      for (let i = 0; i < 4; i++) expect((await attempt(t, 'ada@example.com', 'wrong')).status).toBe(401);
      expect((await attempt(t, 'ada@example.com', PASSWORD)).status).toBe(200);
      for (let i = 0; i < 5; i++) expect((await attempt(t, 'ada@example.com', 'wrong')).status).toBe(401);
      expectThrottled(await attempt(t, 'ada@example.com', 'wrong'), WINDOW_S);
    });
  });

  describe('failures per client address', () => {
    test('20 failures from one address lock that address for every email; other addresses go on', async () => {
      t = await makeTestApp({ SLINK_TRUST_PROXY: '1' }, { engine });
      fastPasswords(t);
      await createAccount(t.deps, { email: 'ada@example.com', password: PASSWORD });
      for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i++) {
        expectError(await attempt(t, `guess${i}@example.com`, 'wrong', '203.0.113.7'), 401, 'sign_in_failed');
      }
      expectThrottled(await attempt(t, 'ada@example.com', PASSWORD, '203.0.113.7'), WINDOW_S);
      expect((await attempt(t, 'ada@example.com', PASSWORD, '203.0.113.8')).status).toBe(200);
    });
  });

  describe('a throttled address is refused before any costly work', () => {
    test('no body read, no password verified: 429 for a body that is not even JSON, and for the right password', async () => {
      t = await makeTestApp({ SLINK_TRUST_PROXY: '1' }, { engine });
      let verified = 0;
      t.deps.verifyPassword = async (password) => {
        verified++;
        return password === PASSWORD;
      };
      await createAccount(t.deps, { email: 'ada@example.com', password: PASSWORD });
      for (let i = 0; i < SIGN_IN_LIMITS.perAddress; i++) {
        expect((await attempt(t, `guess${i}@example.com`, 'wrong', '203.0.113.7')).status).toBe(401);
      }
      expect(verified).toBe(SIGN_IN_LIMITS.perAddress);
      expectThrottled(await attempt(t, 'ada@example.com', PASSWORD, '203.0.113.7'), WINDOW_S);
      for (const rawBody of ['{"email": "ada@', '\u0000not json at all']) {
        const res = await api(t, 'POST', '/api/app/session', {
          rawBody,
          headers: { ...SAME_ORIGIN, 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.7' },
        });
        expectThrottled(res, WINDOW_S);
      }
      // The same malformed body from another address is read, and refused for what it is.
      const other = await api(t, 'POST', '/api/app/session', {
        rawBody: '{"email": "ada@',
        headers: { ...SAME_ORIGIN, 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.8' },
      });
      expectError(other, 400, 'invalid_request', 'body');
      expect(verified).toBe(SIGN_IN_LIMITS.perAddress);
      expect(t.deps.signInThrottle.stats).toEqual({ verified: SIGN_IN_LIMITS.perAddress, throttled: 3, busy: 0 });
    });

    test('a password change of a throttled account is refused before its body is read', async () => {
      t = await makeTestApp({ SLINK_TRUST_PROXY: '1' }, { engine });
      fastPasswords(t);
      const { cookie, email } = await signIn(t);
      for (let i = 0; i < SIGN_IN_LIMITS.perEmail; i++) {
        expect((await attempt(t, email, 'wrong', `192.0.2.${i}`)).status).toBe(401);
      }
      const res = await api(t, 'POST', '/api/app/password', {
        rawBody: 'not json',
        headers: { ...SAME_ORIGIN, cookie, 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.50' },
      });
      expectThrottled(res, WINDOW_S);
    });
  });

  describe('verification slots: half the cores, at least one', () => {
    test('derived from the number of cores', () => {
      expect([1, 2, 3, 4, 8, 16].map(verificationSlots)).toEqual([1, 1, 1, 2, 4, 8]);
      expect(SIGN_IN_LIMITS.verifying).toBe(verificationSlots(navigator.hardwareConcurrency));
    });

    test.each([2, 4])(
      'on %i cores: that many verify at once at most, 8 wait, the rest are 429 at once with Retry-After: 1',
      async (cores) => {
        t = await makeTestApp({ SLINK_TRUST_PROXY: '1' }, { engine });
        const limits = signInLimits(cores);
        t.deps.signInThrottle = new SignInThrottle(t.clock, limits);
        let running = 0;
        let most = 0;
        let verified = 0;
        let open!: () => void;
        const gate = new Promise<void>((resolve) => {
          open = resolve;
        });
        t.deps.verifyPassword = async () => {
          running++;
          verified++;
          most = Math.max(most, running);
          await gate;
          running--;
          return false;
        };
        const all = Array.from({ length: 25 }, (_, i) =>
          attempt(t, `someone${i}@example.com`, 'whatever', `198.51.100.${i}`),
        );
        // Everything beyond the slots and the queue is refused without waiting for a verification.
        // (Waited for as read, never timed: the first unknown email may first make the dummy hash.)
        const slots = verificationSlots(cores);
        const beyond = 25 - slots - limits.waiting;
        const settled = await firstSettled(all, beyond);
        await until(() => running === slots && t.deps.signInThrottle.slots.waitingOf('signIn') === limits.waiting);
        for (const res of settled) expectThrottled(res, 1);
        expect({ running, most }).toEqual({ running: slots, most: slots });
        open();
        const answers = await Promise.all(all);
        expect(most).toBe(slots);
        expect(verified).toBe(slots + limits.waiting);
        expect(answers.filter((r) => r.status === 401)).toHaveLength(slots + limits.waiting);
        expect(answers.filter((r) => r.status === 429)).toHaveLength(beyond);
        expect(t.deps.signInThrottle.stats).toEqual({ verified: slots + limits.waiting, throttled: 0, busy: beyond });
        // A refusal for load is not a failure: those emails and addresses may try again at once.
        expect((await attempt(t, 'someone24@example.com', 'whatever', '198.51.100.24')).status).toBe(401);
      },
    );
  });
});

describe('SignInThrottle (unit)', () => {
  test('counts an attempt from its start, takes it back on success or cancel', () => {
    const clock = fixedClock(T0);
    const throttle = new SignInThrottle(clock, { ...SIGN_IN_LIMITS, perEmail: 2 });
    const a = throttle.begin('a@example.com', '1.1.1.1');
    throttle.begin('A@example.com ', '1.1.1.2');
    // Two attempts in flight reach the limit before either has failed.
    expect(() => throttle.begin('a@example.com', '1.1.1.3')).toThrow(RateLimitedError);
    a.cancelled();
    const b = throttle.begin('a@example.com', '1.1.1.3');
    b.succeeded();
    throttle.begin('a@example.com', '1.1.1.3');
    throttle.begin('a@example.com', '1.1.1.3');
    clock.advance(60_000);
    try {
      throttle.begin('a@example.com', '1.1.1.4');
      throw new Error('not refused');
    } catch (err) {
      expect(err).toBeInstanceOf(RateLimitedError);
      expect((err as RateLimitedError).retryAfter).toBe(WINDOW_S - 60);
    }
  });
});
