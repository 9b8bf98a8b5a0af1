/**
 * SLINK_RETENTION_DAYS end to end on both engines: clicks through the real redirect and flush;
 * the click writer deletes the raw clicks older than the retained window after a batch (a step
 * that finds nothing waits a minute before the next), while counters and statistics keep
 * counting every click, and the list and the export hold only the retained ones.
 * (test/modules/clicks/retention.test.ts drives SQLite's steps one by one: segments, the fold.)
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { api, disposeTestApp, T0 } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { storedClicks } from '../../helpers/stored-clicks';
import { type Ctx, click, createLink, DAY, flushOk, setup } from '../clicks/support';

const DAYS = 30;

forEachEngine((engine) => {
  describe(`SLINK_RETENTION_DAYS=${DAYS}`, () => {
    let c: Ctx;
    let link: { id: string; slug: string };
    /** Where the retained window starts once the writer has pruned (a minute after T0). */
    const now = T0 + 61_000;
    const cutoff = now - DAYS * DAY;

    beforeAll(async () => {
      c = await setup({ SLINK_RETENTION_DAYS: String(DAYS) }, engine);
      link = await createLink(c, { slug: 'kept' });
      // Three clicks of 40 days ago and two of an hour ago, written at T0.
      for (const at of [T0 - 40 * DAY, T0 - 40 * DAY + 1, T0 - 40 * DAY + 2, T0 - 3_600_000, T0 - 3_599_000]) {
        c.t.clock.set(at);
        expect(await click(c.t, '/kept', { ip: '192.0.2.1' })).toBe(302);
      }
      c.t.clock.set(T0);
      await flushOk(c.t);
      // A minute on, another batch: the writer takes its next retention step after it.
      c.t.clock.set(now);
      expect(await click(c.t, '/kept', { ip: '192.0.2.2' })).toBe(302);
      await flushOk(c.t);
    });
    afterAll(() => disposeTestApp(c.t));

    test('the raw clicks older than the window are deleted; the newer ones stay', async () => {
      const stored = await storedClicks(c.t, link.id);
      expect(stored.map((s) => s.timestamp)).toEqual([T0 - 3_600_000, T0 - 3_599_000, now]);
    });

    test('the list and the export hold the retained clicks and say where the window starts', async () => {
      const list = await api(c.t, 'GET', `/links/${link.id}/clicks?range=all`, { key: c.key });
      expect(list.status).toBe(200);
      expect(list.body.retainedFrom).toBe(cutoff);
      expect(list.body.items.map((i: { timestamp: number }) => i.timestamp)).toEqual([
        now,
        T0 - 3_599_000,
        T0 - 3_600_000,
      ]);
      const csv = await api(c.t, 'GET', `/links/${link.id}/export.csv?range=all`, { key: c.key });
      expect(csv.status).toBe(200);
      expect(csv.headers.get('x-slink-retained-from')).toBe(String(cutoff));
      expect(csv.text.split('\r\n').filter((l) => l !== '')).toHaveLength(1 + 3);
    });

    test('counters and statistics (link and workspace, range=all) still count every click', async () => {
      const got = await api(c.t, 'GET', `/links/${link.id}`, { key: c.key });
      expect([got.status, got.body.clickCount]).toEqual([200, 6]);
      const stats = await api(c.t, 'GET', `/links/${link.id}/stats?range=all`, { key: c.key });
      expect([stats.status, stats.body.totals]).toEqual([200, { clicks: 6, uniques: 3, bots: 0, optedOut: 0 }]);
      const ws = await api(c.t, 'GET', '/workspace/stats?range=all', { key: c.key });
      expect([ws.status, ws.body.totals.clicks, ws.body.topLinks]).toEqual([
        200,
        6,
        [{ id: link.id, slug: 'kept', title: null, clicks: 6 }],
      ]);
    });
  });
});
