/**
 * The click pipeline end to end through the real redirect: hourly rollups and link/variant
 * counters always agree with the raw clicks they summarise, and unique visitors follow the
 * CONTRACT (one (IP, user agent) pair per UTC day, humans only, salt kept across restarts).
 */
import { describe, expect, test } from 'bun:test';
import { ROLLUP_DIMS, type RollupDim } from '../../../src/modules/clicks/rollups';
import { disposeTestApp, T0, type TestApp } from '../../helpers/app';
import { click, flushOk, createLink, createVariant, DAY, getLink, HOUR, one, pick, prng, reopen, rows, setup, UA, type ClickOptions, type Ctx } from './support';

const D1 = Date.UTC(2026, 10, 21); // the test clock's day (T0 is its noon)
const MIDNIGHT = D1 + DAY;

interface Agent {
  ua: string | null;
  method?: 'HEAD';
  bot: boolean;
}

const HUMANS: Agent[] = [UA.chromeWin, UA.safariIphone, UA.firefoxLinux, UA.chromeAndroid, UA.safariIpad, UA.edgeMac].map((ua) => ({ ua, bot: false }));
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
  '8.8.8.8, 10.1.1.1', // a proxy chain: the left-most entry counts
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
  const alpha = await createLink(c, { slug: 'alpha', params: { utm_source: 'newsletter', utm_medium: 'email', utm_campaign: 'launch', ref: 'n1', color: 'blue' } });
  const fb = await createVariant(c, alpha.id, { code: 'fb', params: { utm_source: 'facebook', utm_medium: 'social', color: 'red' } });
  const tw = await createVariant(c, alpha.id, { code: 'tw' });
  const x = await createVariant(c, alpha.id, { code: 'x', params: { utm_campaign: 'x-camp', extra: '' } });
  const beta = await createLink(c, { slug: 'beta' });
  const ba = await createVariant(c, beta.id, { code: 'a', params: { utm_source: 'ads' } });
  const bb = await createVariant(c, beta.id, { code: 'b' });
  const gamma = await createLink(c, { slug: 'gamma', params: { k1: 'v1', k2: 'v2' } });
  const delta = await createLink(c, { slug: 'delta', destination: 'https://shop.example/p?color=green', params: { utm_medium: 'cpc' } });
  const dc = await createVariant(c, delta.id, { code: 'c', params: { utm_medium: 'social', utm_campaign: 'camp', color: 'pink' } });

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
      const opts: ClickOptions = { ua: agent.ua, method: agent.method, ip: pick(rand, IPS), referer: pick(rand, REFERRERS), lang: pick(rand, LANGUAGES) };
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

const UTM_KEYS = "('utm_source', 'utm_medium', 'utm_campaign')";

/** The rollup rows of one dimension recomputed from the raw clicks table. */
function expectedSql(dim: RollupDim): string {
  const grouped = (key: string, value: string, from = 'clicks c', where = '1') =>
    `SELECT c.link_id AS link_id, (c.timestamp / 3600000) * 3600000 AS hour, c.bot AS bot, ${key} AS key, ${value} AS value,
            count(*) AS clicks, sum(c.first_of_day) AS uniques
     FROM ${from} WHERE ${where} GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5`;
  switch (dim) {
    case 'total':
      return grouped("''", "''");
    case 'country':
    case 'device':
    case 'os':
    case 'browser':
    case 'referrer':
    case 'language':
      return grouped("''", `coalesce(c.${dim}, '')`);
    case 'city':
      return grouped("coalesce(c.country, '')", "coalesce(c.city, '')");
    case 'trafficType':
      return grouped("''", 'c.traffic_type');
    case 'variant':
      return grouped("coalesce(c.variant_id, '')", 'c.variant_code', 'clicks c', 'c.variant_code IS NOT NULL');
    case 'utmSource':
    case 'utmMedium':
    case 'utmCampaign': {
      const name = { utmSource: 'utm_source', utmMedium: 'utm_medium', utmCampaign: 'utm_campaign' }[dim];
      return grouped("''", 'j.value', 'clicks c, json_each(c.params) j', `j.key = '${name}'`);
    }
    case 'param':
      return grouped('j.key', 'j.value', 'clicks c, json_each(c.params) j', `j.key NOT IN ${UTM_KEYS}`);
  }
}

function actualRollups(t: TestApp, dim: string): any[] {
  return rows(t, 'SELECT link_id, hour, bot, key, value, clicks, uniques FROM click_rollups WHERE dim = ? ORDER BY 1, 2, 3, 4, 5', dim);
}

