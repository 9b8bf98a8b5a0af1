/**
 * An import's history on both engines, through the app's own history writer (deps.history) and
 * read back through the API: visits become clicks (the clicks list, the statistics' series,
 * breakdowns and humans/bots, clickCount all agree), daily counts become clicks of their day in
 * the series and totals with no rows of the clicks list and no uniques, a total sets the
 * starting clickCount once, and the link says where its history came from (`imported`).
 */
import { beforeAll, describe, expect, test } from 'bun:test';
import type { SourceVisit } from '../../../src/modules/imports/public';
import { apiExpecting, T0, type TestApp } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { expectBucketsMatchRawClicks, UA } from '../clicks/support';
import { historyApp, sourceVisit } from './support';

const at = (iso: string) => Date.parse(iso);

const visit = sourceVisit;

const VISITS: SourceVisit[] = [
  visit({
    at: at('2026-10-05T10:15:00Z'),
    userAgent: UA.chromeWin,
    referrer: 'https://www.google.com/search?q=slink',
    country: 'GB',
    city: 'London',
  }),
  visit({ at: at('2026-10-05T11:00:00Z'), userAgent: UA.googlebot }),
  // The source said bot: a bot, whatever its agent looks like.
  visit({ at: at('2026-10-06T08:00:00Z'), userAgent: UA.safariIphone, bot: true }),
  // No agent, facts parsed by the source; a bare referrer host; a lower-case country.
  visit({
    at: at('2026-10-07T23:59:00Z'),
    device: 'mobile',
    os: 'iOS',
    browser: 'Safari',
    country: 'us',
    referrer: 'news.ycombinator.com',
  }),
  // Older than the others (out of order): still a click of its own time; a country that is no
  // ISO code is unknown, and so then is its city.
  visit({ at: at('2026-10-03T06:30:00Z'), userAgent: UA.firefoxLinux, country: 'Narnia', city: 'Paris' }),
  // No usable time: not a visit.
  visit({ at: Number.NaN, userAgent: UA.chromeWin }),
];

