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
