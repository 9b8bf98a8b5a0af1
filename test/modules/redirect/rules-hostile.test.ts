/**
 * What a hostile request may make a rule link do, through the real app on one SQLite database
 * (the engine plays no part: the query and the agent are read in memory): a long query of bad
 * escapes is still answered right, and only the first parameters of a query are read (rules'
 * `query` and forwardQuery). What it costs per request is bench:rules' measure.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { QUERY_READ_LIMITS } from '../../../src/lib/query';
import { apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';

const SHORT = 'https://sl.test';
let t: TestApp;
let su: string;

beforeAll(async () => {
  t = await makeTestApp();
  su = (await makeKey(t, 'write', { superuser: true })).key;
});
afterAll(() => disposeTestApp(t));

const newLink = (slug: string, extra: Record<string, unknown>) =>
  apiExpecting(t, su, 'POST', '/links', { destination: 'https://example.com/l', slug, ...extra });

async function visit(path: string, userAgent?: string): Promise<{ status: number; location: string | null }> {
  const res = await t.app.handle(
    new Request(`${SHORT}${path}`, { headers: userAgent === undefined ? {} : { 'user-agent': userAgent } }),
  );
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get('location') };
}

/** 15.6 KB of escapes no decoder can read, as a hostile client sends them. */
const BAD_ESCAPES = Array.from({ length: 3900 }, (_, i) => `%z${i % 10}`).join('&');

test('a long query of bad escapes: the rule on its first parameter holds, forwardQuery forwards its first parameters', async () => {
  await newLink('hq', {
    rules: [{ when: { query: { src: 'x' } }, destination: 'https://example.com/x' }],
    forwardQuery: true,
  });
  const firstParts = BAD_ESCAPES.split('&').slice(0, QUERY_READ_LIMITS.parts - 1);
  expect(await visit(`/hq?src=x&${BAD_ESCAPES}`)).toEqual({
    status: 302,
    location: `https://example.com/x?src=x&${firstParts.join('&')}`,
  });
  // A bad escape is compared as written: `%zz` is the value `%zz`.
  await newLink('hq2', { rules: [{ when: { query: { '%zz': '%Z1' } }, destination: 'https://example.com/z' }] });
  expect(await visit('/hq2?%zz=%z1&a=%C3%28')).toEqual({ status: 302, location: 'https://example.com/z' });
  expect(await visit('/hq2?%25zz=%25z1')).toEqual({ status: 302, location: 'https://example.com/z' });
});

test('only the first parameters of the query are read: a rule key past them does not hold, nor is it forwarded', async () => {
  await newLink('far', {
    rules: [{ when: { query: { late: null } }, destination: 'https://example.com/late' }],
    forwardQuery: true,
  });
  const filler = Array.from({ length: QUERY_READ_LIMITS.parts }, (_, i) => `f${i}=1`).join('&');
  expect(await visit(`/far?${filler}&late=1`)).toEqual({
    status: 302,
    location: `https://example.com/l?${filler}`,
  });
  // Within the characters read: held, and forwarded.
  expect(await visit('/far?a=1&late=1')).toEqual({ status: 302, location: 'https://example.com/late?a=1&late=1' });
  // Past the first characters, even among few parameters: a parameter cut by the limit is left out whole.
  const long = 'v'.repeat(QUERY_READ_LIMITS.chars);
  expect(await visit(`/far?a=1&b=${long}&late=1`)).toEqual({ status: 302, location: 'https://example.com/l?a=1' });
});

test('an agent longer than what is parsed: its first characters decide, as for any agent', async () => {
  await newLink('ag', { rules: [{ when: { device: ['mobile'] }, destination: 'https://example.com/m' }] });
  const iphone =
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
  for (let i = 0; i < 3; i++)
    expect(await visit('/ag', `${iphone} ${'x'.repeat(600)}${i}`)).toEqual({
      status: 302,
      location: 'https://example.com/m',
    });
});