forEachEngine((engine) => {
  const app = historyApp(engine);
  let t: TestApp;
  let key: string;
  beforeAll(() => {
    ({ t, key } = app);
  });
  const newLink = (slug: string) => app.newLink(slug);
  const get = (path: string) => apiExpecting(t, key, 'GET', path);

  describe('visits', () => {
    let id: string;
    beforeAll(async () => {
      id = await newLink('visited');
      expect(await t.deps.history.visits(id, 'shlink', VISITS)).toBe(5);
      await t.deps.history.flush?.();
    });

    test('count in clickCount (humans unless the source or the agent says bot), add no uniques, and mark the link', async () => {
      const link = await get(`/links/${id}`);
      expect({
        clickCount: link.clickCount,
        botCount: link.botCount,
        uniqueCount: link.uniqueCount,
        lastClickedAt: link.lastClickedAt,
      }).toEqual({ clickCount: 3, botCount: 2, uniqueCount: 0, lastClickedAt: at('2026-10-07T23:59:00Z') });
      expect(link.imported).toEqual({ source: 'shlink', at: T0, history: 'visits', clicks: 5 });
    });

    test('are listed as clicks with the facts the source had, enriched, never invented', async () => {
      const page = await get(`/links/${id}/clicks?from=2026-10-01&to=2026-10-31&bots=1&limit=200`);
      const pick = (c: Record<string, unknown>) => ({
        timestamp: c.timestamp,
        bot: c.bot,
        country: c.country,
        city: c.city,
        device: c.device,
        os: c.os,
        browser: c.browser,
        referrer: c.referrer,
        trafficType: c.trafficType,
        language: c.language,
        variantCode: c.variantCode,
      });
      expect(page.items.map(pick)).toEqual([
        {
          timestamp: at('2026-10-07T23:59:00Z'),
          bot: false,
          country: 'US',
          city: null,
          device: 'mobile',
          os: 'iOS',
          browser: 'Safari',
          referrer: 'news.ycombinator.com',
          // The link's own utm_medium decides first, as for a redirect's click.
          trafficType: 'email',
          language: null,
          variantCode: null,
        },
        {
          timestamp: at('2026-10-06T08:00:00Z'),
          bot: true,
          country: null,
          city: null,
          device: 'mobile',
          os: 'iOS',
          browser: expect.any(String),
          referrer: null,
          trafficType: 'email',
          language: null,
          variantCode: null,
        },
        {
          timestamp: at('2026-10-05T11:00:00Z'),
          bot: true,
          country: null,
          city: null,
          device: null,
          os: null,
          browser: 'Googlebot',
          referrer: null,
          trafficType: 'email',
          language: null,
          variantCode: null,
        },
        {
          timestamp: at('2026-10-05T10:15:00Z'),
          bot: false,
          country: 'GB',
          city: 'London',
          device: 'desktop',
          os: 'Windows',
          browser: 'Chrome',
          referrer: 'google.com',
          trafficType: 'email',
          language: null,
          variantCode: null,
        },
        {
          timestamp: at('2026-10-03T06:30:00Z'),
          bot: false,
          country: null,
          city: null,
          device: 'desktop',
          os: 'Linux',
          browser: 'Firefox',
          referrer: null,
          trafficType: 'email',
          language: null,
          variantCode: null,
        },
      ]);
    });

    test('the statistics agree with the clicks list and clickCount', async () => {
      const humans = await get(`/links/${id}/stats?from=2026-10-01&to=2026-10-31`);
      expect(humans.totals).toMatchObject({ clicks: 3, uniques: 0, bots: 2 });
      const all = await get(`/links/${id}/stats?from=2026-10-01&to=2026-10-31&bots=1`);
      expect(all.totals).toMatchObject({ clicks: 5, uniques: 0, bots: 2 });
      const days = Object.fromEntries(
        (all.series as { t: number; clicks: number }[]).filter((p) => p.clicks > 0).map((p) => [p.t, p.clicks]),
      );
      expect(days).toEqual({
        [at('2026-10-03T00:00:00Z')]: 1,
        [at('2026-10-05T00:00:00Z')]: 2,
        [at('2026-10-06T00:00:00Z')]: 1,
        [at('2026-10-07T00:00:00Z')]: 1,
      });
      const countries = Object.fromEntries(
        (humans.breakdowns.country as { value: string | null; clicks: number }[]).map((e) => [e.value, e.clicks]),
      );
      expect(countries).toEqual({ GB: 1, US: 1, null: 1 });
      const referrers = Object.fromEntries(
        (humans.breakdowns.referrer as { value: string | null; clicks: number }[]).map((e) => [e.value, e.clicks]),
      );
      expect(referrers).toEqual({ 'google.com': 1, 'news.ycombinator.com': 1, null: 1 });
      const browsers = Object.fromEntries(
        (all.breakdowns.browser as { value: string | null; clicks: number }[]).map((e) => [e.value, e.clicks]),
      );
      expect(browsers.Chrome).toBe(1);
      expect(browsers.Googlebot).toBe(1);
      const workspace = await get('/workspace/stats?from=2026-10-01&to=2026-10-31');
      expect(workspace.topLinks).toEqual([expect.objectContaining({ id, clicks: 3 })]);
    });

    if (engine === 'sqlite')
      test('the rollups still equal the raw clicks', () => {
        expectBucketsMatchRawClicks(t);
      });

    test('a total on a link that has its visits changes nothing', async () => {
      await t.deps.history.total(id, 'shlink', 999);
      const link = await get(`/links/${id}`);
      expect(link.clickCount).toBe(3);
      expect(link.imported.history).toBe('visits');
    });
  });

  describe('visits the source recorded as first visits of their day (a Slink export)', () => {
    let id: string;
    beforeAll(async () => {
      id = await newLink('first-visits');
      const visits = [
        visit({ at: at('2026-10-05T10:00:00Z'), userAgent: UA.chromeWin, firstVisit: true }),
        visit({ at: at('2026-10-05T11:00:00Z'), userAgent: UA.chromeWin }),
        visit({ at: at('2026-10-06T09:00:00Z'), userAgent: UA.safariIphone, firstVisit: true }),
        visit({ at: at('2026-10-06T10:00:00Z'), userAgent: UA.firefoxLinux, firstVisit: false }),
        // A bot is never a unique, whatever the source says.
        visit({ at: at('2026-10-06T11:00:00Z'), userAgent: UA.chromeWin, bot: true, firstVisit: true }),
      ];
      expect(await t.deps.history.visits(id, 'slink', visits)).toBe(5);
      await t.deps.history.flush?.();
    });

    test('count in uniqueCount and the uniques of their day, as live first visits do', async () => {
      const link = await get(`/links/${id}`);
      expect({ clickCount: link.clickCount, uniqueCount: link.uniqueCount, botCount: link.botCount }).toEqual({
        clickCount: 4,
        uniqueCount: 2,
        botCount: 1,
      });
      const stats = await get(`/links/${id}/stats?from=2026-10-01&to=2026-10-31&bots=1`);
      expect(stats.totals).toMatchObject({ clicks: 5, uniques: 2, bots: 1 });
      const days = (stats.series as { t: number; clicks: number; uniques: number }[])
        .filter((p) => p.clicks > 0)
        .map((p) => [p.t, p.clicks, p.uniques]);
      expect(days).toEqual([
        [at('2026-10-05T00:00:00Z'), 2, 1],
        [at('2026-10-06T00:00:00Z'), 3, 1],
      ]);
      if (engine === 'sqlite') expectBucketsMatchRawClicks(t);
    });
  });

  describe('daily counts', () => {
    let id: string;
    beforeAll(async () => {
      id = await newLink('daily');
      const added = await t.deps.history.days(id, 'bitly', [
        { day: '2026-10-10', clicks: 7 },
        { day: '2026-10-12', clicks: 3 },
        { day: '2026-10-13', clicks: 0 },
        { day: '2026-02-31', clicks: 5 },
        { day: 'yesterday', clicks: 5 },
      ]);
      expect(added).toBe(10);
      await t.deps.history.flush?.();
    });

    test('count in clickCount, the series and the totals, with no uniques', async () => {
      const link = await get(`/links/${id}`);
      expect({ clickCount: link.clickCount, uniqueCount: link.uniqueCount, botCount: link.botCount }).toEqual({
        clickCount: 10,
        uniqueCount: 0,
        botCount: 0,
      });
      expect(link.imported).toEqual({ source: 'bitly', at: T0, history: 'daily', clicks: 10 });
      const stats = await get(`/links/${id}/stats?from=2026-10-01&to=2026-10-31&bots=1`);
      expect(stats.totals).toMatchObject({ clicks: 10, uniques: 0, bots: 0 });
      const days = Object.fromEntries(
        (stats.series as { t: number; clicks: number }[]).filter((p) => p.clicks > 0).map((p) => [p.t, p.clicks]),
      );
      expect(days).toEqual({ [at('2026-10-10T00:00:00Z')]: 7, [at('2026-10-12T00:00:00Z')]: 3 });
      // An hourly window shows the day's count at its first hour: all the source says of when.
      const hours = await get(`/links/${id}/stats?from=2026-10-10&to=2026-10-10`);
      expect(hours.interval).toBe('hour');
      expect((hours.series as { t: number; clicks: number }[]).filter((p) => p.clicks > 0)).toEqual([
        expect.objectContaining({ t: at('2026-10-10T00:00:00Z'), clicks: 7 }),
      ]);
    });

    test('add no rows to the clicks list', async () => {
      const page = await get(`/links/${id}/clicks?from=2026-10-01&to=2026-10-31&bots=1`);
      expect(page.items).toEqual([]);
    });

    test('a day already rolled up gets the next import of it added (a re-run gives only newer days)', async () => {
      expect(await t.deps.history.days(id, 'bitly', [{ day: '2026-10-14', clicks: 2 }])).toBe(2);
      await t.deps.history.flush?.();
      const link = await get(`/links/${id}`);
      expect(link.clickCount).toBe(12);
      expect(link.imported.clicks).toBe(12);
    });
  });

  describe('totals', () => {
    test('set the starting clickCount once, however often given', async () => {
      const id = await newLink('totalled');
      await t.deps.history.total(id, 'kutt', 42);
      await t.deps.history.total(id, 'kutt', 42);
      const link = await get(`/links/${id}`);
      expect({ clickCount: link.clickCount, uniqueCount: link.uniqueCount, imported: link.imported }).toEqual({
        clickCount: 42,
        uniqueCount: 0,
        imported: { source: 'kutt', at: T0, history: 'total', clicks: 42 },
      });
      const page = await get(`/links/${id}/clicks?range=all&bots=1`);
      expect(page.items).toEqual([]);
    });

    test('a link made with no history says so; a link no import made says nothing', async () => {
      const id = await newLink('bare-import');
      await t.deps.history.none?.(id, 'csv');
      expect((await get(`/links/${id}`)).imported).toEqual({ source: 'csv', at: T0, history: 'none', clicks: 0 });
      const own = await newLink('own');
      expect((await get(`/links/${own}`)).imported).toBeNull();
      const list = await get('/links?limit=100');
      const byId = new Map((list.items as { id: string; imported: unknown }[]).map((l) => [l.id, l.imported]));
      expect(byId.get(own)).toBeNull();
      expect(byId.get(id)).toEqual({ source: 'csv', at: T0, history: 'none', clicks: 0 });
    });

    test('a click limit counts the imported clicks', async () => {
      const made = await apiExpecting(t, key, 'POST', '/links', {
        destination: 'https://example.com/limited',
        slug: 'limited',
        clickLimit: 3,
      });
      const redirect = async () =>
        (
          await t.app.handle(
            new Request('https://sl.test/limited', { headers: { 'user-agent': UA.chromeWin }, redirect: 'manual' }),
          )
        ).status;
      expect(await redirect()).toBe(302);
      const human = visit({ at: at('2026-10-05T10:15:00Z'), userAgent: UA.chromeWin });
      expect(await t.deps.history.visits(made.id, 'shlink', [human, human])).toBe(2);
      await t.deps.history.flush?.();
      expect(await redirect()).toBe(410);
    });

    test('history for a link that is gone is not stored', async () => {
      const id = await newLink('gone');
      await apiExpecting(t, key, 'DELETE', `/links/${id}`);
      expect(await t.deps.history.visits(id, 'shlink', VISITS)).toBe(0);
      expect(await t.deps.history.days(id, 'bitly', [{ day: '2026-10-10', clicks: 1 }])).toBe(0);
      await t.deps.history.flush?.();
    });
  });
});
