/**
 * Link passwords and sign-in check passwords in the same verification slots (sessions/
 * verification-slots.ts), each with waiting places of its own, taking turns: a flood of guesses
 * at a protected link from many addresses never has more checks running than the slots allow,
 * is answered 429 (Retry-After: 1) beyond its own places without anything verified or counted,
 * never holds up a redirect, and never keeps a right sign-in out: each one waits behind at most
 * one guess. A check that waited and got no answer (no slot in time, the verifier stopped) is
 * 503 with Retry-After, never a 500. The checks are held open by the test (the slots, not
 * argon2id, are under test), except where the real verifier is stopped; one engine, since the
 * slots are each process's own.
 */
import { afterEach, beforeEach, expect, test } from 'bun:test';
import { createAccount } from '../../../src/modules/auth/accounts';
import { RETRY_AFTER_S } from '../../../src/modules/sessions/verification-slots';
import { apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';
import { dash, PASSWORD } from '../../helpers/dashboard';
import { firstSettled, holdChecks, until } from '../../helpers/held-checks';
import { expectError } from '../../helpers/schema';
import { UA } from '../clicks/support';

const SECRET = 'open sesame 42';
const EMAIL = 'ada@example.com';
let t: TestApp;

beforeEach(async () => {
  t = await makeTestApp({ SLINK_TRUST_PROXY: '1' });
  const { key } = await makeKey(t, 'write', { superuser: true });
  await apiExpecting(t, key, 'POST', '/links', {
    destination: 'https://example.com/s',
    slug: 'secret',
    password: SECRET,
  });
  await apiExpecting(t, key, 'POST', '/links', { destination: 'https://example.com/open', slug: 'open' });
  await createAccount(t.deps, { email: EMAIL, password: PASSWORD });
});
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

function withHeader(path: string, password: string, ip: string) {
  return t.app.handle(
    new Request(`https://sl.test${path}`, {
      headers: { 'user-agent': UA.chromeWin, 'x-forwarded-for': ip, 'x-slink-password': password },
    }),
  );
}

function signIn(password: string, ip: string) {
  return dash(t, 'POST', '/session', { body: { email: EMAIL, password }, headers: { 'x-forwarded-for': ip } });
}

test('a flood of guesses from many addresses: at most the slots run, their places wait, the rest is 429 at once; redirects answer; right sign-ins get in, each behind one guess at most', async () => {
  const slots = t.deps.verificationSlots;
  const { verifying, waiting } = slots.limits;
  const checks = holdChecks(t);
  const beyond = 3;
  // Each guess from its own address: the per-address throttle is not what refuses them.
  const guesses = Array.from({ length: verifying + waiting + beyond }, (_, i) =>
    post('/secret', `guess number ${i}`, `198.51.100.${i}`),
  );
  for (const res of await firstSettled(guesses, beyond)) {
    expect({ status: res.status, retryAfter: res.headers.get('retry-after') }).toEqual({
      status: 429,
      retryAfter: '1',
    });
    expect(await res.text()).toContain('Too many attempts at once. Try again in a moment.');
  }
  await until(() => checks.running === verifying && slots.waitingOf('link') === waiting);
  // A redirect is answered at once, whatever is waiting for a check.
  const redirect = await t.app.handle(new Request('https://sl.test/open', { headers: { 'user-agent': UA.chromeWin } }));
  expect({ status: redirect.status, location: redirect.headers.get('location') }).toEqual({
    status: 302,
    location: 'https://example.com/open',
  });
  // Right sign-ins one after another, while the guesses keep their places full.
  for (let round = 0; round < 3; round++) {
    const signedIn = signIn(PASSWORD, `203.0.113.${round}`);
    await until(() => slots.waitingOf('signIn') === 1);
    const guessesWaiting = slots.waitingOf('link');
    const started = checks.started;
    // One guess ends: the slot it frees goes to the sign-in, ahead of every guess waiting.
    const guess = checks.open()[0]!;
    expect(guess.password).toStartWith('guess number');
    guess.answer(false);
    const next = await checks.nth(started);
    expect({ password: next.password, guessesWaiting: slots.waitingOf('link') }).toEqual({
      password: PASSWORD,
      guessesWaiting,
    });
    next.answer(true);
    const res = await signedIn;
    expect({ status: res.status, email: res.body.account?.email }).toEqual({ status: 200, email: EMAIL });
  }
  checks.answerAll((password) => password === SECRET);
  const answers = await Promise.all(guesses);
  expect(answers.map((r) => r.status).sort()).toEqual([
    ...Array(verifying + waiting).fill(401),
    ...Array(beyond).fill(429),
  ]);
  expect({ most: checks.most, started: checks.started }).toEqual({ most: verifying, started: verifying + waiting + 3 });
  // A refusal for load was not counted as a wrong answer: that address may try again at once.
  expect((await post('/secret', SECRET, `198.51.100.${verifying + waiting}`)).status).toBe(302);
});

test('sign-ins beyond their own waiting places are refused at once (429), whatever the guesses do', async () => {
  const slots = t.deps.verificationSlots;
  const { verifying, waiting } = slots.limits;
  const checks = holdChecks(t);
  const guesses = Array.from({ length: verifying }, (_, i) => post('/secret', `guess number ${i}`, `198.51.100.${i}`));
  await checks.nth(verifying - 1);
  // Each of its own email and address: the failure limits are not what refuses them.
  const signIns = Array.from({ length: waiting + 2 }, (_, i) =>
    dash(t, 'POST', '/session', {
      body: { email: `someone${i}@example.com`, password: 'not the password' },
      headers: { 'x-forwarded-for': `203.0.113.${i}` },
    }),
  );
  for (const res of await firstSettled(signIns, 2)) {
    expectError(res, 429, 'rate_limited', null);
    expect(res.headers.get('retry-after')).toBe('1');
  }
  expect(slots.waitingOf('signIn')).toBe(waiting);
  checks.answerAll(() => false);
  expect((await Promise.all(guesses)).map((r) => r.status)).toEqual(Array(verifying).fill(401));
  expect((await Promise.all(signIns)).map((r) => r.status).sort()).toEqual([
    ...Array(waiting).fill(401),
    ...Array(2).fill(429),
  ]);
});

test('a check that gets no slot in time: 503 with Retry-After for the form (the form page), the header and sign-in; not counted', async () => {
  const slots = t.deps.verificationSlots;
  // A wait that has certainly passed while the slots are held; nothing here measures it.
  slots.limits.waitMs = 1;
  const checks = holdChecks(t);
  const held = Array.from({ length: slots.limits.verifying }, (_, i) =>
    post('/secret', `guess number ${i}`, `198.51.100.${i}`),
  );
  await checks.nth(slots.limits.verifying - 1);
  const form = await post('/secret', SECRET, '192.0.2.7');
  expect({
    status: form.status,
    retryAfter: form.headers.get('retry-after'),
    cache: form.headers.get('cache-control'),
    type: form.headers.get('content-type'),
  }).toEqual({
    status: 503,
    retryAfter: String(RETRY_AFTER_S),
    cache: 'no-store',
    type: 'text/html; charset=utf-8',
  });
  const page = await form.text();
  expect(page).toContain('<h1>Password required</h1>');
  expect(page).toContain(
    `<p id="password-error" class="error" role="alert">The server is too busy to check the password right now. Try again in ${RETRY_AFTER_S} seconds.</p>`,
  );
  const header = await withHeader('/secret', SECRET, '192.0.2.7');
  expect({ status: header.status, retryAfter: header.headers.get('retry-after'), body: await header.json() }).toEqual({
    status: 503,
    retryAfter: String(RETRY_AFTER_S),
    body: {
      error: {
        code: 'verification_unavailable',
        message: `The server is too busy to check the password now: retry in ${RETRY_AFTER_S} s`,
        field: null,
      },
    },
  });
  const signedIn = await signIn(PASSWORD, '192.0.2.8');
  expectError(signedIn, 503, 'verification_unavailable', null);
  expect(signedIn.headers.get('retry-after')).toBe(String(RETRY_AFTER_S));
  expect(t.deps.signInThrottle.stats.busy).toBe(1);
  checks.answerAll((password) => password === SECRET || password === PASSWORD);
  expect((await Promise.all(held)).map((r) => r.status)).toEqual(Array(slots.limits.verifying).fill(401));
  // Nothing was decided, so nothing was counted: the same address gets in with the right password.
  expect(checks.started).toBe(slots.limits.verifying);
  expect((await withHeader('/secret', SECRET, '192.0.2.7')).status).toBe(302);
  expect((await signIn(PASSWORD, '192.0.2.8')).status).toBe(200);
});

test('a check the verifier could not answer (stopped while checking, as at a server stop) is 503 with Retry-After, not 500', async () => {
  // The real verifier, stopped as soon as each check is handed to its Worker.
  t.deps.verifyPassword = (password, hash) => {
    const check = t.deps.passwordVerifier.verify(password, hash);
    t.deps.passwordVerifier.close();
    return check;
  };
  const form = await post('/secret', SECRET, '192.0.2.7');
  expect({ status: form.status, retryAfter: form.headers.get('retry-after') }).toEqual({
    status: 503,
    retryAfter: String(RETRY_AFTER_S),
  });
  expect(await form.text()).toContain('The server is too busy to check the password right now.');
  const header = await withHeader('/secret', SECRET, '192.0.2.7');
  expect({ status: header.status, retryAfter: header.headers.get('retry-after') }).toEqual({
    status: 503,
    retryAfter: String(RETRY_AFTER_S),
  });
  expect(((await header.json()) as { error: { code: string } }).error.code).toBe('verification_unavailable');
  const signedIn = await signIn(PASSWORD, '192.0.2.8');
  expectError(signedIn, 503, 'verification_unavailable', null);
  expect(t.errors).toEqual(Array(3).fill('a password check was not answered: the password verifier was closed'));
  t.errors.length = 0;
});
