/**
 * The link-password and sign-in throttles count a client once however its address is written
 * (behind SLINK_TRUST_PROXY: case, expanded or compressed IPv6, a zone, IPv4-mapped, `ip:port`),
 * an IPv6 client by its /64, and an X-Forwarded-For entry that is not an address as the proxy's
 * own address, never as a client of its own. Through the real app; one engine, since the keys
 * are made before either engine counts them. Checks answer at once (the keys, not argon2id, are
 * under test).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createAccount } from '../../src/modules/auth/accounts';
import { LINK_PASSWORD_LIMIT } from '../../src/modules/redirect/password/throttle';
import { SIGN_IN_LIMITS } from '../../src/modules/sessions/throttle';
import { apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../helpers/app';
import { dash, PASSWORD } from '../helpers/dashboard';
import { UA } from './clicks/support';

const SECRET = 'open sesame 42';
let t: TestApp;
let su: string;
let links = 0;

beforeAll(async () => {
  t = await makeTestApp({ SLINK_TRUST_PROXY: '1' });
  su = (await makeKey(t, 'write', { superuser: true })).key;
  t.deps.verifyPassword = async (password) => password === SECRET || password === PASSWORD;
});
afterAll(() => disposeTestApp(t));

/** A protected link of its own for each test (the throttle counts per link and address). */
async function newLink(): Promise<string> {
  const slug = `locked${++links}`;
  await apiExpecting(t, su, 'POST', '/links', { destination: 'https://example.com/x', slug, password: SECRET });
  return slug;
}

async function guess(slug: string, forwardedFor: string, password = 'wrong guess'): Promise<number> {
  const res = await t.app.handle(
    new Request(`https://sl.test/${slug}`, {
      headers: { 'user-agent': UA.chromeWin, 'x-forwarded-for': forwardedFor, 'x-slink-password': password },
    }),
  );
  return res.status;
}

/** `count` forms, cycled, of one client. */
const cycle = (forms: string[], count: number) => Array.from({ length: count }, (_, i) => forms[i % forms.length]!);

test('link password: the forms of one IPv4 address share its 10 wrong answers', async () => {
  const slug = await newLink();
  const forms = ['192.0.2.7', '192.0.2.7:40001', '::ffff:192.0.2.7', '::FFFF:C000:0207', '[::ffff:192.0.2.7]:443'];
  const statuses: number[] = [];
  for (const form of cycle(forms, LINK_PASSWORD_LIMIT)) statuses.push(await guess(slug, form));
  expect(statuses).toEqual(Array(LINK_PASSWORD_LIMIT).fill(401));
  for (const form of forms) expect({ form, status: await guess(slug, form, SECRET) }).toEqual({ form, status: 429 });
  expect(await guess(slug, '192.0.2.8')).toBe(401);
});

test('link password: an IPv6 client is counted by its /64, whatever address in it and however written', async () => {
  const slug = await newLink();
  const forms = Array.from(
    { length: LINK_PASSWORD_LIMIT },
    (_, i) =>
      [
        `2001:db8:1:2::${i + 1}`,
        `2001:DB8:1:2:0:0:0:${(i + 1).toString(16).toUpperCase()}`,
        `[2001:db8:1:2:${i}::1]:8080`,
        `2001:0db8:0001:0002::${i}%eth0`,
      ][i % 4]!,
  );
  const statuses: number[] = [];
  for (const form of forms) statuses.push(await guess(slug, form));
  expect(statuses).toEqual(Array(LINK_PASSWORD_LIMIT).fill(401));
  expect(await guess(slug, '2001:db8:1:2:ffff:ffff:ffff:fffe', SECRET)).toBe(429);
  // The next /64 is another client.
  expect(await guess(slug, '2001:db8:1:3::1', SECRET)).toBe(302);
});

test('link password: entries that are not addresses are the proxy’s own address, not a client each', async () => {
  const slug = await newLink();
  const junk = Array.from(
    { length: LINK_PASSWORD_LIMIT },
    (_, i) => [`unknown`, `client-${i}`, `1.2.3.${300 + i}`][i % 3]!,
  );
  const statuses: number[] = [];
  for (const entry of junk) statuses.push(await guess(slug, entry));
  expect(statuses).toEqual(Array(LINK_PASSWORD_LIMIT).fill(401));
  expect(await guess(slug, 'yet-another-name', SECRET)).toBe(429);
  // A client whose proxy named its address is counted on its own.
  expect(await guess(slug, '198.51.100.9', SECRET)).toBe(302);
});

test('sign-in: the forms of one address, and the addresses of one IPv6 /64, share its 20 failures', async () => {
  await createAccount(t.deps, { email: 'ada@example.com', password: PASSWORD });
  const signIn = async (email: string, forwardedFor: string, password = 'wrong password') =>
    (await dash(t, 'POST', '/session', { body: { email, password }, headers: { 'x-forwarded-for': forwardedFor } }))
      .status;
  for (const [client, forms, sameClient, other] of [
    [
      'IPv4',
      ['203.0.113.7', '203.0.113.7:5555', '::ffff:203.0.113.7', '[::FFFF:CB00:7107]:80'],
      '203.0.113.7',
      '203.0.113.8',
    ],
    [
      'IPv6 /64',
      ['2001:db8:9:9::1', '2001:DB8:9:9::2', '[2001:db8:9:9:1::1]:443', '2001:db8:9:9::3%1'],
      '2001:db8:9:9:abcd::1',
      '2001:db8:9:a::1',
    ],
  ] as const) {
    const statuses: number[] = [];
    // Each failure for an email of its own: only the address's count is reached.
    for (const [i, form] of cycle([...forms], SIGN_IN_LIMITS.perAddress).entries())
      statuses.push(await signIn(`guess${i}-${client}@example.com`, form));
    expect({ client, statuses }).toEqual({ client, statuses: Array(SIGN_IN_LIMITS.perAddress).fill(401) });
    expect({ client, status: await signIn('ada@example.com', sameClient, PASSWORD) }).toEqual({ client, status: 429 });
    expect({ client, status: await signIn('ada@example.com', other, PASSWORD) }).toEqual({ client, status: 200 });
  }
});
