/**
 * The session rules as a browser lives them (the API-level rules are in test/modules/sessions,
 * test/http/session-auth and test/modules/sign-in-throttle): the cookie as Chromium stores it,
 * another origin's form post carrying that cookie, the throttle's message on the sign-in page,
 * and an API key sent from a signed-in page.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { makeKey } from '../helpers/app';
import { PASSWORD } from '../helpers/dashboard';
import { dashboardPerFile, expectCleanPage, offlinePage, signedInPage } from '../helpers/dashboard-browser';
import { fillCredentials } from '../helpers/dashboard-process';

const d = dashboardPerFile();
const COOKIE = '__Host-slink_session';

// Another origin on loopback (same site, other port): its page posts a form to the app.
let other: ReturnType<typeof Bun.serve>;
beforeAll(() => {
  other = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: () =>
      new Response(
        `<!doctype html><form id="f" method="POST" action="${d.origin}/api/app/keys">
        <input name="scope" value="write"><input name="name" value="stolen"></form>
        <script>document.getElementById('f').submit()</script>`,
        { headers: { 'content-type': 'text/html' } },
      ),
  });
});
afterAll(() => other?.stop(true));

test('signing in through the form stores an HttpOnly, SameSite=Lax, Path=/ cookie scripts cannot read', async () => {
  const { account } = await makeKey(d.t, 'read');
  const p = await offlinePage(d.browser);
  await p.page.goto(`${d.origin}/app/sign-in`);
  await fillCredentials(p.page, account.email, PASSWORD, 'Sign in');
  await p.page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  const cookies = await p.page.context().cookies();
  expect(cookies.map((c) => c.name)).toEqual([COOKIE]);
  expect(cookies[0]).toMatchObject({ domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Lax', secure: true });
  // It lives as long as the session: SLINK_SESSION_DAYS (30) from now, not a browser-session cookie.
  expect(cookies[0]!.expires * 1000 - Date.now()).toBeGreaterThan(29 * 86_400_000);
  expect(await p.page.evaluate('document.cookie')).not.toContain('slink_session');
  await expectCleanPage(p);
  await p.page.close();
}, 60_000);

test("another origin's form post carries the cookie and is refused 403 csrf_rejected; nothing changes", async () => {
  const p = await signedInPage(d);
  const keysBefore = (await p.page.request.get(`${d.origin}/api/app/keys`)).json();
  const refused = p.page.waitForResponse((r) => r.url() === `${d.origin}/api/app/keys`);
  await p.page.goto(`http://127.0.0.1:${other.port}/`);
  const response = await refused;
  // The browser sent the session cookie along (same site): the origin rule is what refuses it.
  expect((await response.request().allHeaders()).cookie).toContain(`${COOKIE}=`);
  expect(response.status()).toBe(403);
  expect(((await response.json()) as { error: { code: string } }).error.code).toBe('csrf_rejected');
  expect(await (await p.page.request.get(`${d.origin}/api/app/keys`)).json()).toEqual(await keysBefore);
  await p.page.close();
}, 60_000);

test('after 5 failed sign-ins for an email the sign-in page says to wait', async () => {
  const { account } = await makeKey(d.t, 'read');
  const p = await offlinePage(d.browser);
  await p.page.goto(`${d.origin}/app/sign-in`);
  const alert = p.page.getByRole('alert');
  const signInAnswer = () =>
    p.page.waitForResponse((r) => r.url().endsWith('/api/app/session') && r.request().method() === 'POST');
  for (let i = 1; i <= 5; i++) {
    const answered = signInAnswer();
    await fillCredentials(p.page, account.email, `wrong password ${i}`, 'Sign in');
    expect((await answered).status()).toBe(401);
    await alert.getByText('Sign-in failed').waitFor();
    expect(await alert.textContent()).toContain('wrong email or password');
  }
  // The right password now: refused all the same until the window has passed.
  const refused = signInAnswer();
  await fillCredentials(p.page, account.email, PASSWORD, 'Sign in');
  expect([(await refused).status(), (await refused).headers()['retry-after']]).toEqual([
    429,
    expect.stringMatching(/^\d+$/),
  ]);
  await alert.getByText('Too many failed sign-ins').waitFor();
  expect(await alert.textContent()).toMatch(/retry in \d+ s/);
  expect(new URL(p.page.url()).pathname).toBe('/app/sign-in');
  await expectCleanPage(p);
  await p.page.close();
}, 60_000);

test('an API key sent from a signed-in page is refused on /api/app (403 session_required), cookie or not', async () => {
  const p = await signedInPage(d);
  await p.page.goto(`${d.origin}/app`);
  await p.page.getByRole('heading', { name: 'Links', level: 1 }).waitFor();
  const answer = await p.page.evaluate(
    `fetch('/api/app/keys', { headers: { authorization: 'Bearer ${p.key}' } }).then(async (r) => [r.status, (await r.json()).error.code])`,
  );
  expect(answer).toEqual([403, 'session_required']);
  // The same page without the header is signed in.
  expect(await p.page.evaluate(`fetch('/api/app/keys').then((r) => r.status)`)).toBe(200);
  await p.page.close();
}, 60_000);
