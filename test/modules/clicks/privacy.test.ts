/**
 * The privacy switches end to end (docs/operations.md, "Privacy"), on both engines: clicks through
 * the real redirect and flush, read back through the API and from the stored rows. An opted-out
 * click (Sec-GPC: 1 by default, DNT: 1 with SLINK_HONOR_DNT=1, the SLINK_NO_TRACK_PARAM
 * parameter) counts in clickCount, the totals and the series, is listed with every dimension
 * empty, adds no unique visitor (its hash is never computed: no day salt is even made) and is
 * counted in totals.optedOut. SLINK_GEO and SLINK_REFERRER change what every click keeps.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { parse } from 'csv-parse/sync';
import { api, disposeTestApp } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { storedClicks, storedRows } from '../../helpers/stored';
import { type Ctx, clickRequest, createLink, flushOk, getLink, setup, UA } from './support';

const LONDON = '81.2.69.142';
const DIMS = ['country', 'city', 'device', 'os', 'browser', 'referrer', 'language'] as const;
const PROFILE = { ip: LONDON, referer: 'https://news.example.org/post', lang: 'fr-FR,fr;q=0.9' };

/** One click through the real app, with extra headers; answers the response. */
async function clickWith(c: Ctx, path: string, headers: Record<string, string> = {}, ua: string = UA.chromeWin) {
  const base = clickRequest(path, { ...PROFILE, ua });
  for (const [k, v] of Object.entries(headers)) base.headers.set(k, v);
  const res = await c.t.app.handle(base);
  await res.arrayBuffer();
  return res;
}

async function stats(c: Ctx, linkId: string) {
  const res = await api(c.t, 'GET', `/links/${linkId}/stats?range=24h`, { key: c.key });
  expect(res.status).toBe(200);
  return res.body;
}

async function listed(c: Ctx, linkId: string) {
  const res = await api(c.t, 'GET', `/links/${linkId}/clicks`, { key: c.key });
  expect(res.status).toBe(200);
  return res.body.items as Record<string, unknown>[];
}

async function saltCount(c: Ctx): Promise<number> {
  return Number((await storedRows(c.t, 'SELECT count(*) AS n FROM visitor_salts'))[0]!.n);
}

/** The stored column of each field of GET /privacy (the raw clicks as test/helpers/stored.ts reads them). */
const COLUMN: Record<string, string> = {
  timestamp: 'timestamp',
  linkId: 'link_id',
  variantCode: 'variant_code',
  destination: 'destination',
  params: 'params',
  rule: 'rule',
  bot: 'bot',
  country: 'country',
  city: 'city',
  device: 'device',
  os: 'os',
  browser: 'browser',
  referrer: 'referrer',
  trafficType: 'traffic_type',
  language: 'language',
  visitor: 'visitor_hash',
};
/**
 * Columns that are not facts of their own: the variant id (what variantCode matched), the
 * first-visit mark (of visitor) and the opt-out mark (the receipt's keptWhenOptedOut).
 */
const DERIVED = new Set(['variant_id', 'first_of_day', 'opted_out']);

/** Whether a stored column holds something: a visitor of 0 is none (an opted-out click's). */
function holds(column: string, value: unknown): boolean {
  if (value === null || value === undefined) return false;
  return column === 'visitor_hash' ? BigInt(`0x${value}`) !== 0n : true;
}

/**
 * GET /privacy against the columns written: one profiled and one opted-out click of a link with a
 * code, every field the receipt says is kept holds a value, every one it says is not is empty, and
 * no column is written that the receipt does not name.
 */
async function receiptMatchesColumns(c: Ctx, slug: string, optOut: Record<string, string>): Promise<void> {
  const res = await api(c.t, 'GET', '/privacy', { key: c.key });
  expect(res.status).toBe(200);
  const receipt = res.body as { fields: { field: string; kept: boolean; keptWhenOptedOut: boolean }[] };
  const link = await createLink(c, { slug, params: { utm_medium: 'email' } });
  await clickWith(c, `/${slug}/spring`);
  await clickWith(c, `/${slug}/spring`, optOut);
  await flushOk(c.t);
  const [profiled, optedOut] = (await storedClicks(c.t)).filter((r) => r.link_id === link.id);
  expect([profiled!.opted_out, optedOut!.opted_out]).toEqual([0, 1]);
  const named = new Set(receipt.fields.map((f) => COLUMN[f.field]));
  expect(named.has(undefined as never)).toBe(false);
  for (const column of Object.keys(profiled!)) if (!DERIVED.has(column)) expect(named).toContain(column);
  for (const f of receipt.fields) {
    // No rule on this link: its rule column is empty whatever is kept.
    if (f.field === 'rule') continue;
    const column = COLUMN[f.field]!;
    expect({ field: f.field, holds: holds(column, profiled![column]) }).toEqual({ field: f.field, holds: f.kept });
    expect({ field: f.field, holds: holds(column, optedOut![column]) }).toEqual({
      field: f.field,
      holds: f.kept && f.keptWhenOptedOut,
    });
  }
}

