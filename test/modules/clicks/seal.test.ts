/**
 * Sealing moves clicks from the tail into per-link blocks; nothing anyone reads may change:
 * the clicks list (every page, bots and a window), the CSV export, the clicks in id order and
 * the statistics' rebuild. Clicks are made through the real redirect and flush, some with
 * times out of id order (the clock set back between flushes).
 */
import { describe, expect, test } from 'bun:test';
import { deleteLinkClicks, lastClickId, readClicksAfter } from '../../../src/modules/clicks/sqlite/raw-read';
import { Sealer, sealBacklog, sealThrough } from '../../../src/modules/clicks/sqlite/seal';
import { api, disposeTestApp } from '../../helpers/app';
import { insertStoredClicks } from '../../helpers/stored-clicks';
import { type Ctx, click, createLink, createVariant, flushOk, HOUR, one, pick, prng, setup, UA } from './support';

const T0 = Date.UTC(2026, 10, 21, 12);

async function fill(c: Ctx) {
  const a = await createLink(c, { slug: 'sa', params: { utm_source: 'news', ref: 'x,"y"' } });
  const v = await createVariant(c, a.id, { code: 'fb', params: { utm_source: 'fb' } });
  const b = await createLink(c, { slug: 'sb' });
  const random = prng(7);
  const paths = ['/sa', '/sa/fb', '/sa/nope', '/sb', '/sb/q'];
  const agents = [UA.chromeWin, UA.safariIphone, UA.googlebot, UA.curl, UA.firefoxLinux];
  const ips = ['81.2.69.160', '8.8.8.8', '2a00:1450:4001:80b::200e', '77.88.55.55', '10.0.0.1'];
  for (let round = 0; round < 12; round++) {
    // Every third round goes back in time: ids then rise while times fall.
    const base = T0 + (round % 3 === 2 ? -round : round) * HOUR;
    for (let i = 0; i < 25; i++) {
      c.t.clock.set(base + Math.floor(random() * 4) * 1000); // equal timestamps too
      expect(
        await click(c.t, pick(random, paths), {
          ip: pick(random, ips),
          ua: pick(random, agents),
          referer: random() < 0.3 ? 'https://www.google.com/' : undefined,
          lang: random() < 0.5 ? 'fr' : undefined,
        }),
      ).toBe(302);
    }
    await flushOk(c.t);
  }
  c.t.clock.set(T0 + 24 * HOUR); // every click in the past of "now"
  return { a, b, v };
}

