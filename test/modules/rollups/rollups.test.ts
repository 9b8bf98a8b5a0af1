/**
 * The click pipeline end to end through the real redirect: the rollup buckets (per link and
 * for the workspace, per UTC hour and day) and link/variant counters always agree with the raw
 * clicks they summarise, also after a link is deleted and when rebuilt from the raw clicks, and
 * unique visitors follow docs/behaviour.md (one (IP, user agent) pair per UTC day, humans only, salt
 * kept across restarts).
 */
import { describe, expect, test } from 'bun:test';
import { clickSource } from '../../../src/modules/clicks/sqlite/raw-read';
import { sealThrough } from '../../../src/modules/clicks/sqlite/seal';
import { TailAppender } from '../../../src/modules/clicks/sqlite/tail-append';
import { RollupValues } from '../../../src/modules/rollups/rollup-values';
import { ROLLUP_DIMS } from '../../../src/modules/rollups/rollups';
import { refoldUnfolded } from '../../../src/modules/rollups/sqlite/fold';
import { rebuildRollupsIfMissing } from '../../../src/modules/rollups/sqlite/rebuild';
import { api, disposeTestApp, T0, type TestApp } from '../../helpers/app';
import { insertTailClicks, setFoldedThrough } from '../../helpers/raw-clicks';
import {
  type BucketRow,
  type BucketTotal,
  bucketsFromRawClicks,
  type ClickOptions,
  type Ctx,
  click,
  createLink,
  createVariant,
  DAY,
  type DecodedBuckets,
  expectBucketsMatchRawClicks,
  flushOk,
  getLink,
  HOUR,
  one,
  pick,
  prng,
  readBuckets,
  reopen,
  rows,
  setup,
  UA,
  WORKSPACE,
} from '../clicks/support';

const D1 = Date.UTC(2026, 10, 21); // the test clock's day (T0 is its noon)
const MIDNIGHT = D1 + DAY;

interface Agent {
  ua: string | null;
  method?: 'HEAD';
  bot: boolean;
}

const HUMANS: Agent[] = [
  UA.chromeWin,
  UA.safariIphone,
  UA.firefoxLinux,
  UA.chromeAndroid,
  UA.safariIpad,
  UA.edgeMac,
].map((ua) => ({ ua, bot: false }));
const BOTS: Agent[] = [
  { ua: UA.googlebot, bot: true },
  { ua: UA.curl, bot: true },
  { ua: UA.facebook, bot: true },
  { ua: null, bot: true }, // no User-Agent header
  { ua: '', bot: true }, // an empty one
  { ua: UA.chromeWin, method: 'HEAD', bot: true }, // HEAD is a bot hit whatever the agent says
];
// Humans twice as likely as bots.
const AGENTS = [...HUMANS, ...HUMANS, ...BOTS];

const IPS = [
  '8.8.8.8', // US
  '1.1.1.1', // AU
  '81.2.69.142', // GB London
  '46.16.0.1', // GB, another city
  '5.39.0.1', // FR
  '133.242.0.1', // JP
  '77.88.55.55', // RU
  '2001:4860:4860::8888', // IPv6, CA
  '2a00:1450:4001::1', // IPv6, DE
  '::ffff:81.2.69.142', // IPv4-mapped
  '10.0.0.1', // private: no location
  '192.168.1.5',
  '::1',
  '2001:db8::1', // documentation range: no location
  '8.8.8.8, 10.1.1.1', // a chain: with one trusted proxy the right-most entry counts (private: no location)
  'not-an-ip', // a forged header: no location, no failure
  null, // no address at all
];

const REFERRERS = [
  null,
  'https://www.google.com/search?q=slink',
  'https://l.facebook.com/l.php?u=x',
  'https://mail.google.com/mail/u/0/',
  'https://example.org/blog/post',
  'https://sl.test/other', // our own host: direct
  'https://t.co/abc',
  'https://news.ycombinator.com/item?id=1',
  'not a url',
  'android-app://com.google.android.gm/',
];

const LANGUAGES = [null, 'en-US,en;q=0.9', 'de-DE,de;q=0.8', 'fr;q=0.5, es', '*', 'zh-Hant-TW', 'pt-br', 'en'];

interface Path {
  path: string;
  linkId: string;
  code: string | null;
  variantId: string | null;
}

interface Dataset {
  links: any[];
  variants: any[];
  /** Generated clicks per `${linkId}|${bot 0/1}`. */
  byLinkBot: Map<string, number>;
  /** Generated clicks per `${linkId}|${code}|${variantId}`. */
  byTarget: Map<string, number>;
  recorded: number;
}

/**
 * A few hundred varied clicks on four links (variants, unknown codes, link params with UTM and
 * custom keys, variant params overriding them), humans and bots, many addresses, referrers and
 * languages, from 20:00 on day one to 05:00 on day two, flushed in several flush() calls that
 * each cover one or two batches.
 */
