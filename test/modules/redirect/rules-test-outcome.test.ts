/**
 * POST /links/{id}/rules/test answers what a visitor would really get, in the redirect's order:
 * a paused link, an expired one, one past its click limit (with and without a fallback), a
 * protected one, a preview crawler; each compared with what the short link itself answers. One
 * SQLite database: the checks read the slug index in memory, the same on both engines.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { apiExpecting, disposeTestApp, makeKey, makeTestApp, T0, type TestApp } from '../../helpers/app';

const SHORT = 'https://sl.test';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const SLACKBOT = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)';
const RULES = [{ when: { device: ['mobile'] }, destination: 'https://example.com/m' }];

let t: TestApp;
let su: string;

beforeAll(async () => {
  t = await makeTestApp();
  su = (await makeKey(t, 'write', { superuser: true })).key;
});
afterAll(() => disposeTestApp(t));

const newLink = (slug: string, extra: Record<string, unknown> = {}) =>
  apiExpecting(t, su, 'POST', '/links', { destination: 'https://example.com/l', slug, rules: RULES, ...extra });
const check = (id: string, body: Record<string, unknown> = { userAgent: IPHONE }) =>
  apiExpecting(t, su, 'POST', `/links/${id}/rules/test`, body, 200);

async function visit(slug: string, userAgent = IPHONE): Promise<{ status: number; location: string | null }> {
  const res = await t.app.handle(new Request(`${SHORT}/${slug}`, { headers: { 'user-agent': userAgent } }));
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get('location') };
}

test('a live link: the rule that matched and where it sends, as the redirect does', async () => {
  const link = await newLink('live');
  expect(await check(link.id)).toEqual({ outcome: 'redirect', rule: 0, location: 'https://example.com/m' });
  expect(await visit('live')).toEqual({ status: 302, location: 'https://example.com/m' });
});

test('paused: the 404 page, no rule, no location', async () => {
  const link = await newLink('pau');
  await apiExpecting(t, su, 'PATCH', `/links/${link.id}`, { status: 'paused' });
  expect(await check(link.id)).toEqual({ outcome: 'paused', rule: null, location: null });
  expect((await visit('pau')).status).toBe(404);
});

test('expired: the 410 page, or the fallback; a visit at an earlier time still matches the rule', async () => {
  const bare = await newLink('exp', { expiresAt: T0 + 1000 });
  const fb = await newLink('expfb', { expiresAt: T0 + 1000, fallbackUrl: 'https://example.com/gone' });
  expect(await check(bare.id, { userAgent: IPHONE, at: T0 + 1000 })).toEqual({
    outcome: 'expired',
    rule: null,
    location: null,
  });
  expect(await check(fb.id, { userAgent: IPHONE, at: T0 + 1000 })).toEqual({
    outcome: 'fallback',
    rule: null,
    location: 'https://example.com/gone',
  });
  expect(await check(fb.id, { userAgent: IPHONE, at: T0 + 999 })).toEqual({
    outcome: 'redirect',
    rule: 0,
    location: 'https://example.com/m',
  });
});

test('click limit reached: the 410 page, or the fallback, as the next visitor gets', async () => {
  const bare = await newLink('lim', { clickLimit: 1 });
  const fb = await newLink('limfb', { clickLimit: 1, fallbackUrl: 'https://example.com/full' });
  expect(await check(fb.id)).toEqual({ outcome: 'redirect', rule: 0, location: 'https://example.com/m' });
  expect(await visit('lim')).toEqual({ status: 302, location: 'https://example.com/m' });
  expect(await visit('limfb')).toEqual({ status: 302, location: 'https://example.com/m' });
  expect(await check(bare.id)).toEqual({ outcome: 'limit', rule: null, location: null });
  expect(await visit('lim')).toEqual({ status: 410, location: null });
  expect(await check(fb.id)).toEqual({ outcome: 'fallback', rule: null, location: 'https://example.com/full' });
  expect(await visit('limfb')).toEqual({ status: 302, location: 'https://example.com/full' });
});

test('a password: the form comes first; rule and location are where the right password leads', async () => {
  const link = await newLink('pw', { password: 'correct horse' });
  expect(await check(link.id)).toEqual({ outcome: 'password', rule: 0, location: 'https://example.com/m' });
  expect((await visit('pw')).status).toBe(200);
});

test("a preview crawler of a link with a preview: the card, linking to the link's own destination", async () => {
  const link = await newLink('pv', { preview: { title: 'Card' } });
  expect(await check(link.id, { userAgent: SLACKBOT })).toEqual({
    outcome: 'preview',
    rule: null,
    location: 'https://example.com/l',
  });
  expect((await visit('pv', SLACKBOT)).status).toBe(200);
  expect(await check(link.id)).toEqual({ outcome: 'redirect', rule: 0, location: 'https://example.com/m' });
});
