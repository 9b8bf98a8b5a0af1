/**
 * SLINK_RETENTION_DAYS on a real SQLite file with a fixed clock: the click writer deletes the
 * raw clicks older than the retained window one step at a time (whole old segments, then old
 * folded tail rows), never a click the rollups do not count yet; the clicks list and the CSV
 * export say where the retained window starts and hold only the newer clicks, while counters
 * and statistics (link and workspace, range=all) still count every click.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { WireClick } from '../../../src/modules/clicks/capture/record';
import { noGeo } from '../../../src/modules/clicks/enrich/geo';
import { retainedFrom } from '../../../src/modules/clicks/retention';
import { countClicks } from '../../../src/modules/clicks/sqlite/raw-read';
import { SqliteClickWriter } from '../../../src/modules/clicks/sqlite/store';
import { api, disposeTestApp, T0 } from '../../helpers/app';
import { type Ctx, createLink, DAY, rows, setup, UA } from './support';

const DAYS = 30;

/** `n` human clicks of a link, one a minute from `time` on, from a few addresses. */
function wires(linkId: string, n: number, time: number): WireClick[] {
  return Array.from({ length: n }, (_, i) => ({
    time: time + i * 60_000,
    linkId,
    variantId: null,
    code: null,
    location: 'https://example.com/landing',
    paramsJson: '{}',
    address: `192.0.2.${i % 5}`,
    userAgent: UA.chromeWin,
    referrer: null,
    acceptLanguage: 'en',
    bot: false,
  }));
}

/** Retention steps until one finds nothing to delete; returns how many did something. */
function retainAll(store: SqliteClickWriter): number {
  let steps = 0;
  for (; steps < 1000; steps++) if (store.retain().kind === 'none') return steps;
  throw new Error('retention never ended');
}

function tailTimes(c: Ctx): number[] {
  return rows<{ time: number }>(c.t, 'SELECT time FROM click_tail ORDER BY id').map((r) => r.time);
}

describe('SLINK_RETENTION_DAYS=30', () => {
  let c: Ctx;
  let link: { id: string; slug: string };
  let store: SqliteClickWriter;
  const cutoff = T0 - DAYS * DAY;

  beforeAll(async () => {
    c = await setup({ SLINK_RETENTION_DAYS: String(DAYS) });
    link = await createLink(c, { slug: 'kept' });
    // A store driven by hand on the app's connection: it folds only when told, seals every 100 clicks.
    store = new SqliteClickWriter(c.t.deps.db.$client, noGeo, ['sl.test'], c.t.clock, {
      foldMaxClicks: 1e9,
      foldMaxMs: 1e9,
      retentionDays: DAYS,
      sealRows: 100,
    });
  });
  afterAll(() => disposeTestApp(c.t));

  test('old segments and old folded tail rows go, one step at a time; newer and unfolded clicks stay', async () => {
    // Three segments of 60 days ago.
    for (let s = 0; s < 3; s++) {
      store.writeBatch(wires(link.id, 100, T0 - 60 * DAY + s * 100 * 60_000));
      store.fold();
    }
    expect(rows(c.t, 'SELECT seg FROM click_segments')).toHaveLength(3);
    // 50 of 40 days ago and 30 of yesterday, folded, still in the tail (fewer than 100).
    store.writeBatch(wires(link.id, 50, T0 - 40 * DAY));
    store.writeBatch(wires(link.id, 30, T0 - DAY));
    store.fold();
    // 20 of 35 days ago, written and not folded: the rollups do not count them yet.
    store.writeBatch(wires(link.id, 20, T0 - 35 * DAY));
    expect(store.unfolded).toBe(20);
    expect(countClicks(c.t.deps.db.$client)).toBe(400);

    // The writes above took a step after each batch and fold; the first found nothing to delete
    // (nothing was folded yet), so the next waits a minute.
    expect(store.retain().kind).toBe('none');
    c.t.clock.advance(60_000);
    expect(retainAll(store)).toBe(3 + 1);
    expect(store.retention).toEqual({ steps: 4, clicks: 350 });
    expect(rows(c.t, 'SELECT seg FROM click_segments WHERE count > 0')).toEqual([]);
    expect(rows(c.t, 'SELECT seg FROM click_blocks')).toEqual([]);
    // Left: the 30 of yesterday and the 20 unfolded ones, however old.
    expect(countClicks(c.t.deps.db.$client)).toBe(50);
    expect(tailTimes(c).filter((t) => t < cutoff)).toHaveLength(20);

    // Folded now, the 20 are sealed together with yesterday's 30 (100 folded clicks in the
    // tail): a segment goes only as a whole, once its newest click is old, so they stay stored
    // for now; the list and the export leave them out (below).
    store.fold();
    c.t.clock.advance(60_000);
    expect(retainAll(store)).toBe(0);
    c.t.clock.set(T0);
    expect(countClicks(c.t.deps.db.$client)).toBe(50);
    expect(rows(c.t, 'SELECT count FROM click_segments WHERE count > 0')).toEqual([{ count: 50 }]);
  });

  test('the list says retainedFrom and holds the newer clicks only', async () => {
    const res = await api(c.t, 'GET', `/links/${link.id}/clicks?range=all&bots=1&limit=200`, { key: c.key });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['items', 'cursor', 'retainedFrom']);
    expect(res.body.retainedFrom).toBe(cutoff);
    expect(res.body.cursor).toBeNull();
    expect(res.body.items).toHaveLength(30);
    for (const item of res.body.items) expect(item.timestamp).toBeGreaterThanOrEqual(cutoff);
  });

  test('the export has the newer clicks only and the X-Slink-Retained-From header', async () => {
    const res = await c.t.app.handle(
      new Request(`http://localhost/api/v1/links/${link.id}/export.csv?range=all&bots=1`, {
        headers: { authorization: `Bearer ${c.key}` },
      }),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-slink-retained-from')).toBe(String(cutoff));
    const lines = (await res.text()).split('\r\n').filter((l) => l !== '');
    expect(lines).toHaveLength(1 + 30);
  });

  test('counters and statistics (link and workspace, range=all) still count every click', async () => {
    const got = await api(c.t, 'GET', `/links/${link.id}`, { key: c.key });
    expect(got.body.clickCount).toBe(400);
    const linkStats = await api(c.t, 'GET', `/links/${link.id}/stats?range=all`, { key: c.key });
    expect(linkStats.status).toBe(200);
    expect(linkStats.body.totals.clicks).toBe(400);
    const ws = await api(c.t, 'GET', '/workspace/stats?range=all', { key: c.key });
    expect(ws.status).toBe(200);
    expect(ws.body.totals.clicks).toBe(400);
  });
});

