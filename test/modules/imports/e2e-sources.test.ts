/**
 * Every source end to end, as a demanding user checks an import: POST /api/v1/imports on the
 * real app (real HTTP) reading each product's fake (a real server), on both engines (the
 * history writer is the engine's). What is checked is what the user sees afterwards through the
 * API: the links with their mapped fields, their history where the contract puts it (Shlink's
 * visits as clicks rows, breakdowns and humans/bots; Bitly's days in the series only; Kutt's and
 * YOURLS' totals as the starting clickCount; Dub's events as clicks), the skips with their
 * reasons, the report, and a second run that makes nothing and adds only the newer visits.
 */
import { beforeAll, describe, expect, test } from 'bun:test';
import { type BitlinkSeed, startBitlyFake } from '../../fakes/bitly';
import { type DubClickSeed, startDubFake } from '../../fakes/dub';
import { startKuttFake } from '../../fakes/kutt';
import { type ShlinkVisitSeed, startShlinkFake } from '../../fakes/shlink';
import { startYourlsFake } from '../../fakes/yourls';
import { forEachEngine } from '../../helpers/engines';
import { UA } from '../clicks/support';
import { parseCsv } from './e2e-support';
import { ended, importApp } from './support';

const at = (iso: string) => Date.parse(iso);

/** Each engine's fakes get their own seeds: the tests add visits and days to them. */
function seeds() {
  const shlinkVisits: ShlinkVisitSeed[] = [
    {
      date: '2026-10-01T10:00:00+00:00',
      userAgent: UA.chromeWin,
      referer: 'https://www.google.com/search?q=slink',
      countryCode: 'GB',
      cityName: 'London',
    },
    { date: '2026-10-02T11:00:00+00:00', userAgent: UA.firefoxLinux, countryCode: 'FR', cityName: 'Paris' },
    // Shlink's own bot verdict stands, whatever the agent looks like.
    { date: '2026-10-03T12:00:00+00:00', userAgent: UA.safariIphone, countryCode: 'FR', potentialBot: true },
  ];
  const shlinkSeeds = [
    {
      shortCode: 'sh-rich',
      longUrl: 'https://example.com/rich?utm_source=old',
      title: 'Rich',
      tags: ['news', 'tech'],
      dateCreated: '2026-09-01T00:00:00+00:00',
      validUntil: '2030-01-01T00:00:00+00:00',
      maxVisits: 1000,
      visits: shlinkVisits,
    },
    { shortCode: 'sh-taken', longUrl: 'https://example.com/theirs', dateCreated: '2026-09-02T00:00:00+00:00' },
    { shortCode: 'sh-bad', longUrl: 'javascript:alert(1)', dateCreated: '2026-09-03T00:00:00+00:00' },
  ];
  const bitlySeeds: BitlinkSeed[] = [
    {
      id: 'bit.ly/3abcDEF',
      long_url: 'https://example.com/at-bitly',
      created_at: '2026-09-01T00:00:00+0000',
      clicks: { '2026-10-01': 9 },
    },
    {
      id: 'go.brand.test/promo',
      long_url: 'https://example.com/promo',
      title: 'Promo',
      tags: ['spring'],
      created_at: '2026-09-02T00:00:00+0000',
      clicks: { '2026-10-01': 5, '2026-10-02': 0, '2026-10-03': 2 },
    },
  ];
  const dubClicks: DubClickSeed[] = [
    {
      id: 'clk_1',
      timestamp: '2026-10-05T09:00:00.000Z',
      country: 'DE',
      city: 'Berlin',
      device: 'Mobile',
      browser: 'Safari',
      os: 'iOS',
      referer: 'news.ycombinator.com',
    },
    { id: 'clk_2', timestamp: '2026-10-06T09:00:00.000Z', country: 'US', city: 'Austin' },
  ];
  return { shlinkVisits, shlinkSeeds, bitlySeeds, dubClicks };
}