async function generate(c: Ctx, seed = 20261121): Promise<Dataset> {
  const alpha = await createLink(c, {
    slug: 'alpha',
    params: { utm_source: 'newsletter', utm_medium: 'email', utm_campaign: 'launch', ref: 'n1', color: 'blue' },
  });
  const fb = await createVariant(c, alpha.id, {
    code: 'fb',
    params: { utm_source: 'facebook', utm_medium: 'social', color: 'red' },
  });
  const tw = await createVariant(c, alpha.id, { code: 'tw' });
  const x = await createVariant(c, alpha.id, { code: 'x', params: { utm_campaign: 'x-camp', extra: '' } });
  const beta = await createLink(c, { slug: 'beta' });
  const ba = await createVariant(c, beta.id, { code: 'a', params: { utm_source: 'ads' } });
  const bb = await createVariant(c, beta.id, { code: 'b' });
  // A rule too: clicks it chose are counted under `rule` (its index).
  const gamma = await createLink(c, {
    slug: 'gamma',
    params: { k1: 'v1', k2: 'v2' },
    rules: [{ when: { language: ['fr'] }, destination: 'https://example.fr/', params: { k2: 'fr' } }],
  });
  const delta = await createLink(c, {
    slug: 'delta',
    destination: 'https://shop.example/p?color=green',
    params: { utm_medium: 'cpc' },
  });
  const dc = await createVariant(c, delta.id, {
    code: 'c',
    params: { utm_medium: 'social', utm_campaign: 'camp', color: 'pink' },
  });

  const paths: Path[] = [
    { path: '/alpha', linkId: alpha.id, code: null, variantId: null },
    { path: '/alpha/', linkId: alpha.id, code: null, variantId: null },
    { path: '/alpha/fb', linkId: alpha.id, code: 'fb', variantId: fb.id },
    { path: '/alpha/fb/', linkId: alpha.id, code: 'fb', variantId: fb.id },
    { path: '/alpha/tw', linkId: alpha.id, code: 'tw', variantId: tw.id },
    { path: '/alpha/x', linkId: alpha.id, code: 'x', variantId: x.id },
    { path: '/alpha/nope', linkId: alpha.id, code: 'nope', variantId: null },
    { path: '/alpha/FB', linkId: alpha.id, code: 'FB', variantId: null }, // codes are case-sensitive
    { path: '/beta', linkId: beta.id, code: null, variantId: null },
    { path: '/beta/a', linkId: beta.id, code: 'a', variantId: ba.id },
    { path: '/beta/b', linkId: beta.id, code: 'b', variantId: bb.id },
    { path: '/beta/zz', linkId: beta.id, code: 'zz', variantId: null },
    { path: '/gamma', linkId: gamma.id, code: null, variantId: null },
    { path: '/gamma/any', linkId: gamma.id, code: 'any', variantId: null },
    { path: '/delta', linkId: delta.id, code: null, variantId: null },
    { path: '/delta/c', linkId: delta.id, code: 'c', variantId: dc.id },
    { path: '/delta/C', linkId: delta.id, code: 'C', variantId: null },
  ];

  const rand = prng(seed);
  const byLinkBot = new Map<string, number>();
  const byTarget = new Map<string, number>();
  const bump = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);
  let recorded = 0;
  const start = D1 + 20 * HOUR;
  const batchMs = 90 * 60_000;
  for (let b = 0; b < 6; b++) {
    const times = Array.from({ length: 70 }, () => start + b * batchMs + Math.floor(rand() * batchMs));
    // Hour and day boundaries to the millisecond, in the batch that spans midnight.
    if (b === 2) times.push(MIDNIGHT - HOUR - 1, MIDNIGHT - HOUR, MIDNIGHT - 1, MIDNIGHT - 1, MIDNIGHT, MIDNIGHT);
    times.sort((p, q) => p - q);
    for (const time of times) {
      c.t.clock.set(time);
      if (rand() < 0.04) {
        // An unknown slug: a 404 page, nothing recorded.
        expect(await click(c.t, '/no-such-slug', { ip: pick(rand, IPS) })).toBe(404);
        continue;
      }
      const target = pick(rand, paths);
      const agent = pick(rand, AGENTS);
      const opts: ClickOptions = {
        ua: agent.ua,
        method: agent.method,
        ip: pick(rand, IPS),
        referer: pick(rand, REFERRERS),
        lang: pick(rand, LANGUAGES),
        // Some visitors send Global Privacy Control: counted, not profiled.
        gpc: rand() < 0.1,
      };
      expect(await click(c.t, target.path, opts)).toBe(302);
      bump(byLinkBot, `${target.linkId}|${agent.bot ? 1 : 0}`);
      bump(byTarget, `${target.linkId}|${target.code}|${target.variantId}`);
      recorded++;
    }
    // Flush after batches 1, 2, 4 and 5: some flushes hold two batches.
    if (b % 3 !== 0) await flushOk(c.t);
  }
  expect(c.t.deps.clicks.buffer.length).toBe(0);
  return { links: [alpha, beta, gamma, delta], variants: [fb, tw, x, ba, bb, dc], byLinkBot, byTarget, recorded };
}

const values = (list: BucketRow[]) => new Set(list.map((r) => r.value));
const linkScopes = (list: BucketTotal[]) => list.filter((r) => r.scope !== WORKSPACE);