describe('SLINK_RETENTION_DAYS=30, later', () => {
  test('a month on, the segment of yesterday goes as a whole; the statistics keep counting it', async () => {
    const c = await setup({ SLINK_RETENTION_DAYS: String(DAYS) });
    try {
      const link = await createLink(c, { slug: 'aged' });
      const store = new SqliteClickWriter(c.t.deps.db.$client, noGeo, ['sl.test'], c.t.clock, {
        retentionDays: DAYS,
        sealRows: 100,
      });
      store.writeBatch(wires(link.id, 100, T0 - DAY));
      store.fold();
      expect(retainAll(store)).toBe(0);
      expect(countClicks(c.t.deps.db.$client)).toBe(100);
      c.t.clock.set(T0 + 31 * DAY);
      expect(retainAll(store)).toBe(1);
      expect(countClicks(c.t.deps.db.$client)).toBe(0);
      // The newest segment's row stays, emptied: it holds the seal watermark.
      expect(rows(c.t, 'SELECT count, last_id FROM click_segments')).toEqual([{ count: 0, last_id: 100 }]);
      // Sealing goes on after it; a later step removes the emptied row.
      store.writeBatch(wires(link.id, 100, T0 + 31 * DAY - 200 * 60_000));
      store.fold();
      c.t.clock.advance(60_000);
      retainAll(store);
      expect(rows(c.t, 'SELECT first_id, count FROM click_segments')).toEqual([{ first_id: 101, count: 100 }]);
      const res = await api(c.t, 'GET', `/links/${link.id}/clicks?range=all&limit=200`, { key: c.key });
      expect(res.body.items).toHaveLength(100);
      const stats = await api(c.t, 'GET', `/links/${link.id}/stats?range=all`, { key: c.key });
      expect(stats.body.totals.clicks).toBe(200);
    } finally {
      await disposeTestApp(c.t);
    }
  });
});

describe('SLINK_RETENTION_DAYS=0 (the default)', () => {
  let c: Ctx;
  beforeAll(async () => {
    c = await setup();
  });
  afterAll(() => disposeTestApp(c.t));

  test('nothing is pruned, and the list says retainedFrom: null', async () => {
    const link = await createLink(c, { slug: 'all-kept' });
    const store = new SqliteClickWriter(c.t.deps.db.$client, noGeo, ['sl.test'], c.t.clock, { sealRows: 100 });
    store.writeBatch(wires(link.id, 150, T0 - 400 * DAY));
    store.fold();
    expect(store.retain().kind).toBe('none');
    expect(countClicks(c.t.deps.db.$client)).toBe(150);
    const res = await api(c.t, 'GET', `/links/${link.id}/clicks?range=all&limit=1`, { key: c.key });
    expect(res.body.retainedFrom).toBeNull();
    expect(res.body.items).toHaveLength(1);
  });
});

describe('the retained window', () => {
  test('N days back, but never into yesterday or today (the writer rebuilds their first visits)', () => {
    expect(retainedFrom(T0, 0)).toBeNull();
    expect(retainedFrom(T0, 30)).toBe(T0 - 30 * DAY);
    // T0 is 12:00 UTC: one day back is yesterday noon, so yesterday's midnight is kept instead.
    expect(retainedFrom(T0, 1)).toBe(T0 - 12 * 3_600_000 - DAY);
    expect(retainedFrom(T0, 2)).toBe(T0 - 2 * DAY);
  });
});
