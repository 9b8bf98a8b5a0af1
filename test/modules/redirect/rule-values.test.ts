/**
 * The values a rule's conditions take, through the real app on one SQLite database (values are
 * checked and compared in memory, the same on both engines): languages with regions.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { api, apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';
import { expectError } from '../../helpers/schema';

const SHORT = 'https://sl.test';
let t: TestApp;
let su: string;

beforeAll(async () => {
  t = await makeTestApp();
  su = (await makeKey(t, 'write', { superuser: true })).key;
});
afterAll(() => disposeTestApp(t));

const newLink = (slug: string, rules: unknown[]) =>
  apiExpecting(t, su, 'POST', '/links', { destination: 'https://example.com/l', slug, rules });

async function visit(path: string, headers: Record<string, string>): Promise<string | null> {
  const res = await t.app.handle(new Request(`${SHORT}${path}`, { headers }));
  await res.arrayBuffer();
  expect({ path, status: res.status }).toEqual({ path, status: 302 });
  return res.headers.get('location');
}

test('languages with a region: en-GB only for en-GB, en for every en; refused shapes name the field', async () => {
  await newLink('lang', [
    { when: { language: ['en-GB', 'de-AT'] }, destination: 'https://example.com/uk-at' },
    { when: { language: ['es-419'] }, destination: 'https://example.com/latam' },
    { when: { language: ['en'] }, destination: 'https://example.com/en' },
  ]);
  const cases: [string, string][] = [
    ['en-GB', 'https://example.com/uk-at'],
    ['fr, en-gb;q=0.5', 'https://example.com/uk-at'],
    ['de-AT', 'https://example.com/uk-at'],
    ['en-US', 'https://example.com/en'],
    ['en', 'https://example.com/en'],
    ['en-GB;q=0.4, en-US', 'https://example.com/en'],
    ['es-419', 'https://example.com/latam'],
    ['de-DE', 'https://example.com/l'],
    ['es', 'https://example.com/l'],
  ];
  for (const [header, location] of cases)
    expect({ header, location: await visit('/lang', { 'accept-language': header }) }).toEqual({ header, location });
  const link = await apiExpecting(t, su, 'GET', '/links?q=lang');
  expect(link.items[0].rules[0].when.language).toEqual(['en-GB', 'de-AT']);

  for (const value of ['en_GB', 'en-GBR', 'en-', 'en-1', 'en-Latn-GB'])
    expectError(
      await api(t, 'POST', '/links', {
        key: su,
        body: {
          destination: 'https://example.com/',
          rules: [{ when: { language: ['fr', value] }, destination: 'https://example.com/x' }],
        },
      }),
      400,
      'invalid_request',
      'rules[0].when.language',
    );
});

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const SAFARI_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';
const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

test('device is one of the names the statistics use: any other value is refused, naming the field', async () => {
  for (const value of ['phone', 'Mobiles', 'iphone'])
    expectError(
      await api(t, 'POST', '/links', {
        key: su,
        body: {
          destination: 'https://example.com/',
          rules: [
            { when: { device: ['desktop'] }, destination: 'https://example.com/d' },
            { when: { device: ['MOBILE', value] }, destination: 'https://example.com/x' },
          ],
        },
      }),
      400,
      'invalid_request',
      'rules[1].when.device',
    );
  await newLink('dev', [
    {
      when: { device: ['SmartTV', 'console', 'wearable', 'embedded', 'tablet'] },
      destination: 'https://example.com/o',
    },
    { when: { device: ['Mobile'] }, destination: 'https://example.com/m' },
  ]);
  expect(await visit('/dev', { 'user-agent': IPHONE })).toBe('https://example.com/m');
});

test('browser Safari also matches Mobile Safari (iPhones); Mobile Safari alone does not match a Mac', async () => {
  await newLink('saf', [{ when: { browser: ['Safari'] }, destination: 'https://example.com/safari' }]);
  await newLink('msaf', [{ when: { browser: ['mobile safari'] }, destination: 'https://example.com/msafari' }]);
  expect(await visit('/saf', { 'user-agent': IPHONE })).toBe('https://example.com/safari');
  expect(await visit('/saf', { 'user-agent': SAFARI_MAC })).toBe('https://example.com/safari');
  expect(await visit('/saf', { 'user-agent': CHROME_WINDOWS })).toBe('https://example.com/l');
  expect(await visit('/msaf', { 'user-agent': IPHONE })).toBe('https://example.com/msafari');
  expect(await visit('/msaf', { 'user-agent': SAFARI_MAC })).toBe('https://example.com/l');
});

test("referrer twitter.com or x.com also matches t.co, where X's links arrive from", async () => {
  await newLink('tw', [{ when: { referrer: ['twitter.com'] }, destination: 'https://example.com/tw' }]);
  await newLink('xc', [{ when: { referrer: ['x.com'] }, destination: 'https://example.com/x' }]);
  for (const slug of ['tw', 'xc']) {
    const to = slug === 'tw' ? 'https://example.com/tw' : 'https://example.com/x';
    expect(await visit(`/${slug}`, { referer: 'https://t.co/AbCdEf' })).toBe(to);
    expect(await visit(`/${slug}`, { referer: `https://${slug === 'tw' ? 'twitter.com' : 'x.com'}/u/status/1` })).toBe(
      to,
    );
    expect(await visit(`/${slug}`, { referer: 'https://at.co/' })).toBe('https://example.com/l');
  }
});
