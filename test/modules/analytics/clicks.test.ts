/**
 * Raw clicks of a link: the paged list (GET /links/{id}/clicks) and the CSV export
 * (GET /links/{id}/export.csv), with clicks made through the real redirect and flush.
 * The CSV is read with a real RFC 4180 parser (csv-parse), never split on commas.
 */

import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { parse } from 'csv-parse/sync';
import { csvCell, csvLine } from '../../../src/modules/analytics/csv';
import { EXPORT_PAGE } from '../../../src/modules/analytics/export-cursor';
import { type ApiResult, api, disposeTestApp, makeKey, T0 } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { deleteStoredClicks, storedClicks } from '../../helpers/stored-clicks';
import {
  type ClickOptions,
  type Ctx,
  clickRequest,
  createLink,
  createVariant,
  DAY,
  flushOk,
  HOUR,
  prng,
  setup,
  UA,
} from '../clicks/support';

forEachEngine((engine) => {
  /** The click record of docs/behaviour.md ("Raw clicks"), in its order. */
  const FIELDS = [
    'id',
    'linkId',
    'slug',
    'timestamp',
    'variantCode',
    'variantKnown',
    'destination',
    'params',
    'country',
    'city',
    'device',
    'os',
    'browser',
    'referrer',
    'trafficType',
    'language',
    'bot',
    'rule',
    'domain',
  ];
  const HEADER_LINE = `${FIELDS.join(',')}\r\n`;

  // Addresses the bundled geo database places (see test/modules/clicks/enrich.test.ts).
  const LONDON = '81.2.69.160';
  const FRANKFURT = '2a00:1450:4001:80b::200e';

  const MIN = 60_000;
  const TODAY = Date.UTC(2026, 10, 21);

  interface Click {
    id: number;
    linkId: string;
    slug: string;
    timestamp: number;
    variantCode: string | null;
    variantKnown: boolean;
    destination: string;
    params: Record<string, string>;
    country: string | null;
    city: string | null;
    device: string | null;
    os: string | null;
    browser: string | null;
    referrer: string | null;
    trafficType: string | null;
    language: string | null;
    bot: boolean;
    rule: number | null;
    domain: string;
  }

  interface Page {
    items: Click[];
    cursor: string | null;
    retainedFrom: number | null;
  }

  type Query = Record<string, string | number | undefined>;

  function qs(query: Query): string {
    const parts = Object.entries(query)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`);
    return parts.length ? `?${parts.join('&')}` : '';
  }

  /** One click through the real redirect at `at`; returns the Location it was sent to. */
  async function hit(c: Ctx, path: string, at: number, o: ClickOptions = {}): Promise<string> {
    c.t.clock.set(at);
    const res = await c.t.app.handle(clickRequest(path, o));
    await res.arrayBuffer();
    expect(res.status).toBe(302);
    return res.headers.get('location')!;
  }

  function listRaw(c: Ctx, id: string, query: Query = {}, key: string | null = c.key): Promise<ApiResult<Page>> {
    return api<Page>(c.t, 'GET', `/links/${id}/clicks${qs(query)}`, { key });
  }

  async function page(c: Ctx, id: string, query: Query = {}): Promise<Page> {
    const res = await listRaw(c, id, query);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['items', 'cursor', 'retainedFrom']);
    return res.body;
  }

  /** Every page of the list, following the cursor to the end. */
  async function walk(c: Ctx, id: string, query: Query = {}): Promise<{ pages: number[]; items: Click[] }> {
    const pages: number[] = [];
    const items: Click[] = [];
    let cursor = query.cursor === undefined ? undefined : String(query.cursor);
    for (let guard = 0; guard < 10_000; guard++) {
      const p = await page(c, id, { ...query, cursor });
      pages.push(p.items.length);
      items.push(...p.items);
      if (p.cursor === null) return { pages, items };
      expect(p.items.length).toBeGreaterThan(0);
      cursor = p.cursor;
    }
    throw new Error('the cursor never ended');
  }

  /** The link's clicks as stored, sorted here (not by the store): timestamp desc, then id desc. */
  async function expectedOrder(
    c: Ctx,
    linkId: string,
    filter: (r: { timestamp: number; bot: number }) => boolean = (r) => r.bot === 0,
  ): Promise<number[]> {
    return (await storedClicks(c.t, linkId))
      .filter(filter)
      .sort((a, b) => b.timestamp - a.timestamp || b.id - a.id)
      .map((r) => r.id);
  }

  const ids = (items: { id: number }[]) => items.map((i) => i.id);

  function expectError(res: ApiResult, status: number, code: string, field: string | null): void {
    expect({ status: res.status, code: res.body?.error?.code, field: res.body?.error?.field }).toEqual({
      status,
      code,
      field,
    });
  }

  // --- CSV ---------------------------------------------------------------------------------

  interface Csv {
    res: ApiResult;
    /** Records after the header row, as cell texts. */
    records: string[][];
    header: string[];
  }

  async function exportCsv(c: Ctx, id: string, query: Query = {}, key: string | null = c.key): Promise<Csv> {
    const res = await api(c.t, 'GET', `/links/${id}/export.csv${qs(query)}`, { key });
    if (res.status !== 200) return { res, records: [], header: [] };
    const all = parseCsv(res.text);
    return { res, header: all[0]!, records: all.slice(1) };
  }

  /** RFC 4180 as csv-parse reads it, strict: CRLF records, quotes only around whole cells, equal column counts. */
  function parseCsv(text: string): string[][] {
    return parse(text, {
      record_delimiter: '\r\n',
      relax_quotes: false,
      relax_column_count: false,
      skip_empty_lines: false,
    }) as string[][];
  }

  const FORMULA = /^[=+\-@\t\r]/;

  /** What a text cell must read as (after parsing): the formula guard applied, nothing else. */
  const guarded = (s: string) => (FORMULA.test(s) ? `'${s}` : s);

  /** The CSV cells a clicks-list item must become, computed here independently of src. */
  function expectedCells(c: Click): string[] {
    const text = (v: string | null) => (v === null ? '' : guarded(v));
    return [
      String(c.id),
      c.linkId,
      guarded(c.slug),
      String(c.timestamp),
      text(c.variantCode),
      String(c.variantKnown),
      guarded(c.destination),
      guarded(JSON.stringify(c.params)),
      text(c.country),
      text(c.city),
      text(c.device),
      text(c.os),
      text(c.browser),
      text(c.referrer),
      text(c.trafficType),
      text(c.language),
      String(c.bot),
      c.rule === null ? '' : String(c.rule),
      guarded(c.domain),
    ];
  }

  /** A CSV record read back into a typed click (the guard's quote removed, empty cells as null). */
  function fromCsv(cells: string[]): Click {
    expect(cells).toHaveLength(FIELDS.length);
    const text = (i: number) => (cells[i] === '' ? null : cells[i]!.replace(/^'(?=[=+\-@\t\r])/, ''));
    const int = (i: number) => {
      expect(cells[i]).toMatch(/^\d+$/);
      return Number(cells[i]);
    };
    const bool = (i: number) => {
      expect(['true', 'false']).toContain(cells[i]!);
      return cells[i] === 'true';
    };
    return {
      id: int(0),
      linkId: text(1)!,
      slug: text(2)!,
      timestamp: int(3),
      variantCode: text(4),
      variantKnown: bool(5),
      destination: text(6)!,
      params: JSON.parse(cells[7]!),
      country: text(8),
      city: text(9),
      device: text(10),
      os: text(11),
      browser: text(12),
      referrer: text(13),
      trafficType: text(14),
      language: text(15),
      bot: bool(16),
      rule: cells[17] === '' ? null : int(17),
      domain: text(18)!,
    };
  }

  /** CRLF after every record, and no bare CR or LF anywhere (no cell of ours can hold a line break). */
  function expectCrlf(text: string, records: number): void {
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.split('\r\n')).toHaveLength(records + 2);
    expect(/[\r\n]/.test(text.replaceAll('\r\n', ''))).toBe(false);
  }

  /** The export equals the list for the same window and bots: same rows, same order, same values. */
  async function expectExportMatchesList(c: Ctx, id: string, query: Query = {}): Promise<Click[]> {
    const { items } = await walk(c, id, { ...query, limit: 200 });
    const csv = await exportCsv(c, id, query);
    expect(csv.res.status).toBe(200);
    expect(csv.header).toEqual(FIELDS);
    expectCrlf(csv.res.text, items.length);
    expect(csv.records).toEqual(items.map(expectedCells));
    expect(csv.records.map(fromCsv)).toEqual(items);
    return items;
  }

  // =========================================================================================

  describe('the click record', () => {
    let c: Ctx;
    let link: any;
    const loc: Record<string, string> = {};
    let byTime: Map<number, Click>;

    beforeAll(async () => {
      c = await setup({}, engine);
      link = await createLink(c, { slug: 'rec', params: { utm_source: 'news', ref: 'a b' } });
      await createVariant(c, link.id, { code: 'b', params: { utm_campaign: 'spring' } });
      const gone = await createVariant(c, link.id, { code: 'gone' });
      const ren = await createVariant(c, link.id, { code: 'ren' });

      loc.human = await hit(c, '/rec/b', T0 - 5000, {
        ip: LONDON,
        ua: UA.chromeWin,
        referer: 'https://www.google.co.uk/search?q=x',
        lang: 'fr-FR,fr;q=0.9',
      });
      loc.bot = await hit(c, '/rec', T0 - 4000, { ip: FRANKFURT, ua: UA.googlebot });
      loc.unknown = await hit(c, '/rec/zz', T0 - 3000, {
        ip: FRANKFURT,
        ua: UA.safariIphone,
        referer: 'https://l.facebook.com/',
        lang: 'de',
      });
      loc.gone = await hit(c, '/rec/gone', T0 - 2000, { ip: '10.0.0.1', ua: UA.firefoxLinux });
      loc.ren = await hit(c, '/rec/ren', T0 - 1000, { ua: UA.edgeMac, referer: 'https://example.org/page' });
      await flushOk(c.t);

      // After the clicks: the variant is deleted (and a new one takes its code), another is
      // renamed, and the link gets a new slug.
      expect((await api(c.t, 'DELETE', `/links/${link.id}/variants/${gone.id}`, { key: c.key })).status).toBe(200);
      await createVariant(c, link.id, { code: 'gone' });
      expect(
        (await api(c.t, 'PATCH', `/links/${link.id}/variants/${ren.id}`, { key: c.key, body: { code: 'ren2' } }))
          .status,
      ).toBe(200);
      expect((await api(c.t, 'PATCH', `/links/${link.id}`, { key: c.key, body: { slug: 'rec-now' } })).status).toBe(
        200,
      );
      c.t.clock.set(T0);
      const all = await page(c, link.id, { bots: 1 });
      byTime = new Map(all.items.map((i) => [i.timestamp, i]));
    });
    afterAll(() => disposeTestApp(c.t));

    test('fields in the documented order, for every item, with and without bots', async () => {
      for (const bots of [0, 1]) {
        const { items } = await page(c, link.id, { bots });
        expect(items).toHaveLength(bots ? 5 : 4);
        for (const item of items) expect(Object.keys(item)).toEqual(FIELDS);
      }
    });

    test('a human click through a known variant: every value', async () => {
      const dbIds = (await storedClicks(c.t, link.id)).map((r) => r.id);
      expect(loc.human).toBe('https://example.com/landing?utm_source=news&ref=a%20b&utm_campaign=spring');
      expect(byTime.get(T0 - 5000)).toEqual({
        id: dbIds[0]!,
        linkId: link.id,
        slug: 'rec-now',
        timestamp: T0 - 5000,
        variantCode: 'b',
        variantKnown: true,
        destination: loc.human!,
        params: { utm_source: 'news', ref: 'a b', utm_campaign: 'spring' },
        country: 'GB',
        city: 'London',
        device: 'desktop',
        os: 'Windows',
        browser: 'Chrome',
        referrer: 'google.co.uk',
        trafficType: 'search',
        language: 'fr-FR',
        bot: false,
        rule: null,
        domain: 'sl.test',
      });
      expect(Number.isSafeInteger(byTime.get(T0 - 5000)!.id)).toBe(true);
    });

    test('a bot hit: listed only with bots=1, with bot true', async () => {
      const bot = byTime.get(T0 - 4000);
      expect(bot).toEqual({
        id: expect.any(Number),
        linkId: link.id,
        slug: 'rec-now',
        timestamp: T0 - 4000,
        variantCode: null,
        variantKnown: false,
        destination: loc.bot!,
        params: { utm_source: 'news', ref: 'a b' },
        country: 'DE',
        city: 'Frankfurt am Main',
        device: null,
        os: null,
        browser: 'Googlebot',
        referrer: null,
        trafficType: 'direct',
        language: null,
        bot: true,
        rule: null,
        domain: 'sl.test',
      });
      expect(loc.bot).toBe('https://example.com/landing?utm_source=news&ref=a%20b');
      expect(ids((await page(c, link.id)).items)).not.toContain(bot!.id);
      expect(ids((await page(c, link.id, { bots: 0 })).items)).not.toContain(bot!.id);
    });

    test('an unknown code: variantCode kept, variantKnown false, sent to the link destination', async () => {
      expect(byTime.get(T0 - 3000)).toMatchObject({
        variantCode: 'zz',
        variantKnown: false,
        destination: loc.unknown!,
        params: { utm_source: 'news', ref: 'a b' },
        country: 'DE',
        device: 'mobile',
        os: 'iOS',
        browser: 'Mobile Safari',
        referrer: 'l.facebook.com',
        trafficType: 'social',
        language: 'de',
        bot: false,
        rule: null,
      });
      expect(loc.unknown).toBe(loc.bot!);
    });

    test('a deleted variant is not known any more, even with a new variant of the same code', async () => {
      expect(byTime.get(T0 - 2000)).toMatchObject({
        variantCode: 'gone',
        variantKnown: false,
        country: null,
        city: null,
        os: 'Linux',
        browser: 'Firefox',
      });
    });

    test('a renamed variant is still known; variantCode is the code that was in the URL', async () => {
      expect(byTime.get(T0 - 1000)).toMatchObject({
        variantCode: 'ren',
        variantKnown: true,
        referrer: 'example.org',
        trafficType: 'referral',
        browser: 'Edge',
      });
    });

    test('every item shows the current slug and the link id', async () => {
      const { items } = await page(c, link.id, { bots: 1 });
      expect(new Set(items.map((i) => `${i.linkId} ${i.slug}`))).toEqual(new Set([`${link.id} rec-now`]));
    });

    test('newest first', async () => {
      const { items } = await page(c, link.id, { bots: 1 });
      expect(items.map((i) => i.timestamp)).toEqual([T0 - 1000, T0 - 2000, T0 - 3000, T0 - 4000, T0 - 5000]);
      expect(ids(items)).toEqual(await expectedOrder(c, link.id, () => true));
    });

    test('equal timestamps are ordered by id, highest first', async () => {
      const ties = await createLink(c, { slug: 'ties' });
      // Recorded out of time order, so id order and time order disagree.
      const times = [T0 - 100, T0 - 100, T0 - 300, T0 - 100, T0 - 300, T0 - 50, T0 - 300];
      for (const at of times) await hit(c, '/ties', at);
      await flushOk(c.t);
      c.t.clock.set(T0);
      const dbIds = await storedClicks(c.t, ties.id);
      expect(dbIds.map((r) => r.timestamp)).toEqual(times);
      const id = dbIds.map((r) => r.id) as [number, number, number, number, number, number, number];
      const { items } = await page(c, ties.id);
      expect(ids(items)).toEqual([id[5], id[3], id[1], id[0], id[6], id[4], id[2]]);
      expect(items.map((i) => i.timestamp)).toEqual([
        T0 - 50,
        T0 - 100,
        T0 - 100,
        T0 - 100,
        T0 - 300,
        T0 - 300,
        T0 - 300,
      ]);
    });

    test('a link without clicks: no items, cursor null', async () => {
      const empty = await createLink(c, { slug: 'no-clicks' });
      expect(await page(c, empty.id)).toEqual({ items: [], cursor: null, retainedFrom: null });
      expect(await page(c, empty.id, { range: 'all', bots: 1 })).toEqual({
        items: [],
        cursor: null,
        retainedFrom: null,
      });
    });
  });

  // =========================================================================================

  describe('paging', () => {
    let c: Ctx;
    let many: any;
    let manyHumans: number[];
    let manyAll: number[];

    beforeAll(async () => {
      c = await setup({}, engine);
      many = await createLink(c, { slug: 'many' });
      const rand = prng(20261121);
      // 250 clicks on 60 distinct milliseconds in random order, every tenth one a bot.
      for (let i = 0; i < 250; i++) {
        const at = T0 - 1 - Math.floor(rand() * 60) * 1000;
        await hit(c, '/many', at, { ua: i % 10 === 9 ? UA.googlebot : UA.chromeWin });
      }
      await flushOk(c.t);
      c.t.clock.set(T0);
      manyHumans = await expectedOrder(c, many.id);
      manyAll = await expectedOrder(c, many.id, () => true);
      expect([manyHumans.length, manyAll.length]).toEqual([225, 250]);
    });
    afterAll(() => disposeTestApp(c.t));

    test('7 clicks with limit 3: pages of 3, 3 and 1, then cursor null', async () => {
      const seven = await createLink(c, { slug: 'seven' });
      for (let i = 0; i < 7; i++) await hit(c, '/seven', T0 - 7000 + i * 1000);
      await flushOk(c.t);
      c.t.clock.set(T0);
      const p1 = await page(c, seven.id, { limit: 3 });
      const p2 = await page(c, seven.id, { limit: 3, cursor: p1.cursor! });
      const p3 = await page(c, seven.id, { limit: 3, cursor: p2.cursor! });
      expect([p1.items.length, p2.items.length, p3.items.length]).toEqual([3, 3, 1]);
      expect(typeof p1.cursor).toBe('string');
      expect(typeof p2.cursor).toBe('string');
      expect(p3.cursor).toBeNull();
      expect(ids([...p1.items, ...p2.items, ...p3.items])).toEqual(await expectedOrder(c, seven.id));
      expect(p3.items[0]!.timestamp).toBe(T0 - 7000);
    });

    test('an exact multiple of the page size ends with cursor null, not an empty page', async () => {
      const six = await createLink(c, { slug: 'six' });
      for (let i = 0; i < 6; i++) await hit(c, '/six', T0 - 100 + i);
      await flushOk(c.t);
      c.t.clock.set(T0);
      const { pages, items } = await walk(c, six.id, { limit: 3 });
      expect(pages).toEqual([3, 3]);
      expect(ids(items)).toEqual(await expectedOrder(c, six.id));
    });

    test('default limit is 50', async () => {
      const first = await page(c, many.id);
      expect(first.items).toHaveLength(50);
      expect(ids(first.items)).toEqual(manyHumans.slice(0, 50));
      const { pages, items } = await walk(c, many.id);
      expect(pages).toEqual([50, 50, 50, 50, 25]);
      expect(ids(items)).toEqual(manyHumans);
    });

    test('limit 200 (the largest) and limit 7 walk every click exactly once, in order', async () => {
      const big = await walk(c, many.id, { limit: 200 });
      expect(big.pages).toEqual([200, 25]);
      expect(ids(big.items)).toEqual(manyHumans);

      const small = await walk(c, many.id, { limit: 7 });
      expect(small.pages).toEqual([...Array(32).fill(7), 1]);
      expect(ids(small.items)).toEqual(manyHumans);
      expect(new Set(ids(small.items)).size).toBe(225);

      const withBots = await walk(c, many.id, { limit: 7, bots: 1 });
      expect(withBots.pages).toEqual([...Array(35).fill(7), 5]);
      expect(ids(withBots.items)).toEqual(manyAll);

      const one = await walk(c, many.id, { limit: 1, bots: 1 });
      expect(one.pages).toEqual(Array(250).fill(1));
      expect(ids(one.items)).toEqual(manyAll);
    });

    test('clicks recorded and flushed between pages: no repeat, no skip, none in later pages', async () => {
      const live = await createLink(c, { slug: 'live' });
      for (let i = 0; i < 30; i++) await hit(c, '/live', T0 - 10_000 + Math.floor(i / 2) * 100);
      await flushOk(c.t);
      const before = await expectedOrder(c, live.id);
      c.t.clock.set(T0);

      const seen: Click[] = [];
      let cursor: string | null = null;
      let round = 0;
      do {
        const p: Page = await page(c, live.id, { limit: 4, cursor: cursor ?? undefined });
        seen.push(...p.items);
        cursor = p.cursor;
        if (cursor !== null) {
          // New clicks: one now, one in the very millisecond of this page's last item (a higher
          // id, so above the cursor), one in the millisecond of the page's first item.
          round++;
          await hit(c, '/live', T0 + round);
          await hit(c, '/live', p.items[p.items.length - 1]!.timestamp);
          await hit(c, '/live', p.items[0]!.timestamp);
          await flushOk(c.t);
          c.t.clock.set(T0 + 1000);
        }
      } while (cursor !== null);

      expect(ids(seen)).toEqual(before);
      // They were written, and a fresh walk sees them.
      const after = await expectedOrder(c, live.id);
      expect(after.length).toBe(30 + round * 3);
      expect(ids((await walk(c, live.id, { limit: 200 })).items)).toEqual(after);
      c.t.clock.set(T0);
    });

    test('a cursor with a window never leaves the window', async () => {
      const stored = new Map((await storedClicks(c.t, many.id)).map((r) => [r.id, r.timestamp]));
      const all = manyHumans.map((id) => stored.get(id)!);
      const from = T0 - 1 - 40_000;
      const to = T0 - 1 - 20_000;
      const inWindow = manyHumans.filter((_, i) => all[i]! >= from && all[i]! <= to);
      expect(inWindow.length).toBeGreaterThan(20);
      expect(inWindow.length).toBeLessThan(manyHumans.length - 20);

      const walked = await walk(c, many.id, { from, to, limit: 3 });
      expect(ids(walked.items)).toEqual(inWindow);
      for (const item of walked.items) {
        expect(item.timestamp).toBeGreaterThanOrEqual(from);
        expect(item.timestamp).toBeLessThanOrEqual(to);
      }

      // A cursor from a walk without the window, pointing above the window's end: the window
      // still starts at `to`; pointing inside: it carries on from there and stops at `from`.
      const top = await page(c, many.id, { limit: 2 });
      const fromTop = await walk(c, many.id, { from, to, limit: 5, cursor: top.cursor! });
      expect(ids(fromTop.items)).toEqual(inWindow);

      const firstIn = await page(c, many.id, { from, to, limit: 4 });
      const unwindowedRest = await walk(c, many.id, { limit: 200, cursor: firstIn.cursor! });
      expect(ids(unwindowedRest.items)).toEqual(manyHumans.slice(manyHumans.indexOf(firstIn.items[3]!.id) + 1));
      const windowedRest = await walk(c, many.id, { from, to, limit: 200, cursor: firstIn.cursor! });
      expect(ids(windowedRest.items)).toEqual(inWindow.slice(4));

      // A cursor from below the window's start: nothing.
      const deep = await walk(c, many.id, { limit: 200, to: from - 1 });
      expect(deep.items.length).toBeGreaterThan(0);
      const last = await page(c, many.id, { limit: deep.items.length - 1, to: from - 1 });
      expect(await page(c, many.id, { from, to, cursor: last.cursor! })).toEqual({
        items: [],
        cursor: null,
        retainedFrom: null,
      });
    });
  });

  // =========================================================================================

  describe('window and bots on the list', () => {
    let c: Ctx;
    let link: any;
    const NOW = T0 + 30 * MIN; // 12:30 UTC
    const stamps: number[] = [];

    const edges = {
      today: TODAY,
      h24: T0 - 23 * HOUR,
      d7: T0 - 167 * HOUR,
      d30: TODAY - 29 * DAY,
      d90: TODAY - 89 * DAY,
    };

    beforeAll(async () => {
      c = await setup({}, engine);
      link = await createLink(c, { slug: 'win' });
      const times = new Set<number>([
        NOW,
        NOW + 1,
        T0 - 7777,
        T0 - 7776,
        Date.UTC(2026, 10, 20),
        Date.UTC(2026, 10, 20) - 1,
        TODAY - 1,
        TODAY - 400 * DAY,
      ]);
      for (const edge of Object.values(edges)) for (const d of [-1, 0, 1]) times.add(edge + d);
      for (const at of [...times].sort((a, b) => a - b)) {
        await hit(c, '/win', at, { ua: UA.chromeWin });
        stamps.push(at);
      }
      await flushOk(c.t);
      c.t.clock.set(NOW);
    });
    afterAll(() => disposeTestApp(c.t));

    async function times(query: Query): Promise<number[]> {
      return (await walk(c, link.id, { ...query, limit: 200 })).items.map((i) => i.timestamp);
    }
    const between = (from: number, to: number) => stamps.filter((s) => s >= from && s <= to).sort((a, b) => b - a);

    test('named ranges end now and start on the exact instant (not widened to the hour)', async () => {
      expect(await times({})).toEqual(between(edges.d30, NOW));
      expect(await times({ range: '30d' })).toEqual(between(edges.d30, NOW));
      expect(await times({ range: 'today' })).toEqual(between(edges.today, NOW));
      expect(await times({ range: '24h' })).toEqual(between(edges.h24, NOW));
      expect(await times({ range: '7d' })).toEqual(between(edges.d7, NOW));
      expect(await times({ range: '90d' })).toEqual(between(edges.d90, NOW));
      expect(await times({ range: 'all' })).toEqual(between(TODAY - 400 * DAY, NOW));
      // Spot checks of the edges themselves.
      const h24 = await times({ range: '24h' });
      expect(h24).toContain(edges.h24);
      expect(h24).not.toContain(edges.h24 - 1);
      expect(h24).toContain(NOW);
      expect(h24).not.toContain(NOW + 1);
      const d30 = await times({});
      expect(d30).toContain(edges.d30);
      expect(d30).not.toContain(edges.d30 - 1);
    });

    test('`to` in epoch ms is inclusive: a click at exactly `to` is in, 1 ms later is out', async () => {
      const got = await times({ from: T0 - 8000, to: T0 - 7777 });
      expect(got).toEqual([T0 - 7777]);
      expect(await times({ from: T0 - 7777, to: T0 - 7777 })).toEqual([T0 - 7777]);
      expect(await times({ from: T0 - 7776, to: T0 - 7776 })).toEqual([T0 - 7776]);
      expect(await times({ from: T0 - 7778, to: T0 - 7778 })).toEqual([]);
      // An explicit `to` after now includes a click after now.
      expect(await times({ from: NOW, to: NOW + 1 })).toEqual([NOW + 1, NOW]);
    });

    test('dates: from = 00:00 UTC of that day, to = its last millisecond', async () => {
      const day = Date.UTC(2026, 10, 20);
      const got = await times({ from: '2026-11-20', to: '2026-11-20' });
      expect(got).toEqual(between(day, TODAY - 1));
      expect(got).toContain(day);
      expect(got).toContain(TODAY - 1);
      expect(got).not.toContain(day - 1);
      expect(got).not.toContain(TODAY);
      expect(await times({ from: '2026-11-21' })).toEqual(between(TODAY, NOW));
    });

    test('a range counts back from `to` when `to` is given', async () => {
      const to = T0 - 7777;
      expect(await times({ range: '24h', to })).toEqual(between(Math.floor(to / HOUR) * HOUR - 23 * HOUR, to));
      expect(await times({ range: 'today', to: '2026-11-20' })).toEqual(between(Date.UTC(2026, 10, 20), TODAY - 1));
    });

    test('bots=0 (the default) leaves bot hits out; bots=1 includes them', async () => {
      const b = await createLink(c, { slug: 'botty' });
      await hit(c, '/botty', T0 - 6, { ua: UA.chromeWin });
      await hit(c, '/botty', T0 - 5, { ua: UA.googlebot });
      await hit(c, '/botty', T0 - 4, { ua: UA.curl });
      await hit(c, '/botty', T0 - 3, { ua: null });
      await hit(c, '/botty', T0 - 2, { ua: UA.safariIphone, method: 'HEAD' });
      await hit(c, '/botty', T0 - 1, { ua: UA.firefoxLinux });
      await flushOk(c.t);
      c.t.clock.set(NOW);
      const humans = await page(c, b.id);
      expect(humans.items.map((i) => [i.timestamp, i.bot])).toEqual([
        [T0 - 1, false],
        [T0 - 6, false],
      ]);
      expect(await page(c, b.id, { bots: 0 })).toEqual(humans);
      const all = await page(c, b.id, { bots: 1 });
      expect(all.items.map((i) => [i.timestamp, i.bot])).toEqual([
        [T0 - 1, false],
        [T0 - 2, true],
        [T0 - 3, true],
        [T0 - 4, true],
        [T0 - 5, true],
        [T0 - 6, false],
      ]);
      // With a window too.
      expect((await page(c, b.id, { bots: 1, from: T0 - 5, to: T0 - 3 })).items.map((i) => i.timestamp)).toEqual([
        T0 - 3,
        T0 - 4,
        T0 - 5,
      ]);
      expect((await page(c, b.id, { from: T0 - 5, to: T0 - 3 })).items).toEqual([]);
    });
  });

  // =========================================================================================

  describe('errors and access', () => {
    let c: Ctx;
    let link: any;

    beforeAll(async () => {
      c = await setup({}, engine);
      link = await createLink(c, { slug: 'errs' });
      await hit(c, '/errs', T0 - 1);
      await flushOk(c.t);
      c.t.clock.set(T0);
    });
    afterAll(() => disposeTestApp(c.t));

    const b64 = (s: string) => Buffer.from(s).toString('base64url');

    test('a bad limit: 400 field limit', async () => {
      for (const limit of ['0', '201', 'abc', '-1', '1.5', '']) {
        const res = await api(c.t, 'GET', `/links/${link.id}/clicks?limit=${limit}`, { key: c.key });
        expect({ limit, status: res.status, code: res.body?.error?.code, field: res.body?.error?.field }).toEqual({
          limit,
          status: 400,
          code: 'invalid_request',
          field: 'limit',
        });
      }
      for (const limit of [1, 200]) expect((await listRaw(c, link.id, { limit })).status).toBe(200);
    });

    test('a bad cursor: 400 field cursor', async () => {
      for (const cursor of [
        'abc',
        '!!!',
        b64('x.y'),
        b64('1.2.3'),
        b64('-1.5'),
        b64('12345678901234567.1'),
        b64('9999999999999999.1'),
        b64('1.9999999999999999'),
        b64('1.'),
        b64('.1'),
        '',
      ]) {
        const res = await api(c.t, 'GET', `/links/${link.id}/clicks?cursor=${encodeURIComponent(cursor)}`, {
          key: c.key,
        });
        expect({ cursor, status: res.status, code: res.body?.error?.code, field: res.body?.error?.field }).toEqual({
          cursor,
          status: 400,
          code: 'invalid_request',
          field: 'cursor',
        });
      }
    });

    const windowErrors: [Query, string][] = [
      [{ range: 'week' }, 'range'],
      [{ range: '' }, 'range'],
      [{ range: '30D' }, 'range'],
      [{ from: 'yesterday' }, 'from'],
      [{ from: '2026-02-30' }, 'from'],
      [{ from: '2026-11-21T00:00:00Z' }, 'from'],
      [{ from: '-5' }, 'from'],
      [{ to: 'abc' }, 'to'],
      [{ to: '2026-13-01' }, 'to'],
      [{ to: '99999999999999999' }, 'to'],
      [{ from: T0, to: T0 - 1 }, 'from'],
      [{ bots: '2' }, 'bots'],
      [{ bots: 'true' }, 'bots'],
    ];

    test('a bad range, from, to or bots: 400 naming the field, on the list and the export', async () => {
      for (const [query, field] of windowErrors) {
        for (const path of ['clicks', 'export.csv']) {
          const res = await api(c.t, 'GET', `/links/${link.id}/${path}${qs(query)}`, { key: c.key });
          expect({
            path,
            query,
            status: res.status,
            code: res.body?.error?.code,
            field: res.body?.error?.field,
          }).toEqual({
            path,
            query,
            status: 400,
            code: 'invalid_request',
            field,
          });
        }
      }
    });

    test('an unknown link: 404 not_found', async () => {
      expectError(await listRaw(c, 'lnk_doesnotexist'), 404, 'not_found', null);
      const csv = await exportCsv(c, 'lnk_doesnotexist');
      expectError(csv.res, 404, 'not_found', null);
    });

    test('a read-scope key may list and export; no key or a wrong key is 401', async () => {
      const { key: read } = await makeKey(c.t, 'read');
      const list = await listRaw(c, link.id, {}, read);
      expect(list.status).toBe(200);
      expect(list.body.items).toHaveLength(1);
      const csv = await exportCsv(c, link.id, {}, read);
      expect(csv.res.status).toBe(200);
      expect(csv.records).toHaveLength(1);
      for (const key of [null, 'slk_not_a_real_key']) {
        expect((await listRaw(c, link.id, {}, key)).status).toBe(401);
        expect((await exportCsv(c, link.id, {}, key)).res.status).toBe(401);
      }
    });
  });

  // =========================================================================================

  describe('csvCell and csvLine (units)', () => {
    test('quoting, line breaks, the guard, numbers, booleans and null', () => {
      expect(csvLine(['a', 'b,c', 'say "hi"', 'x\r\ny', 'x\ny', null, 0, 12.5, true, false, ''])).toBe(
        'a,"b,c","say ""hi""","x\r\ny","x\ny",,0,12.5,true,false,\r\n',
      );
      for (const s of ['=1+2', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])
        expect(parseCsv(csvLine([s]))[0]).toEqual([`'${s}`]);
      expect(csvCell('=HYPERLINK("http://x")')).toBe(`"'=HYPERLINK(""http://x"")"`);
      expect(csvCell('\rx')).toBe(`"'\rx"`);
      expect(csvCell("'=x")).toBe("'=x");
      // Numbers are never guarded, even negative ones; text that only contains a formula sign is not.
      expect(csvCell(-1)).toBe('-1');
      expect(csvCell('a=b')).toBe('a=b');
      expect(csvCell(' =x')).toBe(' =x');
      const tricky = ['line1\r\nline2', 'a\nb', 'q"q', ',', '"', '🎉👍🏽', '中文', 'שלום مرحبا', '\u2028'];
      expect(parseCsv(csvLine(tricky))).toEqual([tricky]);
    });
  });

  // =========================================================================================

  describe('GET /links/{id}/export.csv', () => {
    let c: Ctx;
    let link: any;
    let dash: any;
    const NASTY = {
      quote: 'he said "hi", then left',
      emoji: '🎉👍🏽 ok 🇫🇷',
      cjk: '中文字符、日本語テキスト',
      rtl: 'שלום עולם مرحبا بالعالم',
      formula: '=HYPERLINK("http://x")',
      'key, "odd"': 'v,"w"',
      sep: 'a\u2028b',
      utm_source: '+1 555',
    };

    beforeAll(async () => {
      c = await setup({}, engine);
      link = await createLink(c, { slug: 'csv', params: NASTY });
      let at = T0 - 60_000;
      for (const referer of [
        'http://=1+2/',
        'http://-cmd/',
        'http://+x/',
        'http://a"b,c/',
        'https://www.example.org/x',
        'http://a=b/',
        null,
      ]) {
        at += 1000;
        await hit(c, '/csv', at, { ip: LONDON, referer, lang: 'ja-JP' });
      }
      at += 1000;
      await hit(c, '/csv', at, { ua: UA.googlebot, referer: 'http://@evil.example/' });
      dash = await createLink(c, { slug: '-dash', params: { k: '=cmd', utm_medium: '@SUM(A1)' } });
      await createVariant(c, dash.id, { code: '-v' });
      await hit(c, '/-dash/-v', T0 - 5000, { ua: UA.chromeWin });
      await hit(c, '/-dash/_x', T0 - 4000, { ua: UA.chromeWin, referer: 'https://news.ycombinator.com/' });
      await flushOk(c.t);
      c.t.clock.set(T0);
    });
    afterAll(() => disposeTestApp(c.t));

    test('headers: text/csv in UTF-8, an attachment named after the slug', async () => {
      const { res } = await exportCsv(c, link.id);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="csv-clicks.csv"');
      const d = await exportCsv(c, dash.id);
      expect(d.res.headers.get('content-disposition')).toBe('attachment; filename="-dash-clicks.csv"');
      // Retention is off: every click is kept, and the export says nothing about it.
      expect(res.headers.get('x-slink-retained-from')).toBeNull();
    });

    test('the slug in the filename is the current one', async () => {
      const l = await createLink(c, { slug: 'before-rename' });
      expect((await api(c.t, 'PATCH', `/links/${l.id}`, { key: c.key, body: { slug: 'after_rename' } })).status).toBe(
        200,
      );
      const { res } = await exportCsv(c, l.id);
      expect(res.headers.get('content-disposition')).toBe('attachment; filename="after_rename-clicks.csv"');
    });

    test('CRLF line ends everywhere, a header row with the fields in order', async () => {
      const { res, header, records } = await exportCsv(c, link.id);
      expect(res.text.startsWith(HEADER_LINE)).toBe(true);
      expect(header).toEqual(FIELDS);
      expect(records).toHaveLength(7);
      expectCrlf(res.text, 7);
      const first = (await page(c, link.id)).items[0]!;
      expect(Object.keys(first)).toEqual(header);
    });

    test('the rows are the list items for the same query (default, bots=1, a window)', async () => {
      const items = await expectExportMatchesList(c, link.id);
      expect(items).toHaveLength(7);
      expect(await expectExportMatchesList(c, link.id, { bots: 1 })).toHaveLength(8);
      expect(await expectExportMatchesList(c, link.id, { from: T0 - 58_000, to: T0 - 56_000 })).toHaveLength(3);
      expect(await expectExportMatchesList(c, link.id, { from: T0 - 58_000, to: T0 - 56_000, bots: 1 })).toHaveLength(
        3,
      );
      expect(await expectExportMatchesList(c, link.id, { range: '24h', bots: 1 })).toHaveLength(8);
      expect(await expectExportMatchesList(c, dash.id)).toHaveLength(2);
    });

    test('quotes, commas and Unicode (emoji, CJK, RTL, U+2028) round-trip through a real parser', async () => {
      const { records } = await exportCsv(c, link.id);
      for (const r of records) {
        const back = fromCsv(r);
        expect(back.params).toEqual(NASTY);
        expect(Object.keys(back.params)).toEqual(Object.keys(NASTY));
        expect(back.language).toBe('ja-JP');
      }
      // The params cell, as raw text: the JSON with its quotes doubled inside one quoted cell.
      const { res } = await exportCsv(c, link.id);
      expect(res.text).toContain(`"${JSON.stringify(NASTY).replaceAll('"', '""')}"`);
    });

    test('a referrer host with a quote and a comma is quoted, quotes doubled, not guarded', async () => {
      const { res, records } = await exportCsv(c, link.id);
      const row = records.find((r) => r[13] === 'a"b,c')!;
      expect(row).toBeDefined();
      const item = (await page(c, link.id)).items.find((i) => i.referrer === 'a"b,c')!;
      const dest =
        item.destination.includes(',') || item.destination.includes('"')
          ? `"${item.destination.replaceAll('"', '""')}"`
          : item.destination;
      // The whole record, byte for byte.
      expect(res.text).toContain(
        `\r\n${item.id},${link.id},csv,${item.timestamp},,false,${dest},"${JSON.stringify(NASTY).replaceAll('"', '""')}",GB,London,desktop,Windows,Chrome,"a""b,c",referral,ja-JP,false,,sl.test\r\n`,
      );
    });

    test('the formula guard: = - + @ at the start of a text cell get a leading quote', async () => {
      const { records } = await exportCsv(c, link.id, { bots: 1 });
      const referrers = records.map((r) => r[13]);
      expect(referrers).toEqual(["'=1+2", "'-cmd", "'+x", 'a"b,c', 'example.org', 'a=b', '', 'evil.example'].reverse());
    });

    test('slug and variant code starting with "-" are guarded; a param "=cmd" inside the JSON cell is not', async () => {
      const { res, records } = await exportCsv(c, dash.id);
      expect(records).toHaveLength(2);
      const [unknown, known] = records;
      expect(known![2]).toBe("'-dash");
      expect(known![4]).toBe("'-v");
      expect(known![5]).toBe('true');
      expect(unknown![4]).toBe('_x');
      expect(unknown![5]).toBe('false');
      // The params cell: "=cmd" is not at the cell's start, so no prefix; quoted for its quotes.
      expect(known![7]).toBe('{"k":"=cmd","utm_medium":"@SUM(A1)"}');
      expect(res.text).toContain(`,"{""k"":""=cmd"",""utm_medium"":""@SUM(A1)""}",`);
      expect(res.text).not.toContain(`"'{`);
      // utm_medium "@SUM(A1)" is no medium the traffic rules know: the referrer decides (docs/behaviour.md).
      expect(known![14]).toBe('direct');
      expect(unknown![14]).toBe('social');
      // Cells that must not be guarded: the destination, the browser, plain text.
      expect(known![6]).toMatch(/^https:\/\/example\.com\/landing\?k=%3Dcmd&utm_medium=%40SUM\(A1\)$/);
      expect(known![12]).toBe('Chrome');
      expect(unknown![13]).toBe('news.ycombinator.com');
    });

    test('params values with a line break are refused at the API (so no cell can hold one)', async () => {
      for (const value of ['a\nb', 'a\r\nb', '\tx']) {
        const res = await api(c.t, 'POST', '/links', {
          key: c.key,
          body: { destination: 'https://example.com/', params: { k: value } },
        });
        expectError(res, 400, 'invalid_request', 'params');
      }
    });

    test('an empty export is the header row alone', async () => {
      const empty = await createLink(c, { slug: 'empty-csv' });
      const { res, records } = await exportCsv(c, empty.id);
      expect(res.status).toBe(200);
      expect(res.text).toBe(HEADER_LINE);
      expect(records).toEqual([]);
      // A window or bots setting with nothing in it: the same.
      expect((await exportCsv(c, link.id, { from: '2020-01-01', to: '2020-01-02' })).res.text).toBe(HEADER_LINE);
      // The window holds one bot hit only.
      expect((await exportCsv(c, link.id, { from: T0 - 52_000, to: T0 - 52_000 })).res.text).toBe(HEADER_LINE);
      expect((await exportCsv(c, link.id, { from: T0 - 52_000, to: T0 - 52_000, bots: 1 })).records).toHaveLength(1);
    });
  });

  // =========================================================================================

  describe(`a large export (more rows than one page of ${EXPORT_PAGE})`, () => {
    let c: Ctx;
    let link: any;
    const GROUPS = 3000;
    const BASE = T0 - 100_000;
    let humans: number[];
    let all: number[];

    beforeAll(async () => {
      c = await setup({}, engine);
      link = await createLink(c, { slug: 'bulk' });
      const started = performance.now();
      // 12,000 human clicks on 3,000 milliseconds (4 each), recorded out of time order so ids
      // and times disagree, plus 500 bot hits among them; one flush.
      for (let i = 0; i < 12_000; i++) {
        c.t.clock.set(BASE + ((i * 7919) % GROUPS) * 10);
        const res = await c.t.app.handle(clickRequest('/bulk'));
        if (res.status !== 302) throw new Error(`click ${i}: ${res.status}`);
        if (i % 24 === 5) {
          const bot = await c.t.app.handle(clickRequest('/bulk', { ua: UA.googlebot }));
          if (bot.status !== 302) throw new Error(`bot ${i}: ${bot.status}`);
        }
      }
      await flushOk(c.t);
      c.t.clock.set(T0);
      humans = await expectedOrder(c, link.id);
      all = await expectedOrder(c, link.id, () => true);
      expect([humans.length, all.length]).toEqual([12_000, 12_500]);
      expect(performance.now() - started).toBeLessThan(8000);
    }, 30_000);
    afterAll(() => disposeTestApp(c.t));

    test('12,000 rows: every click exactly once, newest first, pages joined cleanly', async () => {
      const { res, records } = await exportCsv(c, link.id);
      expect(res.status).toBe(200);
      expectCrlf(res.text, 12_000);
      const got = records.map((r) => Number(r[0]));
      expect(new Set(got).size).toBe(12_000);
      expect(got).toEqual(humans);
      // Every record whole: the right link, human, a timestamp of its group.
      for (const r of records) {
        expect(r).toHaveLength(FIELDS.length);
        expect(r[1]).toBe(link.id);
        expect(r[16]).toBe('false');
      }
    });

    test('the body is streamed page by page', async () => {
      const res = await c.t.app.handle(
        new Request(`http://localhost/api/v1/links/${link.id}/export.csv`, {
          headers: { authorization: `Bearer ${c.key}` },
        }),
      );
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      const chunks: string[] = [];
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(decoder.decode(value, { stream: true }));
      }
      const lines = chunks.map((ch) => ch.split('\r\n').length - 1);
      const pages = Array.from({ length: Math.ceil(12_000 / EXPORT_PAGE) }, (_, i) =>
        Math.min(EXPORT_PAGE, 12_000 - i * EXPORT_PAGE),
      );
      expect(lines).toEqual([1, ...pages]);
      expect(chunks.every((ch) => ch.endsWith('\r\n'))).toBe(true);
    });

    test('bots=1: 12,500 rows in order', async () => {
      const { records } = await exportCsv(c, link.id, { bots: 1 });
      expect(records.map((r) => Number(r[0]))).toEqual(all);
      expect(records.filter((r) => r[16] === 'true')).toHaveLength(500);
    });

    test('windows of exactly one and two pages (the last page full) and one page + 4 rows', async () => {
      // Four clicks per millisecond group: a window of n groups holds 4n rows.
      for (const rowsWanted of [EXPORT_PAGE, 2 * EXPORT_PAGE, EXPORT_PAGE + 4]) {
        const groups = rowsWanted / 4;
        const from = BASE + (GROUPS - groups) * 10;
        const { res, records } = await exportCsv(c, link.id, { from });
        expect(records).toHaveLength(rowsWanted);
        expectCrlf(res.text, rowsWanted);
        expect(records.map((r) => Number(r[0]))).toEqual(humans.slice(0, rowsWanted));
      }
    });

    test('the export equals the list walked with limit 200', async () => {
      const items = await expectExportMatchesList(c, link.id, { bots: 1 });
      expect(items).toHaveLength(12_500);
    });

    test('clicks recorded after the export started (later in time) are not in it', async () => {
      const res = await c.t.app.handle(
        new Request(`http://localhost/api/v1/links/${link.id}/export.csv`, {
          headers: { authorization: `Bearer ${c.key}` },
        }),
      );
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      // The header and the first page, then new clicks (also in the millisecond of the first
      // page's oldest row), then the rest.
      for (let i = 0; i < 2; i++) text += decoder.decode((await reader.read()).value, { stream: true });
      const lastSeen = parseCsv(text).at(-1)!;
      for (const at of [T0 + 1, T0 + 2, Number(lastSeen[3])]) await hit(c, '/bulk', at);
      await flushOk(c.t);
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      const newIds = (await storedClicks(c.t, link.id))
        .slice(-3)
        .reverse()
        .map((r) => r.id);
      const got = parseCsv(text)
        .slice(1)
        .map((r) => Number(r[0]));
      expect(got).toEqual(humans);
      for (const id of newIds) expect(got).not.toContain(id);
      // Clean up: leave the link as the other tests expect it.
      await deleteStoredClicks(c.t, newIds);
      c.t.clock.set(T0);
    });

    // The export notes the newest stored click when it is asked for, so a click written after
    // the response went out, even in the millisecond of `to`, never joins.
    test('a click recorded after the export started, in the same millisecond as its start, is not in it', async () => {
      const n = humans.length;
      c.t.clock.set(T0);
      const res = await c.t.app.handle(
        new Request(`http://localhost/api/v1/links/${link.id}/export.csv`, {
          headers: { authorization: `Bearer ${c.key}` },
        }),
      );
      expect(res.status).toBe(200);
      // The export has started (the response is out); a click comes in, in the same millisecond.
      await hit(c, '/bulk', T0);
      await flushOk(c.t);
      const text = await res.text();
      const newest = (await storedClicks(c.t, link.id)).at(-1)!.id;
      const got = parseCsv(text)
        .slice(1)
        .map((r) => Number(r[0]));
      await deleteStoredClicks(c.t, [newest]);
      expect(got).not.toContain(newest);
      expect(got).toHaveLength(n);
    });

    // The export runs in a Worker shared by all exports on SQLite, as async pages on PostgreSQL;
    // these go through a real HTTP server.
    describe("over HTTP, in the engine's export runner", () => {
      let base: string;
      const auth = () => ({ authorization: `Bearer ${c.key}` });
      const url = (query = '') => `${base}/api/v1/links/${link.id}/export.csv${query}`;
      const idsOf = (text: string) =>
        parseCsv(text)
          .slice(1)
          .map((r) => Number(r[0]));
      /** The exports the host still runs, once it has settled (cancels travel as messages). */
      async function settledRunning(): Promise<number> {
        for (let i = 0; i < 100 && c.t.deps.exports.running > 0; i++) await Bun.sleep(10);
        return c.t.deps.exports.running;
      }

      beforeAll(() => {
        c.t.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false });
        base = `http://127.0.0.1:${c.t.app.server!.port}`;
      });
      afterAll(async () => {
        await c.t.app.stop(true);
      });

      test('a whole export through a socket: every row, in order; nothing left running', async () => {
        const res = await fetch(url('?bots=1'), { headers: auth() });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
        expect(idsOf(await res.text())).toEqual(all);
        expect(await settledRunning()).toBe(0);
      });

      test('a client that leaves after the first chunks: the export is dropped, the next one is whole', async () => {
        const abort = new AbortController();
        const res = await fetch(url(), { headers: auth(), signal: abort.signal });
        expect(res.status).toBe(200);
        const reader = res.body!.getReader();
        const first = await reader.read();
        expect(first.done).toBe(false);
        expect(new TextDecoder().decode(first.value)).toStartWith(HEADER_LINE.slice(0, 10));
        abort.abort();
        expect(await settledRunning()).toBe(0);
        const again = await fetch(url(), { headers: auth() });
        expect(idsOf(await again.text())).toEqual(humans);
      });

      test('a reader that cancels after the first page stops the export there', async () => {
        const res = await c.t.app.handle(
          new Request(`http://localhost/api/v1/links/${link.id}/export.csv`, { headers: auth() }),
        );
        const reader = res.body!.getReader();
        for (let i = 0; i < 2; i++) expect((await reader.read()).done).toBe(false);
        // Pages are built one ahead of the reader, never the whole export.
        expect(c.t.deps.exports.running).toBe(1);
        await reader.cancel();
        expect(c.t.deps.exports.running).toBe(0);
        const { records } = await exportCsv(c, link.id);
        expect(records.map((r) => Number(r[0]))).toEqual(humans);
      });

      test('two exports read in turns run side by side and each is whole', async () => {
        const readers = await Promise.all(
          ['', '?bots=1'].map(async (q) => {
            const res = await fetch(url(q), { headers: auth() });
            expect(res.status).toBe(200);
            return res.body!.getReader();
          }),
        );
        expect(c.t.deps.exports.running).toBe(2);
        const texts = ['', ''];
        const decoders = [new TextDecoder(), new TextDecoder()];
        const done = [false, false];
        while (!done[0] || !done[1]) {
          for (const i of [0, 1]) {
            if (done[i]) continue;
            const { done: end, value } = await readers[i]!.read();
            if (end) done[i] = true;
            else texts[i] += decoders[i]!.decode(value, { stream: true });
          }
        }
        expect(idsOf(texts[0]!)).toEqual(humans);
        expect(idsOf(texts[1]!)).toEqual(all);
        expect(await settledRunning()).toBe(0);
      });

      test('the server stopping mid-export ends it with an error (no hang); the next export runs whole', async () => {
        const res = await c.t.app.handle(
          new Request(`http://localhost/api/v1/links/${link.id}/export.csv`, { headers: auth() }),
        );
        const reader = res.body!.getReader();
        expect((await reader.read()).done).toBe(false);
        c.t.deps.exports.close();
        let failed: unknown = null;
        try {
          for (;;) if ((await reader.read()).done) break;
        } catch (err) {
          failed = err;
        }
        expect(String(failed)).toContain('the server is stopping');
        expect(c.t.deps.exports.running).toBe(0);
        const { records } = await exportCsv(c, link.id);
        expect(records.map((r) => Number(r[0]))).toEqual(humans);
      });
    });
  });
});