const values = (list: any[]) => new Set(list.map((r) => r.value));

describe('rollups equal the raw clicks they summarise', () => {
  test('every dimension, recomputed from raw clicks by (link, hour, bot, key, value)', async () => {
    const c = await setup();
    const data = await generate(c);
    const { t } = c;
    expect(one(t, 'SELECT count(*) AS n FROM clicks').n).toBe(data.recorded);
    expect(data.recorded).toBeGreaterThan(350);

    const dims = rows(t, 'SELECT DISTINCT dim FROM click_rollups ORDER BY dim').map((r) => r.dim);
    expect(dims).toEqual([...ROLLUP_DIMS].sort());
    const byDim = new Map<string, any[]>();
    for (const dim of ROLLUP_DIMS) {
      const expected = rows(t, expectedSql(dim));
      const actual = actualRollups(t, dim);
      expect({ dim, rows: actual }).toEqual({ dim, rows: expected });
      expect(actual.length).toBeGreaterThan(0);
      byDim.set(dim, actual);
    }

    // The data set really exercises what the comparison claims to cover.
    const total = byDim.get('total')!;
    expect(new Set(total.map((r) => r.bot))).toEqual(new Set([0, 1]));
    const hours = new Set(total.map((r) => r.hour));
    expect(hours.size).toBe(9); // 20:00 .. 04:00
    expect(hours.has(MIDNIGHT - HOUR) && hours.has(MIDNIGHT)).toBe(true);
    expect(total.reduce((s, r) => s + r.uniques, 0)).toBeGreaterThan(0);
    expect(total.filter((r) => r.bot === 0).reduce((s, r) => s + r.clicks - r.uniques, 0)).toBeGreaterThan(0); // repeat visitors
    expect(total.filter((r) => r.bot === 1).every((r) => r.uniques === 0)).toBe(true);

    const country = values(byDim.get('country')!);
    for (const v of ['', 'US', 'AU', 'GB', 'FR', 'JP', 'RU', 'CA', 'DE']) expect(country).toContain(v);
    const cities = byDim.get('city')!;
    expect(cities.some((r) => r.key === 'GB' && r.value === 'London')).toBe(true);
    expect(cities.some((r) => r.key === '' && r.value === '')).toBe(true);
    expect(values(byDim.get('device')!)).toEqual(new Set(['', 'desktop', 'mobile', 'tablet']));
    for (const v of ['email', 'social', 'search', 'direct', 'referral']) expect(values(byDim.get('trafficType')!)).toContain(v);
    for (const v of ['', 'google.com', 'l.facebook.com', 'example.org', 'sl.test']) expect(values(byDim.get('referrer')!)).toContain(v);
    for (const v of ['', 'en-US', 'de-DE', 'es', 'pt-BR', 'en']) expect(values(byDim.get('language')!)).toContain(v);
    for (const v of ['newsletter', 'facebook', 'ads']) expect(values(byDim.get('utmSource')!)).toContain(v);
    for (const v of ['email', 'social', 'cpc']) expect(values(byDim.get('utmMedium')!)).toContain(v);
    for (const v of ['launch', 'x-camp', 'camp']) expect(values(byDim.get('utmCampaign')!)).toContain(v);
    const variantRows = byDim.get('variant')!;
    const [, , , ba] = data.variants;
    expect(variantRows.some((r) => r.key === '' && r.value === 'nope')).toBe(true);
    expect(variantRows.some((r) => r.key === '' && r.value === 'FB')).toBe(true);
    expect(variantRows.some((r) => r.key === ba.id && r.value === 'a')).toBe(true);
    const params = byDim.get('param')!.map((r) => `${r.key}=${r.value}`);
    for (const p of ['color=blue', 'color=red', 'color=pink', 'extra=', 'ref=n1', 'k1=v1', 'k2=v2']) expect(params).toContain(p);
    expect(params.some((p) => p.startsWith('utm_'))).toBe(false);
    // UTM rows exist only for clicks that carried the parameter.
    const sum = (dim: string) => byDim.get(dim)!.reduce((s, r) => s + r.clicks, 0);
    expect(sum('utmSource')).toBeLessThan(sum('total'));
    expect(sum('utmSource')).toBeGreaterThan(0);

    // Variant params override the link's, and that is what each raw click recorded.
    const [alpha] = data.links;
    const fbClick = one(t, "SELECT params FROM clicks WHERE link_id = ? AND variant_code = 'fb' LIMIT 1", alpha.id);
    expect(JSON.parse(fbClick.params)).toEqual({ utm_source: 'facebook', utm_medium: 'social', utm_campaign: 'launch', ref: 'n1', color: 'red' });

    await disposeTestApp(t);
  });

  test("the 'total' rollups add up to the raw clicks per link and bot flag, as generated", async () => {
    const c = await setup();
    const data = await generate(c, 7);
    const { t } = c;
    const sums = rows(t, "SELECT link_id, bot, sum(clicks) AS clicks FROM click_rollups WHERE dim = 'total' GROUP BY 1, 2 ORDER BY 1, 2");
    const raw = rows(t, 'SELECT link_id, bot, count(*) AS clicks FROM clicks GROUP BY 1, 2 ORDER BY 1, 2');
    expect(sums).toEqual(raw);
    expect(sums.length).toBe(8); // four links, humans and bots
    // ...and the raw clicks are exactly the generated ones: bot verdicts and variant matching.
    const generated = [...data.byLinkBot].map(([k, n]) => {
      const [linkId, bot] = k.split('|') as [string, string];
      return { link_id: linkId, bot: Number(bot), clicks: n };
    });
    generated.sort((p, q) => (p.link_id < q.link_id ? -1 : p.link_id > q.link_id ? 1 : p.bot - q.bot));
    expect(raw).toEqual(generated);
    const targets = rows(t, 'SELECT link_id, variant_code, variant_id, count(*) AS n FROM clicks GROUP BY 1, 2, 3');
    expect(new Map(targets.map((r) => [`${r.link_id}|${r.variant_code}|${r.variant_id}`, r.n]))).toEqual(data.byTarget);
    await disposeTestApp(t);
  });
});

