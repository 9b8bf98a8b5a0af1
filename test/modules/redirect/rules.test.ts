/**
 * Link rules through the real app, on each engine: every condition kind matching and not, the
 * order (first match wins), an empty `when`, params layered over a variant's, query forwarding
 * after a rule, the matched rule recorded with the click (clicks list, CSV, the `rule`
 * breakdown), a change of rules, POST /links/{id}/rules/test, and bad rules refused.
 */
import { afterEach, beforeEach, expect, test } from 'bun:test';
import type { Engine } from '../../../src/db/address';
import { api, apiExpecting, disposeTestApp, makeKey, makeTestApp, T0, type TestApp } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { expectError } from '../../helpers/schema';

const SHORT = 'https://sl.test';
const CHROME_WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const SAFARI_IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';
const FIREFOX_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.4; rv:125.0) Gecko/20100101 Firefox/125.0';
/** In the bundled DB-IP data: GB and DE (as the enrichment tests read them). */
const GB_ADDRESS = '81.2.69.160';
const DE_ADDRESS = '2a00:1450:4001:80b::200e';

let t: TestApp;
let su: string;

forEachEngine((engine: Engine) => {
  beforeEach(async () => {
    // One trusted proxy: the tests choose the client address with X-Forwarded-For.
    t = await makeTestApp({ SLINK_TRUST_PROXY: '1' }, { engine });
    su = (await makeKey(t, 'write', { superuser: true })).key;
  });
  afterEach(() => disposeTestApp(t));

  async function visit(path: string, headers: Record<string, string> = {}, status = 302): Promise<string | null> {
    const res = await t.app.handle(
      new Request(`${SHORT}${path}`, { headers: { 'user-agent': CHROME_WINDOWS, ...headers } }),
    );
    await res.arrayBuffer();
    expect({ path, status: res.status }).toEqual({ path, status });
    return res.headers.get('location');
  }
  const write = (method: string, path: string, body?: unknown, status?: number) =>
    apiExpecting(t, su, method, path, body, status);
  const newLink = (slug: string, rules: unknown[], extra: Record<string, unknown> = {}) =>
    write('POST', '/links', { destination: 'https://example.com/l', slug, rules, ...extra });
  const to = (n: number) => ({ when: {}, destination: `https://example.com/r${n}` });

  test('each condition kind: a rule that holds sends to its destination, one that does not leaves the link', async () => {
    const cases: [string, Record<string, unknown>, Record<string, string>, Record<string, string>][] = [
      // [slug, when, a request it holds for, a request it does not]
      ['dev', { device: ['MOBILE'] }, { 'user-agent': SAFARI_IPHONE }, {}],
      ['os', { os: ['ios', 'android'] }, { 'user-agent': SAFARI_IPHONE }, { 'user-agent': FIREFOX_MAC }],
      ['br', { browser: ['firefox'] }, { 'user-agent': FIREFOX_MAC }, {}],
      // As people write it: the statistics' `Mac OS` compares without its space.
      ['mac', { os: ['macOS'] }, { 'user-agent': FIREFOX_MAC }, { 'user-agent': SAFARI_IPHONE }],
      ['msaf', { browser: ['mobile-safari'] }, { 'user-agent': SAFARI_IPHONE }, { 'user-agent': FIREFOX_MAC }],
      ['ctry', { country: ['gb', 'FR'] }, { 'x-forwarded-for': GB_ADDRESS }, { 'x-forwarded-for': DE_ADDRESS }],
      [
        'lang',
        { language: ['DE'] },
        { 'accept-language': 'fr;q=0.9, de-AT;q=0.5' },
        { 'accept-language': 'fr, de;q=0.4' },
      ],
      [
        'ref',
        { referrer: ['Example.org'] },
        { referer: 'https://news.example.org/a' },
        { referer: 'https://notexample.org/' },
      ],
      ['qv', { query: { src: 'NEWS' } }, {}, {}],
      ['qa', { query: { src: null } }, {}, {}],
      ['after', { after: T0 + 1000 }, {}, {}],
      ['before', { before: T0 + 1000 }, {}, {}],
    ];
    for (const [slug, when] of cases)
      await newLink(slug, [{ when, destination: `https://example.com/${slug}`, params: { r: slug } }]);
    for (const [slug, , holds, fails] of cases) {
      if (['qv', 'qa', 'after', 'before'].includes(slug)) continue;
      expect({ slug, location: await visit(`/${slug}`, holds) }).toEqual({
        slug,
        location: `https://example.com/${slug}?r=${slug}`,
      });
      expect({ slug, location: await visit(`/${slug}`, fails) }).toEqual({ slug, location: 'https://example.com/l' });
    }
    expect(await visit('/qv?src=news')).toBe('https://example.com/qv?r=qv');
    expect(await visit('/qv?src=other')).toBe('https://example.com/l');
    expect(await visit('/qa?src=')).toBe('https://example.com/qa?r=qa');
    expect(await visit('/qa?other=1')).toBe('https://example.com/l');
    // The referrer's own host matches too, www. or not; no referrer matches no referrer rule.
    expect(await visit('/ref', { referer: 'http://www.example.org/' })).toBe('https://example.com/ref?r=ref');
    expect(await visit('/ref')).toBe('https://example.com/l');
    // after: from that instant on; before: until just before it.
    expect(await visit('/after')).toBe('https://example.com/l');
    expect(await visit('/before')).toBe('https://example.com/before?r=before');
    t.clock.set(T0 + 1000);
    expect(await visit('/after')).toBe('https://example.com/after?r=after');
    expect(await visit('/before')).toBe('https://example.com/l');
  });

  test('in order, the first rule that holds wins; an empty when always holds; every condition of a rule must', async () => {
    await newLink('ord', [
      { when: { device: ['mobile'], country: ['DE'] }, destination: 'https://example.com/r0' },
      { when: { device: ['mobile'] }, destination: 'https://example.com/r1' },
      to(2),
      to(3),
    ]);
    expect(await visit('/ord', { 'user-agent': SAFARI_IPHONE, 'x-forwarded-for': DE_ADDRESS })).toBe(
      'https://example.com/r0',
    );
    expect(await visit('/ord', { 'user-agent': SAFARI_IPHONE, 'x-forwarded-for': GB_ADDRESS })).toBe(
      'https://example.com/r1',
    );
    expect(await visit('/ord')).toBe('https://example.com/r2');
  });

  test("params: the rule's over the variant's over the link's; query forwarding applies after a rule", async () => {
    const link = await newLink(
      'lay',
      [
        {
          when: { query: { go: null } },
          destination: 'https://example.com/r?x=1',
          params: { utm_source: 'rule', r: '1' },
        },
      ],
      { params: { utm_source: 'link', utm_medium: 'link', l: '1' }, forwardQuery: true, redirectStatus: 307 },
    );
    await write('POST', `/links/${link.id}/variants`, { code: 'v', params: { utm_medium: 'variant', v: '1' } });
    const res = await t.app.handle(new Request(`${SHORT}/lay/v?go=1&utm_source=visitor&extra=2`));
    expect({ status: res.status, location: res.headers.get('location') }).toEqual({
      status: 307,
      location: 'https://example.com/r?x=1&utm_source=rule&utm_medium=variant&l=1&v=1&r=1&go=1&extra=2',
    });
    expect(await visit('/lay?go', {}, 307)).toBe(
      'https://example.com/r?x=1&utm_source=rule&utm_medium=link&l=1&r=1&go',
    );
    expect(await visit('/lay/v?no=1', {}, 307)).toBe(
      'https://example.com/l?utm_source=link&utm_medium=variant&l=1&v=1&no=1',
    );
  });

  test('the matched rule is recorded: clicks list, CSV column, rule breakdown; a change of rules gives new clicks the new index', async () => {
    const link = await newLink('rec', [
      { when: { device: ['mobile'] }, destination: 'https://example.com/m' },
      { when: { browser: ['firefox'] }, destination: 'https://example.com/f' },
    ]);
    await visit('/rec', { 'user-agent': SAFARI_IPHONE });
    t.clock.advance(1);
    await visit('/rec', { 'user-agent': FIREFOX_MAC });
    t.clock.advance(1);
    await visit('/rec', { 'user-agent': FIREFOX_MAC });
    t.clock.advance(1);
    await visit('/rec');
    // The Firefox rule moves to the front: old clicks keep index 1, new ones get 0.
    await write('PATCH', `/links/${link.id}`, {
      rules: [
        { when: { browser: ['firefox'] }, destination: 'https://example.com/f' },
        { when: { device: ['mobile'] }, destination: 'https://example.com/m' },
      ],
    });
    t.clock.advance(1);
    await visit('/rec', { 'user-agent': FIREFOX_MAC });
    expect(await t.deps.clicks.flusher.flush()).toBe(true);
    const list = await write('GET', `/links/${link.id}/clicks?range=all`);
    expect(list.items.map((c: { rule: number | null; destination: string }) => [c.rule, c.destination])).toEqual([
      [0, 'https://example.com/f'],
      [null, 'https://example.com/l'],
      [1, 'https://example.com/f'],
      [1, 'https://example.com/f'],
      [0, 'https://example.com/m'],
    ]);
    const csv = await api(t, 'GET', `/links/${link.id}/export.csv?range=all`, { key: su });
    expect(csv.status).toBe(200);
    const lines = csv.text.split('\r\n').filter((l) => l !== '');
    // The rule column comes just before the domain, the last one (the click record's order).
    expect(lines[0]!.split(',').slice(-2)).toEqual(['rule', 'domain']);
    expect(lines.slice(1).map((l) => l.split(',').at(-2))).toEqual(['0', '', '1', '1', '0']);
    const stats = await write('GET', `/links/${link.id}/stats?range=all`);
    expect(stats.breakdowns.rule).toEqual([
      { value: 0, clicks: 2 },
      { value: 1, clicks: 2 },
    ]);
    const workspace = await write('GET', '/workspace/stats?range=all');
    expect(workspace.breakdowns.rule).toEqual([
      { value: 0, clicks: 2 },
      { value: 1, clicks: 2 },
    ]);
  });

  test('POST /links/{id}/rules/test answers the rule and the location, records nothing; a read key may call it', async () => {
    const link = await newLink(
      'tst',
      [
        { when: { country: ['DE'], language: ['de'] }, destination: 'https://example.com/de' },
        {
          when: { device: ['mobile'], referrer: ['example.net'] },
          destination: 'https://example.com/m',
          params: { m: '1' },
        },
        { when: { query: { q: 'x' }, after: T0 + 5000 }, destination: 'https://example.com/q' },
      ],
      { params: { utm_source: 's' }, forwardQuery: true },
    );
    const read = (await makeKey(t, 'read')).key;
    const check = (body: unknown) => apiExpecting(t, read, 'POST', `/links/${link.id}/rules/test`, body, 200);
    expect(await check({})).toEqual({
      outcome: 'redirect',
      rule: null,
      location: 'https://example.com/l?utm_source=s',
    });
    expect(await check({ ip: DE_ADDRESS, language: 'de-DE,en;q=0.8' })).toEqual({
      outcome: 'redirect',
      rule: 0,
      location: 'https://example.com/de?utm_source=s',
    });
    expect(await check({ ip: `::ffff:${GB_ADDRESS}`, language: 'de' })).toEqual({
      outcome: 'redirect',
      rule: null,
      location: 'https://example.com/l?utm_source=s',
    });
    expect(await check({ userAgent: SAFARI_IPHONE, referrer: 'https://a.example.net/x' })).toEqual({
      outcome: 'redirect',
      rule: 1,
      location: 'https://example.com/m?utm_source=s&m=1',
    });
    expect(await check({ query: { q: 'X' } })).toEqual({
      outcome: 'redirect',
      rule: null,
      location: 'https://example.com/l?utm_source=s&q=X',
    });
    expect(await check({ query: { q: 'X' }, at: T0 + 5000 })).toEqual({
      outcome: 'redirect',
      rule: 2,
      location: 'https://example.com/q?utm_source=s&q=X',
    });
    expect((await write('GET', `/links/${link.id}`)).clickCount).toBe(0);
    expect(await t.deps.clicks.flusher.flush()).toBe(true);
    expect((await write('GET', `/links/${link.id}/clicks?range=all&bots=1`)).items).toEqual([]);

    const bad: [unknown, string][] = [
      [{ ip: '1.2.3' }, 'ip'],
      [{ ip: 'example.com' }, 'ip'],
      [{ at: -1 }, 'at'],
      [{ at: 'soon' }, 'at'],
      [{ userAgent: 5 }, 'userAgent'],
      [{ query: { a: 1 } }, 'query'],
      [{ language: 'x'.repeat(300) }, 'language'],
      [{ referrer: ['a'] }, 'referrer'],
    ];
    for (const [body, field] of bad)
      expectError(
        await api(t, 'POST', `/links/${link.id}/rules/test`, { key: read, body }),
        400,
        'invalid_request',
        field,
      );
    expectError(await api(t, 'POST', '/links/lnk_nope/rules/test', { key: read, body: {} }), 404, 'not_found');
    expect((await api(t, 'POST', `/links/${link.id}/rules/test`, { body: {} })).status).toBe(401);
    // Any other POST still needs a write key.
    expectError(
      await api(t, 'POST', `/links/${link.id}/variants`, { key: read, body: { code: 'zz' } }),
      403,
      'insufficient_scope',
    );
  });

  test('bad rules: 400 naming the field, and the link keeps redirecting by its rules as they were', async () => {
    const link = await newLink('bad', [{ when: { device: ['mobile'] }, destination: 'https://example.com/m' }]);
    const many = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
    const cases: [unknown, string][] = [
      [Array.from({ length: 21 }, () => to(0)), 'rules'],
      [[{ when: { os: many(51) }, destination: 'https://example.com/' }], 'when.os'],
      [[to(0), { when: { country: ['DEU'] }, destination: 'https://example.com/' }], 'rules[1].when.country'],
    ];
    for (const [rules, field] of cases)
      expectError(
        await api(t, 'PATCH', `/links/${link.id}`, { key: su, body: { rules } }),
        400,
        'invalid_request',
        field,
      );
    // Twenty is the limit, not more.
    await write('PATCH', `/links/${link.id}`, {
      rules: Array.from({ length: 20 }, (_, i) => ({ ...to(i), when: { query: { n: String(i) } } })),
    });
    expect(await visit('/bad?n=19')).toBe('https://example.com/r19');
    expect(await visit('/bad', { 'user-agent': SAFARI_IPHONE })).toBe('https://example.com/l');
  });
});