/** Everything a reader can see of the raw clicks. */
async function everything(c: Ctx, ids: string[]) {
  const out: unknown[] = [];
  for (const id of ids) {
    for (const query of ['range=all&bots=1', 'range=all', `from=2026-11-21&to=2026-11-21&bots=1`]) {
      let cursor: string | null = null;
      const items: unknown[] = [];
      do {
        const res: { status: number; body: any } = await api(
          c.t,
          'GET',
          `/links/${id}/clicks?${query}&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          { key: c.key },
        );
        expect(res.status).toBe(200);
        items.push(...res.body.items);
        cursor = res.body.cursor;
      } while (cursor);
      out.push(items);
      const csv = await api(c.t, 'GET', `/links/${id}/export.csv?${query}`, { key: c.key });
      expect(csv.status).toBe(200);
      out.push(csv.text);
    }
  }
  out.push(readClicksAfter(c.t.deps.db.$client, 0, 1_000_000));
  return out;
}

describe('sealing', () => {
  test('the list (every page), the export and the clicks in id order are the same before, during and after', async () => {
    const c = await setup();
    const { a, b } = await fill(c);
    const sqlite = c.t.deps.db.$client;
    const before = await everything(c, [a.id, b.id]);
    const last = lastClickId(sqlite);
    expect(last).toBe(300);
    // Not vacuous: clicks listed, bots among them, and times that fall while ids rise.
    expect((before[0] as unknown[]).length).toBeGreaterThan(50);
    expect((before[0] as unknown[]).length).toBeGreaterThan((before[2] as unknown[]).length);
    const times = readClicksAfter(sqlite, 0, 1000).map((r) => r.time);
    expect(times.some((t, i) => i > 0 && t < times[i - 1]!)).toBe(true);

    // Half sealed: the readers merge blocks and the tail.
    expect(sealThrough(sqlite, 150)).toBe(150);
    expect(one(c.t, 'SELECT count(*) AS n FROM click_tail').n).toBe(150);
    expect(await everything(c, [a.id, b.id])).toEqual(before);
    // Then the rest, as a second segment: two blocks per link.
    expect(sealThrough(sqlite, last)).toBe(150);
    expect(one(c.t, 'SELECT count(*) AS n FROM click_tail').n).toBe(0);
    expect(one(c.t, 'SELECT count(*) AS n FROM click_segments').n).toBe(2);
    expect(
      one(c.t, 'SELECT count(*) AS n FROM click_blocks WHERE link = (SELECT link FROM click_blocks LIMIT 1)').n,
    ).toBe(2);
    expect(await everything(c, [a.id, b.id])).toEqual(before);

    // New clicks after the seal continue the ids, into the tail.
    c.t.clock.set(T0 + 20 * HOUR);
    expect(await click(c.t, '/sb', { ip: '8.8.8.8', ua: UA.chromeWin })).toBe(302);
    await flushOk(c.t);
    expect(lastClickId(sqlite)).toBe(last + 1);
    expect(readClicksAfter(sqlite, last, 10).map((r) => r.id)).toEqual([last + 1]);
    await disposeTestApp(c.t);
  });

  test('a backlog is sealed a bounded step at a time: by the writer one segment per batch, at start in segments of the threshold', async () => {
    const c = await setup();
    const { a, b } = await fill(c);
    const sqlite = c.t.deps.db.$client;
    const before = await everything(c, [a.id, b.id]);
    const last = lastClickId(sqlite);
    expect(last).toBe(300);
    // The writer: at most four times the threshold per call, the rest at the next batches.
    const sealer = new Sealer(sqlite, 50);
    expect(sealer.sealIfDue(last)).toBe(200);
    expect(sealer.sealIfDue(last)).toBe(100);
    expect(sealer.sealIfDue(last)).toBe(0);
    expect(await everything(c, [a.id, b.id])).toEqual(before);
    await disposeTestApp(c.t);

    const d = await setup();
    const second = await fill(d);
    const s2 = d.t.deps.db.$client;
    const before2 = await everything(d, [second.a.id, second.b.id]);
    // At start (after an upgrade): everything, one segment per 70 clicks.
    expect(sealBacklog(s2, 300, 70)).toBe(300);
    expect(s2.query('SELECT count FROM click_segments ORDER BY seg').all()).toEqual(
      [70, 70, 70, 70, 20].map((count) => ({ count })),
    );
    expect(one(d.t, 'SELECT count(*) AS n FROM click_tail').n).toBe(0);
    expect(await everything(d, [second.a.id, second.b.id])).toEqual(before2);
    await disposeTestApp(d.t);
  });

  test('the writer seals once the rows are there; a deleted link takes its tail rows and blocks with it', async () => {
    const c = await setup();
    const { a, b } = await fill(c);
    const sqlite = c.t.deps.db.$client;
    const sealer = new Sealer(sqlite, 100);
    expect(sealer.sealIfDue(99)).toBe(0);
    expect(sealer.sealIfDue(100)).toBe(100);
    expect(sealer.sealIfDue(199)).toBe(0);
    expect(sealer.sealIfDue(250)).toBe(150);
    const bOnly = await everything(c, [b.id]);

    const deleted = sqlite.transaction(() => deleteLinkClicks(sqlite, a.id));
    deleted.immediate();
    const left = readClicksAfter(sqlite, 0, 1_000);
    expect(new Set(left.map((r) => r.linkId))).toEqual(new Set([b.id]));
    expect(one(c.t, 'SELECT count(*) AS n FROM click_targets WHERE link_id = ?', a.id).n).toBe(0);
    // The other link reads the same (its blocks and tail rows were not touched).
    expect((await everything(c, [b.id])).slice(0, -1)).toEqual(bOnly.slice(0, -1));
    await disposeTestApp(c.t);
  });

  test('an export the tail is sealed under is whole, each click once: the CSV and the workspace export', async () => {
    const c = await setup();
    const sqlite = c.t.deps.db.$client;
    const auth = { authorization: `Bearer ${c.key}` };
    /** Streams `path`; once `sealAfter` chunks are read (the first page of clicks with them), seals the tail in two segments. */
    const read = async (path: string, sealAfter?: { chunks: number; first: number }) => {
      const res = await c.t.app.handle(new Request(`http://localhost/api/v1${path}`, { headers: auth }));
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      for (let chunk = 0; ; chunk++) {
        if (sealAfter && chunk === sealAfter.chunks) {
          expect(sealThrough(sqlite, sealAfter.first + 2000)).toBe(2000);
          expect(sealThrough(sqlite, sealAfter.first + 3500)).toBe(1500);
        }
        const { done, value } = await reader.read();
        if (done) return text;
        text += decoder.decode(value, { stream: true });
      }
    };
    const clicksOf = (text: string) => text.split('\n').filter((l) => l.startsWith('{"type":"click"'));

    // More than three export pages of 1000, ids rising while times fall: the export's first page
    // holds the lowest ids, the first ones sealed.
    const a = await createLink(c, { slug: 'big' });
    let first = lastClickId(sqlite);
    await insertStoredClicks(c.t, a.id, 3500, T0);
    const csv = `/links/${a.id}/export.csv?range=all&bots=1`;
    const whole = await read(csv);
    expect(whole.trimEnd().split('\n')).toHaveLength(3501);
    // The header, then the first page: the tail sealed while the export reads on.
    expect(await read(csv, { chunks: 2, first })).toBe(whole);
    expect(one(c.t, 'SELECT count(*) AS n FROM click_tail').n).toBe(0);

    // The workspace export: another link's clicks in the tail, the first sealed one gone.
    await api(c.t, 'DELETE', `/links/${a.id}`, { key: c.key });
    const b = await createLink(c, { slug: 'big2' });
    first = lastClickId(sqlite);
    await insertStoredClicks(c.t, b.id, 3500, T0);
    const workspace = await read('/export?clicks=1');
    expect(clicksOf(workspace)).toHaveLength(3500);
    // The header, the domains, the links, then the first chunk of clicks.
    const sealed = await read('/export?clicks=1', { chunks: 4, first });
    expect(clicksOf(sealed)).toEqual(clicksOf(workspace));
    await disposeTestApp(c.t);
  });
});