forEachEngine((engine) => {
  const { shlinkVisits, shlinkSeeds, bitlySeeds, dubClicks } = seeds();
  const shlink = startShlinkFake({ links: shlinkSeeds });
  const bitly = startBitlyFake({ groups: [{ guid: 'Bg1', links: bitlySeeds }] });
  const kutt = startKuttFake({
    links: [
      {
        id: '7f1c-kutt',
        address: 'ku-total',
        target: 'https://example.com/kutt',
        description: 'From Kutt',
        visit_count: 42,
        created_at: '2026-09-05T00:00:00.000Z',
      },
    ],
  });
  const yourls = startYourlsFake({
    folder: '/yourls',
    links: [
      {
        keyword: 'yo-total',
        url: 'https://example.com/yourls',
        title: 'Yo',
        timestamp: '2026-09-06 10:00:00',
        clicks: 17,
      },
    ],
  });
  const dub = startDubFake({
    links: [
      {
        id: 'link_dub1',
        domain: 'dub.sh',
        key: 'dub-events',
        url: 'https://example.com/dub',
        title: 'Dub one',
        tags: ['launch'],
        createdAt: '2026-09-07T00:00:00.000Z',
        clicks: dubClicks,
      },
    ],
  });

  const { call, start } = importApp({ engine, fakes: [shlink, bitly, kutt, yourls, dub] });
  const get = async (path: string) => {
    const res = await call('GET', path);
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    return res.body;
  };

  async function run(body: Record<string, unknown>) {
    const id = await start(body);
    const final = await ended(async () => (await call('GET', `/imports/${id}`)).body);
    const report = await call('GET', `/imports/${id}/report.csv`);
    expect(report.status).toBe(200);
    return { id, final, report: parseCsv(report.text) };
  }
  const linkBySlug = async (slug: string) => {
    const items = (await get(`/links?q=${slug}`)).items.filter((l: any) => l.slug === slug);
    expect(items.length).toBe(1);
    return items[0];
  };
  const byValue = (entries: { value: string | null; clicks: number }[]) =>
    Object.fromEntries(entries.map((e) => [e.value, e.clicks]));
  const seriesDays = (series: { t: number; clicks: number }[]) =>
    Object.fromEntries(
      series.filter((p) => p.clicks > 0).map((p) => [new Date(p.t).toISOString().slice(0, 10), p.clicks]),
    );

  describe('shlink', () => {
    let first: Awaited<ReturnType<typeof run>>;
    beforeAll(async () => {
      expect((await call('POST', '/links', { destination: 'https://example.com/mine', slug: 'sh-taken' })).status).toBe(
        201,
      );
      first = await run({ source: 'shlink', url: shlink.url, token: shlink.apiKey });
    });

    test('links made with their fields; the taken slug and the bad destination skipped with reasons', async () => {
      expect(first.final).toMatchObject({
        status: 'done',
        links: { seen: 3, created: 1, skipped: 2, failed: 0 },
        clicks: { imported: 3 },
        errors: [
          { source: 'sh-taken', reason: 'slug "sh-taken" is taken on sl.test' },
          { source: 'sh-bad', reason: expect.stringMatching(/^destination: /) },
        ],
      });
      expect(first.report).toEqual([
        ['sourceId', 'outcome', 'shortUrl', 'reason'],
        ['sh-rich', 'created', 'https://sl.test/sh-rich', ''],
        ['sh-taken', 'skipped', '', 'slug "sh-taken" is taken on sl.test'],
        ['sh-bad', 'skipped', '', expect.stringMatching(/^destination: /)],
      ]);
      const rich = await linkBySlug('sh-rich');
      expect(rich).toMatchObject({
        domain: 'sl.test',
        destination: 'https://example.com/rich',
        params: { utm_source: 'old' },
        title: 'Rich',
        tags: ['news', 'tech'],
        createdAt: at('2026-09-01T00:00:00Z'),
        expiresAt: at('2030-01-01T00:00:00Z'),
        clickLimit: 1000,
        status: 'active',
      });
      // The link already there is left as it was.
      expect((await linkBySlug('sh-taken')).destination).toBe('https://example.com/mine');
    });

    test('every visit is a click: rows, breakdowns, bots apart by Shlink’s flag, clickCount', async () => {
      const rich = await linkBySlug('sh-rich');
      expect({ clickCount: rich.clickCount, botCount: rich.botCount, uniqueCount: rich.uniqueCount }).toEqual({
        clickCount: 2,
        botCount: 1,
        uniqueCount: 0,
      });
      expect(rich.imported).toMatchObject({ source: 'shlink', history: 'visits', clicks: 3 });
      const clicks = await get(`/links/${rich.id}/clicks?from=2026-09-01&to=2026-11-01&bots=1&limit=100`);
      expect(
        clicks.items.map((c: any) => [c.timestamp, c.bot, c.country, c.city, c.browser, c.os, c.device, c.referrer]),
      ).toEqual([
        // A bot is named as the redirect names one; its agent's facts stay.
        [at('2026-10-03T12:00:00Z'), true, 'FR', null, expect.any(String), 'iOS', 'mobile', null],
        [at('2026-10-02T11:00:00Z'), false, 'FR', 'Paris', 'Firefox', 'Linux', 'desktop', null],
        [at('2026-10-01T10:00:00Z'), false, 'GB', 'London', 'Chrome', 'Windows', 'desktop', 'google.com'],
      ]);
      const humans = await get(`/links/${rich.id}/stats?from=2026-09-01&to=2026-11-01`);
      expect(humans.totals).toMatchObject({ clicks: 2, bots: 1, uniques: 0 });
      expect(byValue(humans.breakdowns.country)).toEqual({ GB: 1, FR: 1 });
      expect(byValue(humans.breakdowns.city)).toMatchObject({ London: 1, Paris: 1 });
      expect(byValue(humans.breakdowns.referrer)).toEqual({ 'google.com': 1, null: 1 });
      expect(byValue(humans.breakdowns.browser)).toEqual({ Chrome: 1, Firefox: 1 });
      expect(seriesDays(humans.series)).toEqual({ '2026-10-01': 1, '2026-10-02': 1 });
    });

    test('a second run makes nothing and adds only the visits newer than the last imported', async () => {
      shlinkVisits.push(
        { date: '2026-10-04T08:00:00+00:00', userAgent: UA.chromeAndroid, countryCode: 'ES', cityName: 'Madrid' },
        { date: '2026-10-05T08:00:00+00:00', userAgent: UA.edgeMac, countryCode: 'GB', cityName: 'Leeds' },
      );
      const again = await run({ source: 'shlink', url: shlink.url, token: shlink.apiKey });
      expect(again.final).toMatchObject({
        status: 'done',
        links: { seen: 3, created: 0, skipped: 3, existing: 1, failed: 0 },
        clicks: { imported: 2 },
      });
      expect(again.report[1]).toEqual(['sh-rich', 'existing', 'https://sl.test/sh-rich', 'imported before']);
      expect((await get('/links/count?q=sh-rich')).count).toBe(1);
      const rich = await linkBySlug('sh-rich');
      expect({ clickCount: rich.clickCount, botCount: rich.botCount }).toEqual({ clickCount: 4, botCount: 1 });
      const clicks = await get(`/links/${rich.id}/clicks?from=2026-09-01&to=2026-11-01&bots=1&limit=100`);
      expect(clicks.items.map((c: any) => c.timestamp)).toEqual(
        [...shlinkVisits].reverse().map((v) => at(v.date.replace('+00:00', 'Z'))),
      );
      // Nothing new at the source: nothing added.
      const third = await run({ source: 'shlink', url: shlink.url, token: shlink.apiKey });
      expect(third.final).toMatchObject({ links: { created: 0 }, clicks: { imported: 0 } });
      expect((await linkBySlug('sh-rich')).clickCount).toBe(4);
    });
  });

  describe('bitly', () => {
    let first: Awaited<ReturnType<typeof run>>;
    beforeAll(async () => {
      expect((await call('POST', '/domains', { origin: 'https://go.brand.test' })).status).toBe(201);
      first = await run({ source: 'bitly', url: bitly.url, token: bitly.token });
    });

    test('a bit.ly link is skipped with its reason; a branded one made on its domain', async () => {
      expect(first.final).toMatchObject({
        status: 'done',
        links: { seen: 2, created: 1, skipped: 1, failed: 0 },
        clicks: { imported: 7 },
        errors: [
          {
            source: 'bit.ly/3abcDEF',
            reason: 'bit.ly/3abcDEF is on bit.ly, which only Bitly answers: only links on a branded domain can move',
          },
        ],
      });
      expect(first.report.slice(1)).toEqual([
        ['bit.ly/3abcDEF', 'skipped', '', expect.stringContaining('only Bitly answers')],
        ['go.brand.test/promo', 'created', 'https://go.brand.test/promo', ''],
      ]);
      expect(await linkBySlug('promo')).toMatchObject({
        domain: 'go.brand.test',
        shortUrl: 'https://go.brand.test/promo',
        destination: 'https://example.com/promo',
        title: 'Promo',
        tags: ['spring'],
        createdAt: at('2026-09-02T00:00:00Z'),
      });
    });

    test('daily counts: clickCount and the series, no clicks rows, no uniques', async () => {
      const promo = await linkBySlug('promo');
      expect({ clickCount: promo.clickCount, uniqueCount: promo.uniqueCount, botCount: promo.botCount }).toEqual({
        clickCount: 7,
        uniqueCount: 0,
        botCount: 0,
      });
      expect(promo.imported).toMatchObject({ source: 'bitly', history: 'daily', clicks: 7 });
      const stats = await get(`/links/${promo.id}/stats?from=2026-09-01&to=2026-11-01&bots=1`);
      expect(stats.totals).toMatchObject({ clicks: 7, uniques: 0, bots: 0 });
      expect(seriesDays(stats.series)).toEqual({ '2026-10-01': 5, '2026-10-03': 2 });
      expect((await get(`/links/${promo.id}/clicks?range=all&bots=1`)).items).toEqual([]);
    });

    test('a second run adds only the newer days', async () => {
      bitlySeeds[1]!.clicks!['2026-10-04'] = 4;
      const again = await run({ source: 'bitly', url: bitly.url, token: bitly.token });
      expect(again.final).toMatchObject({ links: { created: 0, skipped: 2 }, clicks: { imported: 4 } });
      expect((await linkBySlug('promo')).clickCount).toBe(11);
    });
  });

  describe('totals: kutt and yourls', () => {
    test('kutt: the link with its fields, its visit count the starting clickCount, once', async () => {
      const first = await run({ source: 'kutt', url: kutt.url, token: kutt.apiKey });
      expect(first.final).toMatchObject({ status: 'done', links: { seen: 1, created: 1 }, clicks: { imported: 42 } });
      const link = await linkBySlug('ku-total');
      expect(link).toMatchObject({
        destination: 'https://example.com/kutt',
        title: 'From Kutt',
        createdAt: at('2026-09-05T00:00:00Z'),
        clickCount: 42,
        uniqueCount: 0,
        imported: { source: 'kutt', history: 'total', clicks: 42 },
      });
      expect((await get(`/links/${link.id}/clicks?range=all&bots=1`)).items).toEqual([]);
      const again = await run({ source: 'kutt', url: kutt.url, token: kutt.apiKey });
      expect(again.final).toMatchObject({ links: { created: 0, skipped: 1 }, clicks: { imported: 0 } });
      expect((await linkBySlug('ku-total')).clickCount).toBe(42);
    });

    test('yourls (in a folder): the keyword, title and created time, its clicks the starting clickCount', async () => {
      const first = await run({ source: 'yourls', url: yourls.site, token: yourls.signature, domain: 'sl.test' });
      expect(first.final).toMatchObject({ status: 'done', links: { seen: 1, created: 1 }, clicks: { imported: 17 } });
      expect(await linkBySlug('yo-total')).toMatchObject({
        destination: 'https://example.com/yourls',
        title: 'Yo',
        createdAt: at('2026-09-06T10:00:00Z'),
        clickCount: 17,
        imported: { source: 'yourls', history: 'total', clicks: 17 },
      });
      const again = await run({ source: 'yourls', url: yourls.site, token: yourls.signature, domain: 'sl.test' });
      expect(again.final).toMatchObject({ links: { created: 0 }, clicks: { imported: 0 } });
      expect((await linkBySlug('yo-total')).clickCount).toBe(17);
    });
  });

  describe('dub', () => {
    test('click events become clicks with country, city, device, browser and OS; a re-run adds only newer ones', async () => {
      const first = await run({ source: 'dub', url: dub.url, token: dub.token, domain: 'sl.test' });
      expect(first.final).toMatchObject({ status: 'done', links: { seen: 1, created: 1 }, clicks: { imported: 2 } });
      const link = await linkBySlug('dub-events');
      expect(link).toMatchObject({
        destination: 'https://example.com/dub',
        title: 'Dub one',
        tags: ['launch'],
        createdAt: at('2026-09-07T00:00:00Z'),
        clickCount: 2,
        imported: { source: 'dub', history: 'visits', clicks: 2 },
      });
      const clicks = await get(`/links/${link.id}/clicks?from=2026-09-01&to=2026-11-01&bots=1`);
      expect(clicks.items.map((c: any) => [c.timestamp, c.country, c.city, c.device, c.browser, c.os])).toEqual([
        [at('2026-10-06T09:00:00Z'), 'US', 'Austin', 'desktop', 'Chrome', 'Mac OS'],
        [at('2026-10-05T09:00:00Z'), 'DE', 'Berlin', 'mobile', 'Safari', 'iOS'],
      ]);
      const stats = await get(`/links/${link.id}/stats?from=2026-09-01&to=2026-11-01`);
      expect(byValue(stats.breakdowns.country)).toEqual({ DE: 1, US: 1 });
      // Dub's own names (Mobile, Desktop) in the statistics' words: one entry with the redirect's clicks.
      expect(byValue(stats.breakdowns.os)).toEqual({ iOS: 1, 'Mac OS': 1 });
      expect(byValue(stats.breakdowns.device)).toEqual({ mobile: 1, desktop: 1 });
      dubClicks.push({ id: 'clk_3', timestamp: '2026-10-07T09:00:00.000Z', country: 'JP', city: 'Tokyo' });
      const again = await run({ source: 'dub', url: dub.url, token: dub.token, domain: 'sl.test' });
      expect(again.final).toMatchObject({ links: { created: 0 }, clicks: { imported: 1 } });
      expect((await linkBySlug('dub-events')).clickCount).toBe(3);
    });
  });

  describe('csv, uploaded as a multipart form', () => {
    async function upload(name: string, text: string, fields: Record<string, string> = {}) {
      const form = new FormData();
      form.set('source', 'csv');
      for (const [k, v] of Object.entries(fields)) form.set(k, v);
      form.set('file', new File([text], name, { type: 'text/csv' }));
      const res = await call('POST', '/imports', form);
      expect(res.status).toBe(202);
      const { id } = res.body as { id: string };
      const final = await ended(async () => (await call('GET', `/imports/${id}`)).body);
      return { id, final, report: parseCsv((await call('GET', `/imports/${id}/report.csv`)).text) };
    }

    test('a Bitly-style export: fields, tags, clicks as the starting total, a bad row skipped with its reason', async () => {
      const text = [
        '\uFEFFTitle,Bitlink,Long URL,Created,Clicks,Tags',
        '"Report, Q3",https://sl.test/csv-q3,https://example.com/q3?utm_campaign=q3,2026-09-10T00:00:00Z,12,"finance|q3"',
        'Broken,https://sl.test/csv-bad,not a url,2026-09-11T00:00:00Z,3,',
        '',
      ].join('\r\n');
      const { final, report } = await upload('bitly.csv', text);
      expect(final).toMatchObject({
        status: 'done',
        url: null,
        links: { seen: 2, created: 1, skipped: 1, failed: 0 },
        clicks: { imported: 12 },
        errors: [{ source: 'https://sl.test/csv-bad', reason: expect.stringMatching(/^destination: /) }],
      });
      expect(report.slice(1)).toEqual([
        ['https://sl.test/csv-q3', 'created', 'https://sl.test/csv-q3', ''],
        ['https://sl.test/csv-bad', 'skipped', '', expect.stringMatching(/^destination: /)],
      ]);
      expect(await linkBySlug('csv-q3')).toMatchObject({
        destination: 'https://example.com/q3',
        params: { utm_campaign: 'q3' },
        title: 'Report, Q3',
        tags: ['finance', 'q3'],
        createdAt: at('2026-09-10T00:00:00Z'),
        clickCount: 12,
        imported: { source: 'csv', history: 'total', clicks: 12 },
      });
      // The same file again: nothing made twice, the total not added again.
      const again = await upload('bitly.csv', text);
      expect(again.final).toMatchObject({ links: { created: 0, skipped: 2 }, clicks: { imported: 0 } });
      expect((await linkBySlug('csv-q3')).clickCount).toBe(12);
    });

    test('another file with rows known only by their place is not taken for the first', async () => {
      const first = await upload('first.csv', 'url\nhttps://example.com/first-a\nhttps://example.com/first-b\n', {
        domain: 'sl.test',
      });
      expect(first.final).toMatchObject({ status: 'done', links: { seen: 2, created: 2 } });
      const second = await upload('second.csv', 'url\nhttps://example.com/second-a\n', { domain: 'sl.test' });
      expect(second.final).toMatchObject({ status: 'done', links: { seen: 1, created: 1, skipped: 0 } });
      const made = (await get('/links?q=second-a')).items.map((l: any) => l.destination);
      expect(made).toEqual(['https://example.com/second-a']);
    });
  });
});
