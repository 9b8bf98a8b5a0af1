/**
 * The click store's contract, held on both engines: what a written batch adds to the raw clicks,
 * the link and variant counters, uniques and the rollup buckets (a link's and the workspace's),
 * read back once the writer has folded. The same clicks give the same figures on SQLite and on
 * PostgreSQL.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import type { Engine } from '../../../src/db/address';
import { forEachEngine } from '../../helpers/engines';
import { type EngineStore, engineStore, wire } from './engine-store';

const DAY = 86_400_000;
const HOUR = 3_600_000;
const T = Date.UTC(2026, 10, 21, 12, 30);
const HOUR_START = Date.UTC(2026, 10, 21, 12);
const DAY_START = Date.UTC(2026, 10, 21);
const CURL = 'curl/8.5.0';

let store: EngineStore | null = null;
afterEach(async () => {
  await store?.close();
  store = null;
});

/** A store on a fresh database of `engine`, closed after the test. */
async function opened(engine: Engine, now: number): Promise<EngineStore> {
  store = await engineStore(engine, now);
  return store;
}

async function written(s: EngineStore, clicks: Parameters<typeof wire>[0][]) {
  const outcome = await s.writer.writeBatch(clicks.map(wire));
  await s.writer.fold();
  return outcome;
}

forEachEngine((engine) => {
  describe('a written batch', () => {
    test('counts humans, uniques and bots on the link, its variant and its buckets', async () => {
      const s = await opened(engine, T);
      await s.link('lnk_a', 'a', { id: 'var_1', code: 'x' });
      const outcome = await written(s, [
        { linkId: 'lnk_a', time: T },
        // The same visitor again the same day: a click, not a unique.
        { linkId: 'lnk_a', time: T + 1000 },
        { linkId: 'lnk_a', time: T + 2000, address: '8.8.8.8', variantId: 'var_1', code: 'x' },
        { linkId: 'lnk_a', time: T + 3000, userAgent: CURL, bot: true },
      ]);
      expect(outcome).toMatchObject({ written: 4, skipped: 0 });
      expect(await s.counters('lnk_a')).toEqual({ clicks: 3, uniques: 2, bots: 1, last: T + 2000 });
      expect(await s.variantClicks('var_1')).toBe(1);
      expect(await s.rawClicks()).toBe(4);
      const hour = await s.bucket('lnk_a', 'hour', HOUR_START);
      expect(hour).toMatchObject({ clicks: 3, uniques: 2 });
      expect(hour!.counts).toMatchObject({
        'browser  Firefox': 3,
        'os  Linux': 3,
        'trafficType  direct': 3,
        'language  en-GB': 3,
        'variant var_1 x': 1,
      });
      expect(await s.bucket('lnk_a', 'hour', HOUR_START, true)).toMatchObject({ clicks: 1, uniques: 0 });
      // The workspace's day counts the link's clicks under its `link` value.
      const day = await s.bucket(null, 'day', DAY_START);
      expect(day).toMatchObject({ clicks: 3, uniques: 2 });
      expect(day!.counts['link  lnk_a']).toBe(3);
    });

    test('a visitor is a unique again on the next UTC day, and once per link', async () => {
      const s = await opened(engine, T + DAY);
      await s.link('lnk_a', 'a');
      await s.link('lnk_b', 'b');
      await written(s, [{ linkId: 'lnk_a', time: T }]);
      await written(s, [
        { linkId: 'lnk_a', time: T + 60_000 },
        { linkId: 'lnk_b', time: T + 60_000 },
        { linkId: 'lnk_a', time: T + DAY },
      ]);
      expect(await s.counters('lnk_a')).toMatchObject({ clicks: 3, uniques: 2 });
      expect(await s.counters('lnk_b')).toMatchObject({ clicks: 1, uniques: 1 });
      expect(await s.bucket(null, 'day', DAY_START)).toMatchObject({ clicks: 3, uniques: 2 });
      expect(await s.bucket(null, 'day', DAY_START + DAY)).toMatchObject({ clicks: 1, uniques: 1 });
    });

    test('batches add up: a bucket written twice holds both', async () => {
      const s = await opened(engine, T);
      await s.link('lnk_a', 'a');
      await written(s, [{ linkId: 'lnk_a', time: T, referrer: 'https://www.google.com/' }]);
      await written(s, [{ linkId: 'lnk_a', time: T + HOUR / 4, address: '8.8.4.4' }]);
      const hour = await s.bucket('lnk_a', 'hour', HOUR_START);
      expect(hour).toMatchObject({ clicks: 2, uniques: 2 });
      expect(hour!.counts).toMatchObject({
        'referrer  google.com': 1,
        'trafficType  search': 1,
        'trafficType  direct': 1,
      });
      expect((await s.bucket(null, 'hour', HOUR_START))!.counts['link  lnk_a']).toBe(2);
    });

    test("a deleted link's clicks are skipped, the others written", async () => {
      const s = await opened(engine, T);
      await s.link('lnk_a', 'a');
      await s.link('lnk_gone', 'gone');
      await s.deleteLink('lnk_gone');
      const outcome = await written(s, [
        { linkId: 'lnk_a', time: T },
        { linkId: 'lnk_gone', time: T },
      ]);
      expect(outcome).toMatchObject({ written: 1, skipped: 1 });
      expect(await s.rawClicks()).toBe(1);
      expect(await s.bucket(null, 'hour', HOUR_START)).toMatchObject({ clicks: 1 });
      expect((await s.bucket(null, 'hour', HOUR_START))!.counts['link  lnk_gone']).toBeUndefined();
    });
  });

  describe('a link deleted with its clicks', () => {
    test('its raw clicks and buckets go, and the workspace no longer counts it', async () => {
      const s = await opened(engine, T);
      await s.link('lnk_a', 'a');
      await s.link('lnk_b', 'b');
      await written(s, [
        { linkId: 'lnk_a', time: T },
        { linkId: 'lnk_a', time: T + 1000, address: '8.8.8.8' },
        { linkId: 'lnk_b', time: T },
        { linkId: 'lnk_b', time: T, userAgent: CURL, bot: true },
      ]);
      await s.deleteLinkWithClicks('lnk_a');
      expect(await s.rawClicks()).toBe(2);
      expect(await s.bucket('lnk_a', 'hour', HOUR_START)).toBeNull();
      for (const grain of ['hour', 'day'] as const) {
        const w = await s.bucket(null, grain, grain === 'hour' ? HOUR_START : DAY_START);
        expect(w).toMatchObject({ clicks: 1, uniques: 1 });
        expect(w!.counts['link  lnk_a']).toBeUndefined();
        expect(w!.counts['link  lnk_b']).toBe(1);
        expect(w!.counts['browser  Firefox']).toBe(1);
      }
      // Later batches count from what is left.
      await written(s, [{ linkId: 'lnk_b', time: T + 2000, address: '8.8.4.4' }]);
      expect(await s.bucket(null, 'day', DAY_START)).toMatchObject({ clicks: 2, uniques: 2 });
      expect((await s.bucket(null, 'day', DAY_START))!.counts['link  lnk_b']).toBe(2);
    });

    test('a link whose only clicks were deleted leaves no workspace bucket behind', async () => {
      const s = await opened(engine, T);
      await s.link('lnk_a', 'a');
      await written(s, [{ linkId: 'lnk_a', time: T }]);
      await s.deleteLinkWithClicks('lnk_a');
      expect(await s.bucket(null, 'hour', HOUR_START)).toBeNull();
      expect(await s.rawClicks()).toBe(0);
    });
  });
});
