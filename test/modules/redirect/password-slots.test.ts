/**
 * Link passwords and sign-in check passwords in the same verification slots (sessions/
 * verification-slots.ts): a flood of guesses at a protected link never has more checks running
 * than the slots allow, waits in the same short queue, is answered 429 (Retry-After: 1) beyond
 * it without anything verified or counted, leaves sign-in no more room than that, and never
 * holds up a redirect. The checks are held open by the test (the slots, not argon2id, are under
 * test); one engine, since the slots are each process's own.
 */
import { afterEach, expect, test } from 'bun:test';
import { SIGN_IN_LIMITS } from '../../../src/modules/sessions/throttle';
import { apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';
import { dash } from '../../helpers/dashboard';
import { expectError } from '../../helpers/schema';
import { UA } from '../clicks/support';

const SECRET = 'open sesame 42';
let t: TestApp;
afterEach(() => disposeTestApp(t));

function post(path: string, password: string, ip: string) {
  return t.app.handle(
    new Request(`https://sl.test${path}`, {
      method: 'POST',
      headers: {
        'user-agent': UA.chromeWin,
        'x-forwarded-for': ip,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: `password=${encodeURIComponent(password)}`,
    }),
  );
}

test('a flood of guesses: the slots run at most their number, the queue waits, the rest is 429 at once; redirects answer meanwhile', async () => {
  t = await makeTestApp({ SLINK_TRUST_PROXY: '1' });
  const { key } = await makeKey(t, 'write', { superuser: true });
  await apiExpecting(t, key, 'POST', '/links', {
    destination: 'https://example.com/s',
    slug: 'secret',
    password: SECRET,
  });
  await apiExpecting(t, key, 'POST', '/links', { destination: 'https://example.com/open', slug: 'open' });
  const { verifying: slots, waiting } = SIGN_IN_LIMITS;
  let running = 0;
  let most = 0;
  let verified = 0;
  let open!: () => void;
  const held = new Promise<void>((resolve) => {
    open = resolve;
  });
  t.deps.verifyPassword = async (password) => {
    running++;
    verified++;
    most = Math.max(most, running);
    await held;
    running--;
    return password === SECRET;
  };
  const beyond = 3;
  const settled: Response[] = [];
  // Each guess from its own address: the per-address throttle is not what refuses them.
  const all = Array.from({ length: slots + waiting + beyond }, (_, i) =>
    post('/secret', `guess number ${i}`, `198.51.100.${i}`).then((res) => {
      settled.push(res);
      return res;
    }),
  );
  for (let spins = 0; (settled.length < beyond || running < slots) && spins < 2000; spins++) await Bun.sleep(5);
  expect({ settled: settled.length, running, most }).toEqual({ settled: beyond, running: slots, most: slots });
  for (const res of settled) {
    expect({ status: res.status, retryAfter: res.headers.get('retry-after') }).toEqual({
      status: 429,
      retryAfter: '1',
    });
    expect(await res.text()).toContain('Too many attempts at once. Try again in a moment.');
  }
  // Sign-in shares the slots: none is free, so it is refused for load too.
  const signIn = await dash(t, 'POST', '/session', {
    body: { email: 'someone@example.com', password: 'whatever else' },
    headers: { 'x-forwarded-for': '203.0.113.50' },
  });
  expectError(signIn, 429, 'rate_limited', null);
  // A redirect is answered at once, whatever is waiting for a check.
  const redirect = await t.app.handle(new Request('https://sl.test/open', { headers: { 'user-agent': UA.chromeWin } }));
  expect({ status: redirect.status, location: redirect.headers.get('location') }).toEqual({
    status: 302,
    location: 'https://example.com/open',
  });
  open();
  const answers = await Promise.all(all);
  expect(answers.map((r) => r.status).sort()).toEqual([
    ...Array(slots + waiting).fill(401),
    ...Array(beyond).fill(429),
  ]);
  expect({ most, verified }).toEqual({ most: slots, verified: slots + waiting });
  // A refusal for load was not counted as a wrong answer: that address may try again at once.
  expect((await post('/secret', SECRET, `198.51.100.${slots + waiting}`)).status).toBe(302);
});
