/**
 * Click enrichment: preferred language, visitor hashing on a real migrated database, and
 * enrichClick end to end, on hand-made ClickRecords and through a real redirect and flush.
 * Bots and user agents: user-agent.test.ts; geo: geo.test.ts; traffic type: traffic.test.ts.
 */

import type { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { DAY_MS, utcDay } from '../../../src/lib/time';
import { toWire } from '../../../src/modules/clicks/capture/flusher';
import type { ClickRecord } from '../../../src/modules/clicks/capture/record';
import { type EnrichContext, enrichClick } from '../../../src/modules/clicks/enrich/enrich';
import { type GeoLookup, noGeo, openGeo } from '../../../src/modules/clicks/enrich/geo';
import { preferredLanguage } from '../../../src/modules/clicks/enrich/language';
import { VisitorHasher } from '../../../src/modules/clicks/enrich/visitor';
import { sqliteSalts } from '../../../src/modules/clicks/sqlite/salts';
import { api, makeKey, makeTestApp, T0, type TestApp } from '../../helpers/app';
import { clickRecord, type TargetOptions, type TestTarget, testTarget } from '../../helpers/click-record';
import { queryRaw } from '../../helpers/raw-clicks';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4.1 Mobile/15E148 Safari/604.1';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const HEX16 = /^[0-9a-f]{16}$/;
const DAY = utcDay(T0);

// ---------------------------------------------------------------------------------------

describe('preferredLanguage', () => {
  test('the highest-weighted tag, primary lower case and region upper case', () => {
    expect(preferredLanguage('en-US,en;q=0.9')).toBe('en-US');
    expect(preferredLanguage('fr;q=0.5, de-de')).toBe('de-DE');
    expect(preferredLanguage('EN-gb')).toBe('en-GB');
    expect(preferredLanguage('da, en-gb;q=0.8, en;q=0.7')).toBe('da');
    expect(preferredLanguage('en;q=0.1, ja;q=0.2, ko;q=0.15')).toBe('ja');
    expect(preferredLanguage(' nl-BE ; q = 0.8 , fr ; q=0.3 ')).toBe('nl-BE');
  });

  test('equal weights: the first one listed wins', () => {
    expect(preferredLanguage('fr;q=0.5,de;q=0.5')).toBe('fr');
    expect(preferredLanguage('en-us;q=0.8, fr-CA;q=0.8')).toBe('en-US');
    expect(preferredLanguage('pt-BR, pt')).toBe('pt-BR');
  });

  test('scripts, numeric regions and variants are dropped; a region after a script is kept', () => {
    expect(preferredLanguage('zh-Hant-TW')).toBe('zh-TW');
    expect(preferredLanguage('zh-Hans-CN,zh;q=0.9')).toBe('zh-CN');
    expect(preferredLanguage('zh-Hant')).toBe('zh');
    expect(preferredLanguage('sr-Latn-RS')).toBe('sr-RS');
    expect(preferredLanguage('es-419')).toBe('es');
    expect(preferredLanguage('de-CH-1996')).toBe('de-CH');
  });

  test('the wildcard is never the answer', () => {
    expect(preferredLanguage('*')).toBeNull();
    expect(preferredLanguage('*, fr;q=0.5')).toBe('fr');
    expect(preferredLanguage('en-US;q=0.9,*;q=0.5')).toBe('en-US');
  });

  test('q=0 means "not acceptable": such entries are ignored', () => {
    expect(preferredLanguage('en;q=0')).toBeNull();
    expect(preferredLanguage('en;q=0.000, fr;q=0')).toBeNull();
    expect(preferredLanguage('en;q=0, de;q=0.1')).toBe('de');
  });

  test('a q outside RFC 9110 (above 1, more than three decimals, not a number) is ignored', () => {
    // Ignored means the default weight 1, so the first entry keeps the lead.
    expect(preferredLanguage('en, de;q=1.5')).toBe('en');
    expect(preferredLanguage('en, de;q=1.001')).toBe('en');
    expect(preferredLanguage('en;q=0.5, fr;q=abc')).toBe('fr');
    expect(preferredLanguage('en;q=0.5, fr;q=0.8888')).toBe('fr');
    expect(preferredLanguage('en;q=0.5, fr;q=1.000')).toBe('fr');
  });

  test('absent or malformed: null', () => {
    for (const header of [
      null,
      '',
      ' ',
      ',,,',
      '!!!',
      'en_US',
      ';q=0.9',
      'q=1',
      '12-34',
      'en-',
      '-US',
      'toolonglanguage',
      'en US',
      '"en"',
    ]) {
      expect({ header, lang: preferredLanguage(header) }).toEqual({ header, lang: null });
    }
  });

  test('a malformed entry is skipped, the rest still count', () => {
    expect(preferredLanguage('en_US, fr;q=0.4')).toBe('fr');
    expect(preferredLanguage('!!, ;;, de-AT;q=0.3')).toBe('de-AT');
  });

  test('a very long header does not throw; only its first 20 entries are read', () => {
    expect(preferredLanguage('a'.repeat(200_000))).toBeNull();
    expect(preferredLanguage(`en-${'a'.repeat(100_000)}`)).toBeNull();
    expect(preferredLanguage(`${'a-'.repeat(100_000)}!`)).toBeNull();
    expect(preferredLanguage(`${'fr;q=0.1,'.repeat(19)}de;q=0.2`)).toBe('de');
    expect(preferredLanguage(`${'fr;q=0.1,'.repeat(20)}de;q=0.2`)).toBe('fr');
    expect(preferredLanguage(`${'en;q=0.5,'.repeat(100_000)}de`)).toBe('en');
  });
});

// ---------------------------------------------------------------------------------------

/** Every row of every table as text, for "this value is stored nowhere" checks. */
function dumpAllTables(sqlite: Database): { tables: string[]; text: string } {
  const tables = sqlite
    .query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .all()
    .map((r) => r.name);
  const text = tables
    .map((name) => `${name}: ${JSON.stringify(sqlite.query(`SELECT * FROM "${name}"`).all())}`)
    .join('\n');
  return { tables, text };
}

describe('VisitorHasher on a migrated database', () => {
  let t: TestApp;
  let sqlite: Database;
  beforeAll(async () => {
    t = await makeTestApp();
    sqlite = t.deps.db.$client;
  });
  afterAll(() => t.close());

  test('the same day, address and user agent give the same 16-hex hash (the first 8 bytes of the sha256)', () => {
    const hasher = new VisitorHasher(sqliteSalts(sqlite));
    const a = hasher.hash(DAY, '81.2.69.160', CHROME);
    expect(a).toMatch(HEX16);
    expect(hasher.hash(DAY, '81.2.69.160', CHROME)).toBe(a);
  });

  test('a different day, address or user agent gives a different hash', () => {
    const hasher = new VisitorHasher(sqliteSalts(sqlite));
    const base = hasher.hash(DAY, '81.2.69.160', CHROME);
    const others = [
      hasher.hash(DAY + 1, '81.2.69.160', CHROME),
      hasher.hash(DAY - 1, '81.2.69.160', CHROME),
      hasher.hash(DAY, '81.2.69.161', CHROME),
      hasher.hash(DAY, '2a00:1450:4001:80b::200e', CHROME),
      hasher.hash(DAY, null, CHROME),
      hasher.hash(DAY, '81.2.69.160', IPHONE),
      hasher.hash(DAY, '81.2.69.160', null),
      // The separator keeps the fields apart: moving characters across them changes the hash.
      hasher.hash(DAY, '81.2.69.16', `0\n${CHROME}`),
    ];
    for (const other of others) expect(other).toMatch(HEX16);
    expect(new Set([base, ...others]).size).toBe(others.length + 1);
  });

  test('the hash is not a plain digest of the inputs: a secret daily salt goes in first', () => {
    const hasher = new VisitorHasher(sqliteSalts(sqlite));
    const unsalted = new Bun.CryptoHasher('sha256').update(`\n81.2.69.160\n${CHROME}`).digest('hex').slice(0, 16);
    expect(hasher.hash(DAY, '81.2.69.160', CHROME)).not.toBe(unsalted);
    const { salt } = sqlite.query<{ salt: string }, [number]>('SELECT salt FROM visitor_salts WHERE day = ?').get(DAY)!;
    const salted = new Bun.CryptoHasher('sha256').update(`${salt}\n81.2.69.160\n${CHROME}`).digest('hex').slice(0, 16);
    expect(hasher.hash(DAY, '81.2.69.160', CHROME)).toBe(salted);
    expect(salt.length).toBeGreaterThanOrEqual(32);
  });

  test('the salt is stored per day, so a new hasher (a restart) gives the same hash', () => {
    const day = DAY + 10;
    const first = new VisitorHasher(sqliteSalts(sqlite)).hash(day, '8.8.8.8', IPHONE);
    const rows = sqlite
      .query<{ day: number; salt: string }, [number]>('SELECT day, salt FROM visitor_salts WHERE day = ?')
      .all(day);
    expect(rows).toHaveLength(1);
    expect(new VisitorHasher(sqliteSalts(sqlite)).hash(day, '8.8.8.8', IPHONE)).toBe(first);
    // Two hashers that both meet a fresh day agree on one salt (INSERT OR IGNORE, then read back).
    const [x, y] = [new VisitorHasher(sqliteSalts(sqlite)), new VisitorHasher(sqliteSalts(sqlite))];
    expect(x.hash(day + 1, '8.8.8.8', IPHONE)).toBe(y.hash(day + 1, '8.8.8.8', IPHONE));
    expect(sqlite.query('SELECT day FROM visitor_salts WHERE day = ?').all(day + 1)).toHaveLength(1);
  });

  test('each day gets its own random salt', () => {
    const hasher = new VisitorHasher(sqliteSalts(sqlite));
    hasher.hash(DAY + 20, null, null);
    hasher.hash(DAY + 21, null, null);
    const salts = sqlite
      .query<{ salt: string }, [number, number]>('SELECT salt FROM visitor_salts WHERE day IN (?, ?)')
      .all(DAY + 20, DAY + 21);
    expect(salts).toHaveLength(2);
    expect(salts[0]!.salt).not.toBe(salts[1]!.salt);
  });

  test('pruneBefore drops the salts of older days, from the database and from memory', () => {
    const base = DAY + 100;
    const hasher = new VisitorHasher(sqliteSalts(sqlite));
    const before = hasher.hash(base, '81.2.69.160', CHROME);
    for (let d = base; d <= base + 4; d++) hasher.hash(d, '81.2.69.160', CHROME);
    const keep = base + 3;
    hasher.pruneBefore(keep);
    expect(
      sqlite.query<{ day: number }, [number]>('SELECT day FROM visitor_salts WHERE day >= ? ORDER BY day').all(base),
    ).toEqual([{ day: base + 3 }, { day: base + 4 }]);
    // Nothing older left: a second call changes nothing.
    hasher.pruneBefore(keep);
    expect(
      sqlite.query<{ n: number }, [number]>('SELECT count(*) AS n FROM visitor_salts WHERE day >= ?').get(base)!.n,
    ).toBe(2);

    // The pruned day's salt is gone for good, from memory too: its old hashes cannot be remade.
    expect(hasher.hash(base, '81.2.69.160', CHROME)).not.toBe(before);
    expect(hasher.hash(keep, '81.2.69.160', CHROME)).toBe(
      new VisitorHasher(sqliteSalts(sqlite)).hash(keep, '81.2.69.160', CHROME),
    );
  });
});

// ---------------------------------------------------------------------------------------

function makeTarget(over: TargetOptions = {}): TestTarget {
  const params = { utm_source: 'spring', utm_medium: 'Newsletter', ref: 'a b' };
  return testTarget({
    linkId: 'lnk_enrich',
    variantId: 'var_b',
    location: 'https://example.com/pricing?utm_source=spring&utm_medium=Newsletter&ref=a+b',
    paramsJson: JSON.stringify(params),
    humanClicks: 5,
    unsorted: 3,
    ...over,
  });
}

function makeRecord(target: TestTarget, over: Partial<ClickRecord> = {}): ClickRecord {
  return clickRecord(target, {
    time: T0 + 1234,
    code: 'b',
    address: '::ffff:81.2.69.160',
    userAgent: IPHONE,
    referrer: 'https://l.facebook.com/l.php?u=https%3A%2F%2Fsl.test%2Fx',
    acceptLanguage: 'fr-fr,fr;q=0.9,en;q=0.5',
    ...over,
  });
}

describe('enrichClick on hand-made records', () => {
  let t: TestApp;
  let hasher: VisitorHasher;
  let geo: GeoLookup;
  let ctx: EnrichContext;
  beforeAll(async () => {
    t = await makeTestApp();
    hasher = new VisitorHasher(sqliteSalts(t.deps.db.$client));
    geo = openGeo(null);
    ctx = { geo, hasher, ownHosts: ['sl.test'] };
  });
  afterAll(() => t.close());

  test('a human click: every fact, utm_medium over the referrer, counters settled', () => {
    const target = makeTarget();
    const record = makeRecord(target);
    const enriched = enrichClick(toWire(record), ctx);
    expect(enriched).toEqual({
      serial: target.serial,
      linkId: 'lnk_enrich',
      variantId: 'var_b',
      code: 'b',
      rule: null,
      time: T0 + 1234,
      day: DAY,
      bot: false,
      destination: 'https://example.com/pricing?utm_source=spring&utm_medium=Newsletter&ref=a+b',
      params: { utm_source: 'spring', utm_medium: 'Newsletter', ref: 'a b' },
      paramsJson: '{"utm_source":"spring","utm_medium":"Newsletter","ref":"a b"}',
      country: 'GB',
      city: 'London',
      device: 'mobile',
      os: 'iOS',
      browser: 'Mobile Safari',
      referrer: 'l.facebook.com',
      trafficType: 'email',
      language: 'fr-FR',
      // Hashed on the unmapped address: ::ffff:81.2.69.160 and 81.2.69.160 are one visitor.
      visitorHash: hasher.hash(DAY, '81.2.69.160', IPHONE),
      // Its link's ids are known on PostgreSQL only (WireClick.linkValue, targetId).
      linkValue: 0,
      targetId: 0,
    });
    expect(enriched.params).toEqual(JSON.parse(target.paramsJson));
    expect(record.bot).toBe(false);
    expect(target.counters).toEqual({ humanClicks: 6, unsorted: 2 });
  });

  test('without utm_medium the referrer decides', () => {
    const target = makeTarget({ paramsJson: '{}' });
    expect(enrichClick(toWire(makeRecord(target)), ctx).trafficType).toBe('social');
    expect(enrichClick(toWire(makeRecord(target, { referrer: 'https://www.google.de/' })), ctx).trafficType).toBe(
      'search',
    );
    expect(enrichClick(toWire(makeRecord(target, { referrer: 'https://sl.test/other' })), ctx)).toMatchObject({
      referrer: 'sl.test',
      trafficType: 'direct',
    });
    expect(enrichClick(toWire(makeRecord(target, { referrer: null })), ctx)).toMatchObject({
      referrer: null,
      trafficType: 'direct',
    });
  });

  test('a HEAD request from a crawler over IPv6: a bot, still located and parsed', () => {
    const target = makeTarget({ variantId: null, paramsJson: '{}', location: 'https://example.com/' });
    const record = makeRecord(target, {
      code: null,
      head: true,
      userAgent: GOOGLEBOT,
      address: '2a00:1450:4001:80b::200e',
      referrer: 'https://example.org/list',
      acceptLanguage: null,
    });
    expect(enrichClick(toWire(record), ctx)).toEqual({
      serial: target.serial,
      linkId: 'lnk_enrich',
      variantId: null,
      code: null,
      rule: null,
      time: T0 + 1234,
      day: DAY,
      bot: true,
      destination: 'https://example.com/',
      params: {},
      paramsJson: '{}',
      country: 'DE',
      city: 'Frankfurt am Main',
      device: null,
      os: null,
      // A bot hit is shown under the bot's name (ua-parser-js names none for it).
      browser: 'Googlebot',
      referrer: 'example.org',
      trafficType: 'referral',
      language: null,
      visitorHash: hasher.hash(DAY, '2a00:1450:4001:80b::200e', GOOGLEBOT),
      linkValue: 0,
      targetId: 0,
    });
    expect(target.counters).toEqual({ humanClicks: 5, unsorted: 2 });
  });

  test('nothing known (no agent, address, referrer or language): a bot with nulls and browser Bot, direct', () => {
    const target = makeTarget({ paramsJson: '{}' });
    const record = makeRecord(target, {
      userAgent: null,
      address: null,
      referrer: null,
      acceptLanguage: null,
      code: 'zz',
    });
    const e = enrichClick(toWire(record), { geo: noGeo, hasher, ownHosts: [] });
    expect(e).toMatchObject({
      bot: true,
      code: 'zz',
      country: null,
      city: null,
      device: null,
      os: null,
      browser: 'Bot',
      referrer: null,
      trafficType: 'direct',
      language: null,
    });
    expect(e.visitorHash).toBe(hasher.hash(DAY, null, null));
    expect(e.visitorHash).toMatch(HEX16);
  });

  test('a private address and a click already classified on the hot path', () => {
    const target = makeTarget();
    const record = makeRecord(target, { address: '10.0.0.1', bot: false });
    const e = enrichClick(toWire(record), ctx);
    expect(e).toMatchObject({ bot: false, country: null, city: null });
    // Classified before the flush: the counters were settled then, not again now.
    expect(target.counters).toEqual({ humanClicks: 5, unsorted: 3 });
  });

  test('enriching the same record twice gives the same facts and settles the counters once', () => {
    const target = makeTarget();
    const record = makeRecord(target);
    const first = enrichClick(toWire(record), ctx);
    expect(enrichClick(toWire(record), ctx)).toEqual(first);
    expect(target.counters).toEqual({ humanClicks: 6, unsorted: 2 });
  });

  test('the day is the UTC day of the click: a new day, a new visitor hash', () => {
    const midnight = (DAY + 1) * DAY_MS;
    const target = makeTarget();
    const late = enrichClick(toWire(makeRecord(target, { time: midnight - 1 })), ctx);
    const early = enrichClick(toWire(makeRecord(target, { time: midnight })), ctx);
    expect([late.day, early.day]).toEqual([DAY, DAY + 1]);
    expect(early.visitorHash).not.toBe(late.visitorHash);
    expect(early.visitorHash).toBe(hasher.hash(DAY + 1, '81.2.69.160', IPHONE));
  });
});

// ---------------------------------------------------------------------------------------

describe('a real click through the redirect and the flush', () => {
  const CLIENT = '81.2.69.160';
  const PROXY = '10.0.0.1';
  const CLIENT6 = '2a00:1450:4001:80b::200e';
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await makeTestApp({ SLINK_TRUST_PROXY: '1' });
    ({ key } = await makeKey(t, 'write', { superuser: true }));
  });
  afterAll(() => t.close());

  async function createLink(body: Record<string, unknown>): Promise<{ id: string; slug: string }> {
    const res = await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/landing', ...body } });
    expect(res.status).toBe(201);
    return res.body;
  }

  async function click(slug: string, headers: Record<string, string>): Promise<void> {
    const res = await t.app.handle(new Request(`https://sl.test/${slug}`, { headers }));
    expect(res.status).toBe(302);
  }

  test('stores the enriched facts and never the address', async () => {
    const link = await createLink({ params: { utm_source: 'hn' } });
    await click(link.slug, {
      'x-forwarded-for': `${PROXY}, ${CLIENT}`, // the client forged the first entry; our proxy added the second
      'user-agent': CHROME,
      referer: 'https://www.google.co.uk/',
      'accept-language': 'en-GB,en;q=0.9',
    });
    await click(link.slug, { 'x-forwarded-for': CLIENT6, 'user-agent': IPHONE, 'accept-language': 'de' });
    await click(link.slug, { 'x-forwarded-for': CLIENT, 'user-agent': GOOGLEBOT });
    expect(await t.deps.clicks.flusher.flush()).toBe(true);
    expect(t.errors).toEqual([]);

    const sqlite = t.deps.db.$client;
    const clicks = queryRaw(
      sqlite,
      'SELECT country, city, device, os, browser, referrer, traffic_type, language, bot, visitor_hash, first_of_day FROM raw_clicks WHERE link_id = ? ORDER BY id',
    ).all(link.id);
    expect(clicks).toEqual([
      {
        country: 'GB',
        city: 'London',
        device: 'desktop',
        os: 'Windows',
        browser: 'Chrome',
        referrer: 'google.co.uk',
        traffic_type: 'search',
        language: 'en-GB',
        bot: 0,
        visitor_hash: new VisitorHasher(sqliteSalts(sqlite)).hash(DAY, CLIENT, CHROME).slice(0, 16), // the stored 64 bits
        first_of_day: 1,
      },
      {
        country: 'DE',
        city: 'Frankfurt am Main',
        device: 'mobile',
        os: 'iOS',
        browser: 'Mobile Safari',
        referrer: null,
        traffic_type: 'direct',
        language: 'de',
        bot: 0,
        visitor_hash: new VisitorHasher(sqliteSalts(sqlite)).hash(DAY, CLIENT6, IPHONE).slice(0, 16), // the stored 64 bits
        first_of_day: 1,
      },
      {
        country: 'GB',
        city: 'London',
        device: null,
        os: null,
        browser: 'Googlebot',
        referrer: null,
        traffic_type: 'direct',
        language: null,
        bot: 1,
        visitor_hash: new VisitorHasher(sqliteSalts(sqlite)).hash(DAY, CLIENT, GOOGLEBOT).slice(0, 16), // the stored 64 bits
        first_of_day: 0,
      },
    ]);

    // Every table, as text: no trace of the client's or the proxy's address.
    const { tables, text } = dumpAllTables(sqlite);
    expect(tables).toEqual(
      expect.arrayContaining([
        'click_tail',
        'click_targets',
        'click_state',
        'visitor_salts',
        'links',
        'rollups',
        'rollup_values',
      ]),
    );
    const found = (haystack: string) =>
      Object.fromEntries(['London', CLIENT, PROXY, CLIENT6, '2a00:1450'].map((s) => [s, haystack.includes(s)]));
    expect(found(text)).toEqual({
      London: true,
      [CLIENT]: false,
      [PROXY]: false,
      [CLIENT6]: false,
      '2a00:1450': false,
    });

    // Nor in the bytes of the database file and its write-ahead log (where the rows are now).
    const path = t.deps.config.dbPath;
    const bytes = [path, `${path}-wal`]
      .filter((f) => existsSync(f))
      .map((f) => readFileSync(f).toString('latin1'))
      .join('');
    expect(found(bytes)).toEqual({
      London: true,
      [CLIENT]: false,
      [PROXY]: false,
      [CLIENT6]: false,
      '2a00:1450': false,
    });
  });

  test('a utm_medium named like an Object.prototype member does not break the flush', async () => {
    const link = await createLink({ params: { utm_medium: 'constructor' } });
    const other = await createLink({});
    await click(link.slug, { 'x-forwarded-for': CLIENT, 'user-agent': CHROME, referer: 'https://example.org/' });
    await click(other.slug, { 'x-forwarded-for': CLIENT, 'user-agent': CHROME });
    expect(await t.deps.clicks.flusher.flush()).toBe(true);
    expect(t.errors).toEqual([]);
    expect(t.deps.clicks.buffer.length).toBe(0);
    const rows = queryRaw(
      t.deps.db.$client,
      'SELECT link_id, traffic_type FROM raw_clicks WHERE link_id IN (?, ?) ORDER BY id',
    ).all(link.id, other.id);
    expect(rows).toEqual([
      { link_id: link.id, traffic_type: 'referral' },
      { link_id: other.id, traffic_type: 'direct' },
    ]);
  });
});