describe('rollups equal the raw clicks they summarise', () => {
  test('every dimension of every bucket (each link and the workspace, hour and day), recomputed from raw clicks', async () => {
    const c = await setup();
    const data = await generate(c);
    const { t } = c;
    expect(one(t, 'SELECT count(*) AS n FROM raw_clicks').n).toBe(data.recorded);
    expect(data.recorded).toBeGreaterThan(350);
    // The recomputation stores a missing traffic type as '': every click has one.
    expect(one(t, 'SELECT count(*) AS n FROM raw_clicks WHERE traffic_type IS NULL').n).toBe(0);

    const scopes = [...data.links.map((l) => l.id as string), WORKSPACE];
    for (const grain of ['hour', 'day'] as const) {
      for (const scope of scopes) {
        const actual = readBuckets(t, { scope, grain });
        const expected = bucketsFromRawClicks(t, { scope, grain });
        expect(actual.totals.length).toBeGreaterThan(0);
        expect({ scope, grain, totals: actual.totals }).toEqual({ scope, grain, totals: expected.totals });
        for (const dim of ROLLUP_DIMS) {
          const of = (list: BucketRow[]) => list.filter((r) => r.dim === dim);
          expect({ scope, grain, dim, rows: of(actual.rows) }).toEqual({ scope, grain, dim, rows: of(expected.rows) });
        }
        // ...and no row of a dimension outside ROLLUP_DIMS.
        expect({ scope, grain, rows: actual.rows }).toEqual({ scope, grain, rows: expected.rows });
      }
    }
    // No bucket of any other scope either.
    const all = expectBucketsMatchRawClicks(t);
    expect(new Set(all.totals.map((b) => b.scope))).toEqual(new Set(scopes));

    // Every dimension occurs; `link` only in workspace buckets.
    const dimsOf = (list: BucketRow[]) => [...new Set(list.map((r) => r.dim))].sort();
    expect(dimsOf(all.rows.filter((r) => r.scope === WORKSPACE))).toEqual([...ROLLUP_DIMS].sort());
    expect(dimsOf(all.rows.filter((r) => r.scope !== WORKSPACE))).toEqual(
      ROLLUP_DIMS.filter((d) => d !== 'link').sort(),
    );

    // The data set really exercises what the comparison claims to cover.
    const hour = readBuckets(t, { grain: 'hour' });
    const total = linkScopes(hour.totals);
    expect(new Set(total.map((r) => r.bot))).toEqual(new Set([0, 1]));
    const hours = new Set(total.map((r) => r.start));
    expect(hours.size).toBe(9); // 20:00 .. 04:00
    expect(hours.has(MIDNIGHT - HOUR) && hours.has(MIDNIGHT)).toBe(true);
    expect(new Set(hour.totals.filter((r) => r.scope === WORKSPACE).map((r) => r.start))).toEqual(hours);
    const day = readBuckets(t, { grain: 'day' }).totals;
    expect(new Set(day.map((r) => r.start))).toEqual(new Set([D1, MIDNIGHT])); // both grains cross midnight
    expect(total.reduce((s, r) => s + r.uniques, 0)).toBeGreaterThan(0);
    expect(total.filter((r) => r.bot === 0).reduce((s, r) => s + r.clicks - r.uniques, 0)).toBeGreaterThan(0); // repeat visitors
    expect(total.filter((r) => r.bot === 1).every((r) => r.uniques === 0)).toBe(true);

    const byDim = (dim: string) => hour.rows.filter((r) => r.scope !== WORKSPACE && r.dim === dim);
    expect(values(hour.rows.filter((r) => r.scope === WORKSPACE && r.dim === 'link'))).toEqual(
      new Set(data.links.map((l) => l.id)),
    );
    const country = values(byDim('country'));
    for (const v of ['', 'US', 'AU', 'GB', 'FR', 'JP', 'RU', 'CA', 'DE']) expect(country).toContain(v);
    const cities = byDim('city');
    expect(cities.some((r) => r.key === 'GB' && r.value === 'London')).toBe(true);
    expect(cities.some((r) => r.key === '' && r.value === '')).toBe(true);
    expect(values(byDim('device'))).toEqual(new Set(['', 'desktop', 'mobile', 'tablet']));
    for (const v of ['email', 'social', 'search', 'direct', 'referral'])
      expect(values(byDim('trafficType'))).toContain(v);
    for (const v of ['', 'google.com', 'l.facebook.com', 'example.org', 'sl.test'])
      expect(values(byDim('referrer'))).toContain(v);
    for (const v of ['', 'en-US', 'de-DE', 'es', 'pt-BR', 'en']) expect(values(byDim('language'))).toContain(v);
    for (const v of ['newsletter', 'facebook', 'ads']) expect(values(byDim('utmSource'))).toContain(v);
    for (const v of ['email', 'social', 'cpc']) expect(values(byDim('utmMedium'))).toContain(v);
    for (const v of ['launch', 'x-camp', 'camp']) expect(values(byDim('utmCampaign'))).toContain(v);
    const variantRows = byDim('variant');
    const [, , , ba] = data.variants;
    expect(variantRows.some((r) => r.key === '' && r.value === 'nope')).toBe(true);
    expect(variantRows.some((r) => r.key === '' && r.value === 'FB')).toBe(true);
    expect(variantRows.some((r) => r.key === ba.id && r.value === 'a')).toBe(true);
    const params = byDim('param').map((r) => `${r.key}=${r.value}`);
    for (const p of ['color=blue', 'color=red', 'color=pink', 'extra=', 'ref=n1', 'k1=v1', 'k2=v2'])
      expect(params).toContain(p);
    expect(params.some((p) => p.startsWith('utm_'))).toBe(false);
    // UTM counts exist only for clicks that carried the parameter.
    const sum = (list: { clicks: number }[]) => list.reduce((s, r) => s + r.clicks, 0);
    expect(sum(byDim('utmSource'))).toBeLessThan(sum(total));
    expect(sum(byDim('utmSource'))).toBeGreaterThan(0);

    // Variant params override the link's, and that is what each raw click recorded.
    const [alpha] = data.links;
    const fbClick = one(t, "SELECT params FROM raw_clicks WHERE link_id = ? AND variant_code = 'fb' LIMIT 1", alpha.id);
    expect(JSON.parse(fbClick.params)).toEqual({
      utm_source: 'facebook',
      utm_medium: 'social',
      utm_campaign: 'launch',
      ref: 'n1',
      color: 'red',
    });

    await disposeTestApp(t);
  });

  test('the bucket totals add up to the raw clicks per link and bot flag, as generated, in both grains and the workspace', async () => {
    const c = await setup();
    const data = await generate(c, 7);
    const { t } = c;
    const raw = rows(t, 'SELECT link_id, bot, count(*) AS clicks FROM raw_clicks GROUP BY 1, 2 ORDER BY 1, 2');
    const rawByBot = rows(t, 'SELECT bot, count(*) AS clicks FROM raw_clicks GROUP BY 1 ORDER BY 1');
    for (const grain of ['hour', 'day'] as const) {
      // As the statistics read them: a link's days from its day mark on are its hours summed.
      const totals = readBuckets(t, { grain }).totals;
      const sum = (list: BucketTotal[], key: (b: BucketTotal) => string) => {
        const m = new Map<string, number>();
        for (const b of list) m.set(key(b), (m.get(key(b)) ?? 0) + b.clicks);
        return [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      };
      const sums = sum(linkScopes(totals), (b) => `${b.scope}|${b.bot}`);
      expect({ grain, sums }).toEqual({ grain, sums: raw.map((r) => [`${r.link_id}|${r.bot}`, r.clicks]) });
      const workspace = sum(
        totals.filter((b) => b.scope === WORKSPACE),
        (b) => `${b.bot}`,
      );
      expect({ grain, workspace }).toEqual({ grain, workspace: rawByBot.map((r) => [`${r.bot}`, r.clicks]) });
    }
    expect(raw.length).toBe(8); // four links, humans and bots
    // ...and the raw clicks are exactly the generated ones: bot verdicts and variant matching.
    const generated = [...data.byLinkBot].map(([k, n]) => {
      const [linkId, bot] = k.split('|') as [string, string];
      return { link_id: linkId, bot: Number(bot), clicks: n };
    });
    generated.sort((p, q) => (p.link_id < q.link_id ? -1 : p.link_id > q.link_id ? 1 : p.bot - q.bot));
    expect(raw).toEqual(generated);
    const targets = rows(t, 'SELECT link_id, variant_code, variant_id, count(*) AS n FROM raw_clicks GROUP BY 1, 2, 3');
    expect(new Map(targets.map((r) => [`${r.link_id}|${r.variant_code}|${r.variant_id}`, r.n]))).toEqual(data.byTarget);
    await disposeTestApp(t);
  });
});

describe('link and variant counters equal the raw clicks', () => {
  test('link_counters (clicks, bots, uniques, last_clicked_at) and variant click counts, in SQL and through the API', async () => {
    const c = await setup();
    const data = await generate(c, 99);
    const { t } = c;
    for (const link of data.links) {
      const raw = one(
        t,
        `SELECT coalesce(sum(bot = 0), 0) AS humans, coalesce(sum(bot = 1), 0) AS bots,
                coalesce(sum(first_of_day), 0) AS uniques, max(CASE WHEN bot = 0 THEN timestamp END) AS last
         FROM raw_clicks WHERE link_id = ?`,
        link.id,
      );
      expect(raw.humans).toBe(data.byLinkBot.get(`${link.id}|0`) ?? 0);
      expect(raw.bots).toBe(data.byLinkBot.get(`${link.id}|1`) ?? 0);
      expect(raw.humans).toBeGreaterThan(0);
      expect(raw.bots).toBeGreaterThan(0);
      // Uniques are humans only, one per visitor hash and UTC day.
      expect(
        one(t, 'SELECT count(*) AS n FROM raw_clicks WHERE link_id = ? AND bot = 1 AND first_of_day = 1', link.id).n,
      ).toBe(0);
      const distinctVisitorDays = one(
        t,
        'SELECT count(*) AS n FROM (SELECT DISTINCT timestamp / 86400000, visitor_hash FROM raw_clicks WHERE link_id = ? AND bot = 0 AND opted_out = 0)',
        link.id,
      ).n;
      expect(raw.uniques).toBe(distinctVisitorDays);

      const stored = one(
        t,
        'SELECT clicks, bots, uniques, last_clicked_at FROM link_counters WHERE link_id = ?',
        link.id,
      );
      expect(stored).toEqual({ clicks: raw.humans, bots: raw.bots, uniques: raw.uniques, last_clicked_at: raw.last });

      const viaApi = await getLink(c, link.id);
      expect({
        clickCount: viaApi.clickCount,
        botCount: viaApi.botCount,
        uniqueCount: viaApi.uniqueCount,
        lastClickedAt: viaApi.lastClickedAt,
      }).toEqual({
        clickCount: raw.humans,
        botCount: raw.bots,
        uniqueCount: raw.uniques,
        lastClickedAt: raw.last,
      });
      // The redirect's live counters (click limit) agree with the stored ones once flushed.
      expect(t.deps.linkIndex.getById(link.id)!.counters).toEqual({ humanClicks: raw.humans, unsorted: 0 });

      for (const v of viaApi.variants) {
        const humans = one(t, 'SELECT count(*) AS n FROM raw_clicks WHERE variant_id = ? AND bot = 0', v.id).n;
        expect(humans).toBeGreaterThan(0);
        expect(v.clickCount).toBe(humans);
        expect(one(t, 'SELECT click_count FROM variants WHERE id = ?', v.id).click_count).toBe(humans);
      }
    }
    expect(data.variants.length).toBe(6);
    await disposeTestApp(t);
  });
});

describe('last_clicked_at', () => {
  test('is the latest human click even when the clock steps back (in one flush and across flushes)', async () => {
    const c = await setup();
    const { t } = c;
    const link = await createLink(c, { slug: 'last' });
    const at = async (time: number, ua: string) => {
      t.clock.set(time);
      expect(await click(t, '/last', { ip: '192.0.2.1', ua })).toBe(302);
    };
    await at(T0 + 10_000, UA.chromeWin);
    await at(T0 + 5_000, UA.chromeWin); // the clock stepped back
    await at(T0 + 20_000, UA.googlebot); // bots never count
    await flushOk(t);
    expect(one(t, 'SELECT last_clicked_at FROM link_counters WHERE link_id = ?', link.id).last_clicked_at).toBe(
      T0 + 10_000,
    );
    await at(T0 + 1_000, UA.chromeWin);
    await flushOk(t);
    expect(one(t, 'SELECT last_clicked_at FROM link_counters WHERE link_id = ?', link.id).last_clicked_at).toBe(
      T0 + 10_000,
    );
    expect((await getLink(c, link.id)).lastClickedAt).toBe(T0 + 10_000);
    await disposeTestApp(t);
  });
});

describe('unique visitors: one (IP, user agent) per UTC day, humans only', () => {
  async function uniqueLink(c: Ctx) {
    return createLink(c, { slug: 'uniq' });
  }
  const uniquesOf = (t: TestApp, id: string) =>
    one(t, 'SELECT uniques FROM link_counters WHERE link_id = ?', id).uniques as number;
  const flags = (t: TestApp, id: string) =>
    rows(t, 'SELECT timestamp, bot, first_of_day FROM raw_clicks WHERE link_id = ? ORDER BY id', id).map((r) => [
      r.timestamp,
      r.bot,
      r.first_of_day,
    ]);

  test('across midnight the same visitor is two uniques; within a day one; another UA is another visitor; bots never', async () => {
    const c = await setup();
    const { t } = c;
    const link = await uniqueLink(c);
    const A = { ip: '8.8.8.8', ua: UA.chromeWin };
    const clickAt = async (time: number, o: ClickOptions) => {
      t.clock.set(time);
      expect(await click(t, '/uniq', o)).toBe(302);
    };
    await clickAt(MIDNIGHT - 1, A); // 23:59:59.999
    await clickAt(MIDNIGHT, A); // 00:00:00.000 the next day
    await clickAt(MIDNIGHT + 1000, A); // same day again
    await clickAt(MIDNIGHT + 10 * HOUR, A); // still the same day
    await clickAt(MIDNIGHT + 11 * HOUR, { ip: '8.8.8.8', ua: UA.firefoxLinux }); // same IP, other agent
    await clickAt(MIDNIGHT + 11 * HOUR, { ip: '1.1.1.1', ua: UA.chromeWin }); // same agent, other IP
    await clickAt(MIDNIGHT + 12 * HOUR, { ip: '9.9.9.9', ua: UA.googlebot });
    await clickAt(MIDNIGHT + 12 * HOUR, { ip: '9.9.9.9', ua: UA.googlebot });
    // A HEAD from a future human's exact (IP, agent): a bot hit, which must not use up the visitor.
    await clickAt(MIDNIGHT + 13 * HOUR, { ip: '77.88.55.55', ua: UA.chromeWin, method: 'HEAD' });
    await clickAt(MIDNIGHT + 13 * HOUR, { ip: '77.88.55.55', ua: UA.chromeWin });
    await flushOk(t);

    expect(flags(t, link.id)).toEqual([
      [MIDNIGHT - 1, 0, 1],
      [MIDNIGHT, 0, 1],
      [MIDNIGHT + 1000, 0, 0],
      [MIDNIGHT + 10 * HOUR, 0, 0],
      [MIDNIGHT + 11 * HOUR, 0, 1],
      [MIDNIGHT + 11 * HOUR, 0, 1],
      [MIDNIGHT + 12 * HOUR, 1, 0],
      [MIDNIGHT + 12 * HOUR, 1, 0],
      [MIDNIGHT + 13 * HOUR, 1, 0],
      [MIDNIGHT + 13 * HOUR, 0, 1],
    ]);
    expect(uniquesOf(t, link.id)).toBe(5);
    expect((await getLink(c, link.id)).uniqueCount).toBe(5);
    const totals = readBuckets(t, { scope: link.id, grain: 'hour' }).totals.map(({ start, bot, clicks, uniques }) => ({
      hour: start,
      bot,
      clicks,
      uniques,
    }));
    expect(totals).toEqual([
      { hour: MIDNIGHT - HOUR, bot: 0, clicks: 1, uniques: 1 },
      { hour: MIDNIGHT, bot: 0, clicks: 2, uniques: 1 },
      { hour: MIDNIGHT + 10 * HOUR, bot: 0, clicks: 1, uniques: 0 },
      { hour: MIDNIGHT + 11 * HOUR, bot: 0, clicks: 2, uniques: 2 },
      { hour: MIDNIGHT + 12 * HOUR, bot: 1, clicks: 2, uniques: 0 },
      { hour: MIDNIGHT + 13 * HOUR, bot: 0, clicks: 1, uniques: 1 },
      { hour: MIDNIGHT + 13 * HOUR, bot: 1, clicks: 1, uniques: 0 },
    ]);
    const days = readBuckets(t, { scope: link.id, grain: 'day' }).totals.map(({ start, bot, clicks, uniques }) => ({
      day: start,
      bot,
      clicks,
      uniques,
    }));
    expect(days).toEqual([
      { day: D1, bot: 0, clicks: 1, uniques: 1 },
      { day: MIDNIGHT, bot: 0, clicks: 6, uniques: 4 },
      { day: MIDNIGHT, bot: 1, clicks: 3, uniques: 0 },
    ]);
    // The only link: the workspace's buckets are the same.
    for (const grain of ['hour', 'day'] as const) {
      const strip = (list: BucketTotal[]) => list.map(({ scope: _, ...rest }) => rest);
      expect(strip(readBuckets(t, { scope: WORKSPACE, grain }).totals)).toEqual(
        strip(readBuckets(t, { scope: link.id, grain }).totals),
      );
    }
    // The hash is per day (a new salt each day), so days cannot be linked to each other.
    const hashes = rows(t, 'SELECT visitor_hash FROM raw_clicks WHERE link_id = ? ORDER BY id LIMIT 3', link.id).map(
      (r) => r.visitor_hash,
    );
    expect(hashes[0]).not.toBe(hashes[1]);
    expect(hashes[1]).toBe(hashes[2]);
    // 64 bits: the first 8 bytes of the salted sha256.
    for (const hash of hashes) expect(hash).toMatch(/^[0-9a-f]{16}$/);
    // The seen visitors are kept in memory, not in a table: the first visits are the flags alone.
    expect(
      rows(
        t,
        'SELECT timestamp / 86400000 AS day, count(*) AS n FROM raw_clicks WHERE link_id = ? AND first_of_day = 1 GROUP BY day ORDER BY day',
        link.id,
      ),
    ).toEqual([
      { day: D1 / DAY, n: 1 },
      { day: MIDNIGHT / DAY, n: 4 },
    ]);
    expect(one(t, "SELECT count(*) AS n FROM sqlite_master WHERE name = 'visitor_days'").n).toBe(0);
    await disposeTestApp(t);
  });

  test('a click at 23:59 flushed after midnight belongs to its own day', async () => {
    const c = await setup();
    const { t } = c;
    const link = await uniqueLink(c);
    const A = { ip: '2001:4860:4860::8888', ua: UA.safariIphone };
    t.clock.set(MIDNIGHT - 60_000); // 23:59:00
    expect(await click(t, '/uniq', A)).toBe(302);
    t.clock.set(MIDNIGHT - 30_000); // 23:59:30, the same visitor, still buffered
    expect(await click(t, '/uniq', A)).toBe(302);
    t.clock.set(MIDNIGHT + 5 * 60_000); // 00:05 the next day
    expect(await click(t, '/uniq', A)).toBe(302);
    await flushOk(t); // the flush runs after midnight
    expect(flags(t, link.id)).toEqual([
      [MIDNIGHT - 60_000, 0, 1],
      [MIDNIGHT - 30_000, 0, 0],
      [MIDNIGHT + 5 * 60_000, 0, 1],
    ]);
    const totals = readBuckets(t, { scope: link.id, grain: 'hour' }).totals.map(({ start, clicks, uniques }) => ({
      hour: start,
      clicks,
      uniques,
    }));
    expect(totals).toEqual([
      { hour: MIDNIGHT - HOUR, clicks: 2, uniques: 1 },
      { hour: MIDNIGHT, clicks: 1, uniques: 1 },
    ]);
    const days = readBuckets(t, { scope: link.id, grain: 'day' }).totals.map(({ start, clicks, uniques }) => ({
      day: start,
      clicks,
      uniques,
    }));
    expect(days).toEqual([
      { day: D1, clicks: 2, uniques: 1 },
      { day: MIDNIGHT, clicks: 1, uniques: 1 },
    ]);
    // Another click by the same visitor after midnight is not a new unique for the new day.
    t.clock.set(MIDNIGHT + 6 * 60_000);
    expect(await click(t, '/uniq', A)).toBe(302);
    await flushOk(t);
    expect(uniquesOf(t, link.id)).toBe(2);
    await disposeTestApp(t);
  });

  test('a restart within the day does not count the visitor again (the day salt is stored)', async () => {
    const c = await setup();
    const { t } = c;
    const link = await uniqueLink(c);
    const A = { ip: '81.2.69.142', ua: UA.firefoxLinux };
    expect(await click(t, '/uniq', A)).toBe(302);
    await flushOk(t);
    expect(uniquesOf(t, link.id)).toBe(1);

    const t2 = await reopen(t);
    t.clock.set(t.clock.now() + 3 * HOUR); // later the same day
    expect(await click(t2, '/uniq', A)).toBe(302);
    expect(await click(t2, '/uniq', { ...A, ip: '5.39.0.1' })).toBe(302);
    await flushOk(t2);
    expect(
      rows(t2, 'SELECT first_of_day FROM raw_clicks WHERE link_id = ? ORDER BY id', link.id).map((r) => r.first_of_day),
    ).toEqual([1, 0, 1]);
    expect(one(t2, 'SELECT uniques, clicks FROM link_counters WHERE link_id = ?', link.id)).toEqual({
      uniques: 2,
      clicks: 3,
    });
    const hashes = rows(t2, 'SELECT visitor_hash FROM raw_clicks WHERE link_id = ? ORDER BY id', link.id).map(
      (r) => r.visitor_hash,
    );
    expect(hashes[0]).toBe(hashes[1]);
    expect(one(t2, 'SELECT count(*) AS n FROM visitor_salts').n).toBe(1);

    // The next day the visitor counts again, also after the restart.
    t.clock.set(MIDNIGHT + HOUR);
    expect(await click(t2, '/uniq', A)).toBe(302);
    await flushOk(t2);
    expect(one(t2, 'SELECT uniques FROM link_counters WHERE link_id = ?', link.id).uniques).toBe(3);

    expect(t2.errors).toEqual([]);
    await t2.close();
    await disposeTestApp(t);
  });
});

describe("a link's days are rolled up from its hours once the day is over", () => {
  const storedDays = (t: TestApp, linkId: string) =>
    rows(
      t,
      "SELECT start, bot, clicks FROM named_buckets WHERE scope = ? AND grain = 'day' ORDER BY start, bot",
      linkId,
    );
  const markOf = (t: TestApp, linkId: string) =>
    one(
      t,
      "SELECT m.days_before AS d FROM rollup_marks m JOIN rollup_values v ON v.id = m.scope AND v.dim = 'link' WHERE v.value = ?",
      linkId,
    )?.d ?? null;

  test('no day bucket while the day is open; at the first fold of the next day it is written whole, and a late click of it joins it', async () => {
    const c = await setup();
    const { t } = c;
    const link = await createLink(c, { slug: 'daily' });
    t.clock.set(D1 + 10 * HOUR);
    expect(await click(t, '/daily', { ip: '5.39.0.1', ua: UA.firefoxLinux })).toBe(302);
    t.clock.set(MIDNIGHT - 1);
    expect(await click(t, '/daily', { ip: '5.39.0.2', ua: UA.curl })).toBe(302);
    await flushOk(t);
    // The day is open: its clicks are in hour buckets only, and the mark says so.
    expect(storedDays(t, link.id)).toEqual([]);
    expect(markOf(t, link.id)).toBe(D1);
    expectBucketsMatchRawClicks(t);

    t.clock.set(MIDNIGHT + HOUR);
    expect(await click(t, '/daily', { ip: '5.39.0.3', ua: UA.firefoxLinux })).toBe(302);
    await flushOk(t);
    expect(storedDays(t, link.id)).toEqual([
      { start: D1, bot: 0, clicks: 1 },
      { start: D1, bot: 1, clicks: 1 },
    ]);
    expect(markOf(t, link.id)).toBe(MIDNIGHT);
    expectBucketsMatchRawClicks(t);

    // A click of day two reaches the writer only on day three (buffered across midnight): day
    // two is rolled up first, then the late click is added to its day bucket as well.
    t.clock.set(MIDNIGHT + DAY - 1);
    expect(await click(t, '/daily', { ip: '5.39.0.4', ua: UA.firefoxLinux })).toBe(302);
    t.clock.set(MIDNIGHT + DAY + HOUR);
    expect(await click(t, '/daily', { ip: '5.39.0.5', ua: UA.firefoxLinux })).toBe(302);
    await flushOk(t);
    expect(markOf(t, link.id)).toBe(MIDNIGHT + DAY);
    expect(storedDays(t, link.id)).toEqual([
      { start: D1, bot: 0, clicks: 1 },
      { start: D1, bot: 1, clicks: 1 },
      { start: MIDNIGHT, bot: 0, clicks: 2 },
    ]);
    expectBucketsMatchRawClicks(t);

    // The statistics agree whichever grain holds a day: days one and two from day buckets,
    // day three from hours (ten days: a daily series).
    const stats = await api(t, 'GET', `/links/${link.id}/stats?from=2026-11-14&to=2026-11-23&bots=1`, { key: c.key });
    expect(stats.status).toBe(200);
    expect(stats.body.interval).toBe('day');
    expect(stats.body.totals).toEqual({ clicks: 5, uniques: 4, bots: 1, optedOut: 0 });
    expect(stats.body.series.map((p: { clicks: number }) => p.clicks)).toEqual([0, 0, 0, 0, 0, 0, 0, 2, 2, 1]);
    await disposeTestApp(t);
  });
});

describe('deleting a link takes it out of the workspace buckets', () => {
  test('a link with only bot hits: DELETE /links/{id} removes its buckets; the workspace ones equal the raw clicks of the remaining links', async () => {
    const c = await setup();
    const data = await generate(c, 4242);
    const { t } = c;
    const crawled = await createLink(c, {
      slug: 'crawled',
      params: { utm_source: 'crawler', utm_campaign: 'launch', color: 'blue', only: 'bots' },
    });
    await createVariant(c, crawled.id, { code: 'v', params: { utm_medium: 'social', color: 'red' } });
    // Hours and days the other links were clicked in too, then an hour (03:00 on day one) and a
    // day (three days later) when nobody else was: those workspace buckets must go entirely.
    const LONELY_HOUR = D1 + 3 * HOUR;
    const LONELY_DAY = MIDNIGHT + 3 * DAY;
    const times = [
      D1 + 20 * HOUR + 5,
      MIDNIGHT - 1,
      MIDNIGHT,
      MIDNIGHT + 2 * HOUR + 7,
      LONELY_HOUR + 10,
      LONELY_DAY + 1,
    ];
    const rand = prng(5);
    let hits = 0;
    for (const time of times) {
      for (const path of ['/crawled', '/crawled/v', '/crawled/zz']) {
        t.clock.set(time);
        const agent = BOTS[hits % BOTS.length]!;
        const opts: ClickOptions = {
          ua: agent.ua,
          method: agent.method,
          ip: pick(rand, IPS),
          referer: pick(rand, REFERRERS),
          lang: pick(rand, LANGUAGES),
        };
        expect(await click(t, path, opts)).toBe(302);
        hits++;
      }
    }
    await flushOk(t);

    const before = expectBucketsMatchRawClicks(t);
    expect(await getLink(c, crawled.id)).toMatchObject({ clickCount: 0, uniqueCount: 0, botCount: hits });
    expect(before.totals.filter((b) => b.scope === crawled.id).every((b) => b.bot === 1)).toBe(true);
    expect(before.totals.filter((b) => b.scope === crawled.id).length).toBe(6 + 3); // six hours on three days, bots only
    const inWorkspace = (d: DecodedBuckets, dim: string, key: string, value: string) =>
      d.rows.some((r) => r.scope === WORKSPACE && r.dim === dim && r.key === key && r.value === value);
    expect(inWorkspace(before, 'link', '', crawled.id)).toBe(true);
    expect(inWorkspace(before, 'param', 'only', 'bots')).toBe(true);
    expect(inWorkspace(before, 'utmSource', '', 'crawler')).toBe(true);
    const lonely = (d: DecodedBuckets) =>
      d.totals.filter(
        (b) =>
          b.scope === WORKSPACE &&
          ((b.grain === 'hour' && b.start === LONELY_HOUR) || (b.grain === 'day' && b.start === LONELY_DAY)),
      );
    expect(lonely(before).map((b) => [b.grain, b.bot, b.clicks])).toEqual([
      ['day', 1, 3],
      ['hour', 1, 3],
    ]);

    const res = await api(t, 'DELETE', `/links/${crawled.id}`, { key: c.key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: crawled.id, deleted: true });
    expect(await click(t, '/crawled', { ua: UA.googlebot })).toBe(404);
    expect(one(t, 'SELECT count(*) AS n FROM raw_clicks WHERE link_id = ?', crawled.id).n).toBe(0); // its raw clicks went with it
    expect(one(t, 'SELECT count(*) AS n FROM named_buckets WHERE scope = ?', crawled.id).n).toBe(0);

    // The workspace now counts exactly the remaining links' raw clicks...
    const after = expectBucketsMatchRawClicks(t);
    expect(new Set(after.totals.map((b) => b.scope))).toEqual(new Set([...data.links.map((l) => l.id), WORKSPACE]));
    expect(inWorkspace(after, 'link', '', crawled.id)).toBe(false);
    expect(inWorkspace(after, 'param', 'only', 'bots')).toBe(false);
    expect(inWorkspace(after, 'utmSource', '', 'crawler')).toBe(false);
    expect(lonely(after)).toEqual([]);
    // ...and every bucket the deleted link had no part in is untouched.
    const untouched = (d: DecodedBuckets) => {
      const itsBuckets = new Set(
        before.totals.filter((b) => b.scope === crawled.id).map((b) => `${b.grain}|${b.start}|${b.bot}`),
      );
      const keep = (b: { scope: string; grain: string; start: number; bot: number }) =>
        b.scope !== crawled.id && !itsBuckets.has(`${b.grain}|${b.start}|${b.bot}`);
      return { totals: d.totals.filter(keep), rows: d.rows.filter(keep) };
    };
    expect(untouched(after)).toEqual(untouched(before));
    expect(before.totals.length - after.totals.length).toBeGreaterThan(0);

    // The buckets keep adding up afterwards.
    t.clock.set(MIDNIGHT + 2 * HOUR + 9);
    expect(await click(t, '/alpha/fb', { ip: '8.8.8.8', ua: UA.safariIphone })).toBe(302);
    expect(await click(t, '/beta', { ip: '1.1.1.1', ua: UA.googlebot })).toBe(302);
    await flushOk(t);
    expectBucketsMatchRawClicks(t);
    await disposeTestApp(t);
  });
});

describe('rebuildRollupsIfMissing', () => {
  const stored = (t: TestApp) => ({
    buckets: rows(
      t,
      'SELECT scope, grain, start, bot, clicks, uniques, hex(data) AS data FROM named_buckets ORDER BY scope, grain, start, bot',
    ),
    values: rows(t, 'SELECT id, dim, key, value FROM rollup_values ORDER BY id'),
  });

  test('with clicks and no buckets: rebuilds the very buckets the writer kept, and returns how many clicks it counted', async () => {
    const c = await setup();
    const data = await generate(c, 31337);
    const { t } = c;
    const sqlite = t.deps.db.$client;
    const expected = expectBucketsMatchRawClicks(t);
    sqlite.run('DELETE FROM rollups');
    expect(readBuckets(t)).toEqual({ totals: [], rows: [] });

    // The app's clock, as in the server, where the rebuild and the writer share one: the rebuild
    // marks every link's days complete up to its "today", which the writer's folds build on.
    expect(rebuildRollupsIfMissing(sqlite, clickSource(sqlite), t.clock)).toBe(data.recorded);
    expect(readBuckets(t)).toEqual(expected);

    // Buckets exist now: a second call does nothing.
    const snapshot = stored(t);
    expect(rebuildRollupsIfMissing(sqlite, clickSource(sqlite))).toBe(0);
    expect(stored(t)).toEqual(snapshot);

    // The writer adds to the rebuilt buckets.
    t.clock.set(MIDNIGHT + 4 * HOUR + 30 * 60_000);
    expect(await click(t, '/gamma', { ip: '5.39.0.1', ua: UA.firefoxLinux, lang: 'fr' })).toBe(302);
    expect(await click(t, '/delta/c', { ip: '5.39.0.1', ua: UA.curl })).toBe(302);
    await flushOk(t);
    expectBucketsMatchRawClicks(t);
    await disposeTestApp(t);
  });

  // The dictionary is also the raw clicks' (their dimensions are its ids), so only the buckets can be missing.
  test('after a restart with no buckets: the new connection rebuilds the same buckets under the same value ids', async () => {
    const c = await setup();
    const data = await generate(c, 8);
    const { t } = c;
    const expected = expectBucketsMatchRawClicks(t);
    const values = stored(t).values;
    t.deps.db.$client.run('DELETE FROM rollups');

    const t2 = await reopen(t);
    expect(rebuildRollupsIfMissing(t2.deps.db.$client, clickSource(t2.deps.db.$client))).toBe(data.recorded);
    expect(readBuckets(t2)).toEqual(expected);
    expect(stored(t2).values).toEqual(values);
    expect(rebuildRollupsIfMissing(t2.deps.db.$client, clickSource(t2.deps.db.$client))).toBe(0);

    // The restarted writer adds to them.
    t.clock.set(MIDNIGHT + 5 * HOUR);
    expect(await click(t2, '/alpha/x', { ip: '133.242.0.1', ua: UA.chromeAndroid, referer: 'https://t.co/x' })).toBe(
      302,
    );
    expect(await click(t2, '/beta/zz', { ip: '77.88.55.55', ua: UA.facebook })).toBe(302);
    await flushOk(t2);
    expectBucketsMatchRawClicks(t2);
    expect(t2.errors).toEqual([]);
    await t2.close();
    await disposeTestApp(t);
  });

  test('counts only the folded clicks: the ones after the watermark are left to the refold, which counts them once, counters too', async () => {
    const c = await setup();
    await generate(c, 8);
    const { t } = c;
    const sqlite = t.deps.db.$client;
    const expected = expectBucketsMatchRawClicks(t);
    const counted = one(t, 'SELECT sum(clicks) AS humans, sum(bots) AS bots FROM link_counters');
    const folded = one(t, "SELECT value FROM click_state WHERE name = 'folded_through'").value as number;
    // A writer that died after writing 3 more clicks and before folding them.
    const link = await createLink(c, { slug: 'late' });
    insertTailClicks(sqlite, link.id, 3, T0);
    setFoldedThrough(sqlite, folded);
    sqlite.run('DELETE FROM rollups');

    expect(rebuildRollupsIfMissing(sqlite, clickSource(sqlite))).toBe(folded);
    expect(readBuckets(t)).toEqual(expected);
    expect(refoldUnfolded(sqlite, clickSource(sqlite))).toBe(3);
    expectBucketsMatchRawClicks(t);
    expect(one(t, 'SELECT sum(clicks) AS humans, sum(bots) AS bots FROM link_counters')).toEqual({
      humans: counted.humans + 3,
      bots: counted.bots,
    });
    await disposeTestApp(t);
  });

  // 45,001 clicks written, rebuilt and recomputed: near a minute on a loaded machine (52-56 s at
  // load 9-10), which must not fail it.
  test('counts clicks across its chunks of 20,000: buckets fed by several chunks are summed, not overwritten', async () => {
    const c = await setup();
    const { t } = c;
    const one_ = await createLink(c, { slug: 'bulk-a' });
    const two = await createLink(c, { slug: 'bulk-b' });
    const sqlite = t.deps.db.$client;
    const values = new RollupValues(sqlite);
    const tail = new TailAppender(sqlite, values);
    const N = 45_001;
    sqlite
      .transaction(() => {
        for (let i = 0; i < N; i++) {
          const bot = i % 7 === 3;
          const params: Record<string, string> = i % 4 === 0 ? { utm_source: `s${i % 3}`, ref: `r${i % 2}` } : {};
          const country = i % 6 === 0 ? null : ['US', 'GB', 'DE'][i % 3]!;
          tail.append(
            {
              serial: 0,
              linkId: i % 2 ? one_.id : two.id,
              variantId: null,
              rule: null,
              code: i % 5 === 0 ? `c${i % 3}` : null,
              time: T0 + (i % 30) * (HOUR / 2) + (i % 1000), // noon to 02:30 the next day, every bucket fed by every chunk
              day: 0,
              bot,
              destination: 'https://example.com/landing',
              params,
              paramsJson: JSON.stringify(params),
              country,
              city: i % 6 === 0 ? null : `city${i % 4}`,
              device: bot ? null : i % 3 ? 'desktop' : 'mobile',
              os: 'Windows',
              browser: 'Chrome',
              referrer: i % 8 === 0 ? 'google.com' : null,
              trafficType: i % 8 === 0 ? 'search' : 'direct',
              language: i % 9 === 0 ? null : 'en',
              visitorHash: (i % 1000).toString(16).padStart(16, '0'),
            },
            !bot && i % 10 === 0,
          );
        }
        tail.finish();
      })
      .immediate();
    tail.commit();
    values.commit();
    // Clicks counted long ago (their buckets lost to a format change): all folded.
    setFoldedThrough(sqlite, N);
    // Most of them sealed, so the rebuild reads blocks and the tail.
    expect(sealThrough(sqlite, 30_000)).toBe(30_000);
    expect(rebuildRollupsIfMissing(sqlite, clickSource(sqlite))).toBe(N);
    const rebuilt = expectBucketsMatchRawClicks(t);
    const hours = rebuilt.totals.filter((b) => b.scope === WORKSPACE && b.grain === 'hour');
    expect(hours.reduce((s, b) => s + b.clicks, 0)).toBe(N);
    expect(new Set(hours.map((b) => b.start)).size).toBe(15);
    expect(new Set(rebuilt.totals.filter((b) => b.grain === 'day').map((b) => b.start))).toEqual(
      new Set([D1, MIDNIGHT]),
    );
    await disposeTestApp(t);
  }, 180_000);

  test('returns 0 and does nothing when there are no clicks, or when buckets exist', async () => {
    const c = await setup();
    const { t } = c;
    const sqlite = t.deps.db.$client;
    // A fresh database.
    expect(rebuildRollupsIfMissing(sqlite, clickSource(sqlite))).toBe(0);
    expect(stored(t)).toEqual({ buckets: [], values: [] });
    // Links, but no recorded click (an unknown slug records nothing).
    await createLink(c, { slug: 'quiet' });
    expect(await click(t, '/not-here')).toBe(404);
    await flushOk(t);
    expect(rebuildRollupsIfMissing(sqlite, clickSource(sqlite))).toBe(0);
    expect(stored(t)).toEqual({ buckets: [], values: [] });

    // Clicks and their buckets.
    expect(await click(t, '/quiet', { ip: '8.8.8.8' })).toBe(302);
    expect(await click(t, '/quiet', { ip: '8.8.8.8', ua: UA.googlebot })).toBe(302);
    await flushOk(t);
    const snapshot = stored(t);
    // The link's hours, the workspace's hours and days, human and bot: the link's day is made
    // from its hours once the day is over.
    expect(snapshot.buckets.length).toBe(6);
    expect(rebuildRollupsIfMissing(sqlite, clickSource(sqlite))).toBe(0);
    expect(stored(t)).toEqual(snapshot);
    // Any bucket at all counts as "not missing" (the rebuild is for a database that has none).
    sqlite.run('DELETE FROM rollups WHERE scope = 0 OR bot = 1');
    const partial = stored(t);
    expect(partial.buckets.length).toBe(1); // the link's human hour
    expect(rebuildRollupsIfMissing(sqlite, clickSource(sqlite))).toBe(0);
    expect(stored(t)).toEqual(partial);
    await disposeTestApp(t);
  });
});