forEachEngine((engine) => {
  describe('defaults: Sec-GPC honoured, DNT not', () => {
    let c: Ctx;
    beforeAll(async () => {
      c = await setup({}, engine);
    });
    afterAll(() => disposeTestApp(c.t));

    test('an opted-out click is counted, never profiled, and its visitor hash is never computed', async () => {
      const link = await createLink(c, { slug: 'gpc-a' });
      expect((await clickWith(c, '/gpc-a', { 'sec-gpc': '1' })).status).toBe(302);
      expect((await clickWith(c, '/gpc-a', { 'sec-gpc': '1' }, UA.safariIphone)).status).toBe(302);
      await flushOk(c.t);
      // Only opted-out clicks so far: no day salt was made, so no hash was computed.
      expect(await saltCount(c)).toBe(0);
      const stored = (await storedClicks(c.t)).filter((r) => r.link_id === link.id);
      expect(stored).toHaveLength(2);
      for (const row of stored) {
        for (const d of DIMS) expect(row[d]).toBeNull();
        expect(row.bot).toBe(0);
        expect(row.first_of_day).toBe(0);
        expect(BigInt(`0x${row.visitor_hash}`)).toBe(0n);
      }
      // A profiled click, and a DNT one (not honoured by default): both profiled, both hashed.
      await clickWith(c, '/gpc-a');
      await clickWith(c, '/gpc-a', { dnt: '1' }, UA.firefoxLinux);
      await flushOk(c.t);
      expect(await saltCount(c)).toBe(1);

      expect((await getLink(c, link.id)).clickCount).toBe(4);
      const s = await stats(c, link.id);
      expect(s.totals).toEqual({ clicks: 4, uniques: 2, bots: 0, optedOut: 2 });
      expect(s.notCollected).toEqual([]);
      expect(s.series.reduce((n: number, p: { clicks: number }) => n + p.clicks, 0)).toBe(4);
      expect(s.breakdowns.country).toEqual([
        { value: 'GB', clicks: 2 },
        { value: null, clicks: 2 },
      ]);
      expect(s.breakdowns.referrer).toEqual([
        { value: 'news.example.org', clicks: 2 },
        { value: null, clicks: 2 },
      ]);
      const items = await listed(c, link.id);
      expect(items).toHaveLength(4);
      const empty = items.filter((i) => i.country === null);
      expect(empty).toHaveLength(2);
      for (const i of empty) for (const d of DIMS) expect(i[d]).toBeNull();

      // The export: the same rows, the opted-out ones with every dimension empty.
      const csv = await api(c.t, 'GET', `/links/${link.id}/export.csv`, { key: c.key });
      expect(csv.status).toBe(200);
      const [header, ...records] = parse(csv.text, { record_delimiter: '\r\n' }) as string[][];
      expect(records).toHaveLength(4);
      const at = DIMS.map((d) => header!.indexOf(d));
      expect(at).not.toContain(-1);
      const emptyRows = records.filter((r) => at.every((i) => r[i] === ''));
      expect(emptyRows).toHaveLength(2);

      const ws = await api(c.t, 'GET', '/workspace/stats?range=24h', { key: c.key });
      expect(ws.status).toBe(200);
      expect(ws.body.totals.optedOut).toBe(2);
    });

    test('an opted-out bot is still a bot: classified from its agent before the agent is dropped', async () => {
      const link = await createLink(c, { slug: 'gpc-bot' });
      await clickWith(c, '/gpc-bot', { 'sec-gpc': '1' }, UA.googlebot);
      await flushOk(c.t);
      expect((await getLink(c, link.id)).clickCount).toBe(0);
      const s = await stats(c, link.id);
      expect(s.totals).toEqual({ clicks: 0, uniques: 0, bots: 1, optedOut: 0 });
      const [row] = (await storedClicks(c.t)).filter((r) => r.link_id === link.id);
      expect(row!.bot).toBe(1);
      // Not even the bot's name: the agent never left the redirect.
      expect(row!.browser).toBeNull();
    });

    test("a link's rules still read an opted-out request; the click keeps nothing of it", async () => {
      const link = await createLink(c, {
        slug: 'gpc-rules',
        rules: [{ when: { country: ['GB'], language: ['fr'] }, destination: 'https://example.fr/' }],
      });
      const res = await clickWith(c, '/gpc-rules', { 'sec-gpc': '1' });
      expect(res.headers.get('location')).toBe('https://example.fr/');
      await flushOk(c.t);
      const [row] = (await storedClicks(c.t)).filter((r) => r.link_id === link.id);
      for (const d of DIMS) expect(row![d]).toBeNull();
      expect(row!.opted_out).toBe(1);
      expect((await stats(c, link.id)).breakdowns.rule).toEqual([{ value: 0, clicks: 1 }]);
    });

    test('GET /privacy says what the columns written hold', async () => {
      await receiptMatchesColumns(c, 'receipt-a', { 'sec-gpc': '1' });
    });

    test('/.well-known/gpc.json answers on every short domain', async () => {
      const res = await c.t.app.handle(new Request('https://sl.test/.well-known/gpc.json'));
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toStartWith('application/json');
      const body = (await res.json()) as { gpc: boolean; lastUpdate: string };
      expect(body.gpc).toBe(true);
      expect(body.lastUpdate).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    });
  });

  describe('SLINK_HONOR_GPC=0, SLINK_HONOR_DNT=1, SLINK_NO_TRACK_PARAM, SLINK_GEO=country, SLINK_REFERRER=none', () => {
    let c: Ctx;
    beforeAll(async () => {
      c = await setup(
        {
          SLINK_HONOR_GPC: '0',
          SLINK_HONOR_DNT: '1',
          SLINK_NO_TRACK_PARAM: 'notrack',
          SLINK_GEO: 'country',
          SLINK_REFERRER: 'none',
        },
        engine,
      );
    });
    afterAll(() => disposeTestApp(c.t));

    test('DNT and the no-track parameter opt out, Sec-GPC does not; the parameter is never forwarded', async () => {
      const link = await createLink(c, { slug: 'dnt-a', forwardQuery: true });
      const gpc = await clickWith(c, '/dnt-a?x=1', { 'sec-gpc': '1' });
      expect(gpc.headers.get('location')).toBe('https://example.com/landing?x=1');
      await clickWith(c, '/dnt-a', { dnt: '1' });
      const param = await clickWith(c, '/dnt-a?notrack&x=2&notrack=1');
      expect(param.status).toBe(302);
      expect(param.headers.get('location')).toBe('https://example.com/landing?x=2');
      // A longer name holding the parameter's is another parameter.
      const other = await clickWith(c, '/dnt-a?notracking=1');
      expect(other.headers.get('location')).toBe('https://example.com/landing?notracking=1');
      await flushOk(c.t);
      const s = await stats(c, link.id);
      expect(s.totals).toEqual({ clicks: 4, uniques: 1, bots: 0, optedOut: 2 });
      expect(s.notCollected).toEqual(['city', 'referrer']);
      // Country kept, city and referrer not, for every click.
      expect(s.breakdowns.country).toEqual([
        { value: 'GB', clicks: 2 },
        { value: null, clicks: 2 },
      ]);
      const byCountry = (a: { country: string | null }, b: { country: string | null }) =>
        String(a.country).localeCompare(String(b.country));
      expect(s.breakdowns.city.sort(byCountry)).toEqual([
        { value: null, country: 'GB', clicks: 2 },
        { value: null, country: null, clicks: 2 },
      ]);
      expect(s.breakdowns.referrer).toEqual([{ value: null, clicks: 4 }]);
      const stored = (await storedClicks(c.t)).filter((r) => r.link_id === link.id);
      expect(stored.map((r) => r.city)).toEqual([null, null, null, null]);
      expect(stored.map((r) => r.referrer)).toEqual([null, null, null, null]);
    });

    test('GET /privacy says what the columns written hold, with these switches', async () => {
      const res = await api(c.t, 'GET', '/privacy', { key: c.key });
      expect(res.body.switches).toEqual({
        honorGpc: false,
        honorDnt: true,
        noTrackParam: 'notrack',
        referrer: 'none',
        geo: 'country',
      });
      await receiptMatchesColumns(c, 'receipt-b', { dnt: '1' });
    });

    test('/.well-known/gpc.json is 404 while Sec-GPC is not honoured', async () => {
      const res = await c.t.app.handle(new Request('https://sl.test/.well-known/gpc.json'));
      expect(res.status).toBe(404);
    });
  });

  describe('SLINK_GEO=none', () => {
    let c: Ctx;
    beforeAll(async () => {
      c = await setup({ SLINK_GEO: 'none' }, engine);
    });
    afterAll(() => disposeTestApp(c.t));

    test('no country and no city is kept; statistics say both are not collected', async () => {
      const link = await createLink(c, { slug: 'geo-none' });
      await clickWith(c, '/geo-none');
      await flushOk(c.t);
      const s = await stats(c, link.id);
      expect(s.notCollected).toEqual(['country', 'city']);
      expect(s.breakdowns.country).toEqual([{ value: null, clicks: 1 }]);
      const [row] = (await storedClicks(c.t)).filter((r) => r.link_id === link.id);
      expect([row!.country, row!.city, row!.referrer]).toEqual([null, null, 'news.example.org']);
    });
  });
});