describe('link and variant counters equal the raw clicks', () => {
  test('click_count, bot_count, unique_count, last_clicked_at and variant click counts, in SQL and through the API', async () => {
    const c = await setup();
    const data = await generate(c, 99);
    const { t } = c;
    for (const link of data.links) {
      const raw = one(
        t,
        `SELECT coalesce(sum(bot = 0), 0) AS humans, coalesce(sum(bot = 1), 0) AS bots,
                coalesce(sum(first_of_day), 0) AS uniques, max(CASE WHEN bot = 0 THEN timestamp END) AS last
         FROM clicks WHERE link_id = ?`,
        link.id,
      );
      expect(raw.humans).toBe(data.byLinkBot.get(`${link.id}|0`) ?? 0);
      expect(raw.bots).toBe(data.byLinkBot.get(`${link.id}|1`) ?? 0);
      expect(raw.humans).toBeGreaterThan(0);
      expect(raw.bots).toBeGreaterThan(0);
      // Uniques are humans only, one per visitor hash and UTC day.
      expect(one(t, 'SELECT count(*) AS n FROM clicks WHERE link_id = ? AND bot = 1 AND first_of_day = 1', link.id).n).toBe(0);
      const distinctVisitorDays = one(t, 'SELECT count(*) AS n FROM (SELECT DISTINCT timestamp / 86400000, visitor_hash FROM clicks WHERE link_id = ? AND bot = 0)', link.id).n;
      expect(raw.uniques).toBe(distinctVisitorDays);

      const stored = one(t, 'SELECT click_count, bot_count, unique_count, last_clicked_at FROM links WHERE id = ?', link.id);
      expect(stored).toEqual({ click_count: raw.humans, bot_count: raw.bots, unique_count: raw.uniques, last_clicked_at: raw.last });

      const viaApi = await getLink(c, link.id);
      expect({ clickCount: viaApi.clickCount, botCount: viaApi.botCount, uniqueCount: viaApi.uniqueCount, lastClickedAt: viaApi.lastClickedAt }).toEqual({
        clickCount: raw.humans,
        botCount: raw.bots,
        uniqueCount: raw.uniques,
        lastClickedAt: raw.last,
      });
      // The redirect's live counters (click limit) agree with the stored ones once flushed.
      expect(t.deps.linkIndex.getById(link.id)!.counters).toEqual({ humanClicks: raw.humans, unsorted: 0 });

      for (const v of viaApi.variants) {
        const humans = one(t, 'SELECT count(*) AS n FROM clicks WHERE variant_id = ? AND bot = 0', v.id).n;
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
    expect(one(t, 'SELECT last_clicked_at FROM links WHERE id = ?', link.id).last_clicked_at).toBe(T0 + 10_000);
    await at(T0 + 1_000, UA.chromeWin);
    await flushOk(t);
    expect(one(t, 'SELECT last_clicked_at FROM links WHERE id = ?', link.id).last_clicked_at).toBe(T0 + 10_000);
    expect((await getLink(c, link.id)).lastClickedAt).toBe(T0 + 10_000);
    await disposeTestApp(t);
  });
});

describe('unique visitors: one (IP, user agent) per UTC day, humans only', () => {
  async function uniqueLink(c: Ctx) {
    return createLink(c, { slug: 'uniq' });
  }
  const uniquesOf = (t: TestApp, id: string) => one(t, 'SELECT unique_count FROM links WHERE id = ?', id).unique_count as number;
  const flags = (t: TestApp, id: string) => rows(t, 'SELECT timestamp, bot, first_of_day FROM clicks WHERE link_id = ? ORDER BY id', id).map((r) => [r.timestamp, r.bot, r.first_of_day]);

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
    const totals = rows(t, "SELECT hour, bot, clicks, uniques FROM click_rollups WHERE link_id = ? AND dim = 'total' ORDER BY hour, bot", link.id);
    expect(totals).toEqual([
      { hour: MIDNIGHT - HOUR, bot: 0, clicks: 1, uniques: 1 },
      { hour: MIDNIGHT, bot: 0, clicks: 2, uniques: 1 },
      { hour: MIDNIGHT + 10 * HOUR, bot: 0, clicks: 1, uniques: 0 },
      { hour: MIDNIGHT + 11 * HOUR, bot: 0, clicks: 2, uniques: 2 },
      { hour: MIDNIGHT + 12 * HOUR, bot: 1, clicks: 2, uniques: 0 },
      { hour: MIDNIGHT + 13 * HOUR, bot: 0, clicks: 1, uniques: 1 },
      { hour: MIDNIGHT + 13 * HOUR, bot: 1, clicks: 1, uniques: 0 },
    ]);
    // The hash is per day (a new salt each day), so days cannot be linked to each other.
    const hashes = rows(t, 'SELECT visitor_hash FROM clicks WHERE link_id = ? ORDER BY id LIMIT 3', link.id).map((r) => r.visitor_hash);
    expect(hashes[0]).not.toBe(hashes[1]);
    expect(hashes[1]).toBe(hashes[2]);
    expect(rows(t, 'SELECT day, count(*) AS n FROM visitor_days WHERE link_id = ? GROUP BY day ORDER BY day', link.id)).toEqual([
      { day: D1 / DAY, n: 1 },
      { day: MIDNIGHT / DAY, n: 4 },
    ]);
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
    const totals = rows(t, "SELECT hour, clicks, uniques FROM click_rollups WHERE link_id = ? AND dim = 'total' ORDER BY hour", link.id);
    expect(totals).toEqual([
      { hour: MIDNIGHT - HOUR, clicks: 2, uniques: 1 },
      { hour: MIDNIGHT, clicks: 1, uniques: 1 },
    ]);
    expect(rows(t, 'SELECT day FROM visitor_days WHERE link_id = ? ORDER BY day', link.id)).toEqual([{ day: D1 / DAY }, { day: MIDNIGHT / DAY }]);
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

    const t2 = reopen(t);
    t.clock.set(t.clock.now() + 3 * HOUR); // later the same day
    expect(await click(t2, '/uniq', A)).toBe(302);
    expect(await click(t2, '/uniq', { ...A, ip: '5.39.0.1' })).toBe(302);
    await flushOk(t2);
    expect(rows(t2, 'SELECT first_of_day FROM clicks WHERE link_id = ? ORDER BY id', link.id).map((r) => r.first_of_day)).toEqual([1, 0, 1]);
    expect(one(t2, 'SELECT unique_count, click_count FROM links WHERE id = ?', link.id)).toEqual({ unique_count: 2, click_count: 3 });
    const hashes = rows(t2, 'SELECT visitor_hash FROM clicks WHERE link_id = ? ORDER BY id', link.id).map((r) => r.visitor_hash);
    expect(hashes[0]).toBe(hashes[1]);
    expect(one(t2, 'SELECT count(*) AS n FROM visitor_salts').n).toBe(1);

    // The next day the visitor counts again, also after the restart.
    t.clock.set(MIDNIGHT + HOUR);
    expect(await click(t2, '/uniq', A)).toBe(302);
    await flushOk(t2);
    expect(one(t2, 'SELECT unique_count FROM links WHERE id = ?', link.id).unique_count).toBe(3);

    expect(t2.errors).toEqual([]);
    t2.close();
    await disposeTestApp(t);
  });
});
