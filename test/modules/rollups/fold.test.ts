/**
 * The fold, with a SqliteClickWriter driven directly on the test app's SQLite file: batches append
 * raw clicks only, counters and statistics follow at the fold; a writer that dies with sums in
 * memory (dropped without a fold, as kill -9 would) loses nothing, because the next one folds
 * the clicks after the watermark when it opens; a link deleted while its clicks wait for the
 * fold never reaches the workspace's statistics.
 */
import { describe, expect, test } from 'bun:test';
import { OPERATOR } from '../../../src/modules/access/public';
import type { WireClick } from '../../../src/modules/clicks/capture/record';
import { noGeo } from '../../../src/modules/clicks/enrich/geo';
import { SqliteClickWriter } from '../../../src/modules/clicks/sqlite/store';
import { deleteLinkWithClicks } from '../../../src/modules/links/delete-with-clicks';
import { RollupStore } from '../../../src/modules/rollups/sqlite/bucket-store';
import { disposeTestApp, T0, type TestApp } from '../../helpers/app';
import {
  type Ctx,
  createLink,
  createVariant,
  DAY,
  expectBucketsMatchRawClicks,
  HOUR,
  one,
  readBuckets,
  rows,
  setup,
  UA,
} from '../clicks/support';

const AGENTS = [UA.chromeWin, UA.safariIphone, UA.firefoxLinux, UA.googlebot, UA.curl];

/** A store that folds only when told (no fold inside a drain, whatever the machine's speed). */
function manualStore(t: TestApp): SqliteClickWriter {
  return new SqliteClickWriter(t.deps.db.$client, noGeo, ['sl.test'], t.clock, { foldMaxClicks: 1e9, foldMaxMs: 1e9 });
}

interface Target {
  linkId: string;
  variantId?: string;
  code?: string;
}

/** `n` clicks spread over the targets, from `time` on, every 7th address new, the rest from a pool of 5. */
function wires(targets: Target[], n: number, time: number, seed = 0): WireClick[] {
  return Array.from({ length: n }, (_, i) => {
    const k = i + seed;
    const target = targets[k % targets.length]!;
    return {
      time: time + i * 60_000,
      linkId: target.linkId,
      variantId: target.variantId ?? null,
      code: target.code ?? null,
      location: 'https://example.com/landing',
      paramsJson: k % 3 === 0 ? '{"utm_source":"news"}' : '{}',
      address: k % 7 === 0 ? `198.51.100.${k % 250}` : `192.0.2.${k % 5}`,
      userAgent: AGENTS[k % AGENTS.length]!,
      referrer: k % 4 === 0 ? 'https://www.google.com/' : null,
      acceptLanguage: 'en',
      bot: AGENTS[k % AGENTS.length] === UA.googlebot || AGENTS[k % AGENTS.length] === UA.curl,
    };
  });
}

/** The link's counters as the raw clicks say they must be. */
function rawCounters(t: TestApp, linkId: string) {
  return one(
    t,
    `SELECT coalesce(sum(bot = 0), 0) AS clicks, coalesce(sum(bot = 1), 0) AS bots,
            coalesce(sum(first_of_day), 0) AS uniques, max(CASE WHEN bot = 0 THEN timestamp END) AS last_clicked_at
     FROM raw_clicks WHERE link_id = ?`,
    linkId,
  );
}

function storedCounters(t: TestApp, linkId: string) {
  return one(t, 'SELECT clicks, bots, uniques, last_clicked_at FROM link_counters WHERE link_id = ?', linkId);
}

function variantCounts(t: TestApp) {
  return {
    stored: rows(t, 'SELECT id, click_count AS n FROM variants ORDER BY id'),
    raw: rows(
      t,
      `SELECT v.id, (SELECT count(*) FROM raw_clicks c WHERE c.variant_id = v.id AND c.bot = 0) AS n
       FROM variants v ORDER BY v.id`,
    ),
  };
}

const foldedThrough = (t: TestApp) => one(t, "SELECT value FROM click_state WHERE name = 'folded_through'").value;
const lastId = (t: TestApp) => one(t, 'SELECT max(id) AS id FROM raw_clicks').id;

async function twoLinks(c: Ctx) {
  const a = await createLink(c, { slug: 'fold-a', params: { ref: 'x' } });
  const b = await createLink(c, { slug: 'fold-b' });
  const v = await createVariant(c, a.id, { code: 'v', params: { utm_medium: 'social' } });
  const targets: Target[] = [{ linkId: a.id }, { linkId: a.id, variantId: v.id, code: 'v' }, { linkId: b.id }];
  return { a, b, v, targets };
}

describe('the fold', () => {
  test('a batch appends raw clicks only; the fold brings counters, variants and statistics to them, and the watermark', async () => {
    const c = await setup();
    const { t } = c;
    const { a, b, targets } = await twoLinks(c);
    const store = manualStore(t);
    expect(store.writeBatch(wires(targets, 40, T0))).toMatchObject({ written: 40, skipped: 0 });
    expect(store.unfolded).toBe(40);
    expect(one(t, 'SELECT count(*) AS n FROM raw_clicks').n).toBe(40);
    expect(storedCounters(t, a.id)).toEqual({ clicks: 0, bots: 0, uniques: 0, last_clicked_at: null });
    expect(readBuckets(t).totals).toEqual([]);
    expect(foldedThrough(t)).toBe(0);

    expect(store.fold()).toBe(40);
    expect(store.unfolded).toBe(0);
    expect(store.fold()).toBe(0); // nothing left
    for (const link of [a, b]) expect(storedCounters(t, link.id)).toEqual(rawCounters(t, link.id));
    const variants = variantCounts(t);
    expect(variants.stored).toEqual(variants.raw);
    expect(variants.raw[0].n).toBeGreaterThan(0);
    expectBucketsMatchRawClicks(t);
    expect(foldedThrough(t)).toBe(lastId(t));
    await disposeTestApp(t);
  });

  test('a long drain folds by itself once the sums hold FOLD_MAX_CLICKS clicks', async () => {
    const c = await setup();
    const { t } = c;
    const { a, targets } = await twoLinks(c);
    const store = new SqliteClickWriter(t.deps.db.$client, noGeo, ['sl.test'], t.clock, {
      foldMaxClicks: 25,
      foldMaxMs: 1e9,
    });
    store.writeBatch(wires(targets, 20, T0));
    expect(store.unfolded).toBe(20);
    store.writeBatch(wires(targets, 20, T0 + HOUR, 20));
    expect(store.unfolded).toBe(0);
    expect(storedCounters(t, a.id)).toEqual(rawCounters(t, a.id));
    expectBucketsMatchRawClicks(t);
    await disposeTestApp(t);
  });
});

describe("the workspace's buckets in a fold", () => {
  test('a bucket an import adds a few clicks to holds those values, not a slot for every value id', async () => {
    const c = await setup();
    const { t } = c;
    // A fold of a year of imported history touches thousands of such buckets, each counting a
    // few links' values, whose ids go up to the number of links imported.
    const store = new RollupStore(t.deps.db.$client, { cacheWorkspace: true });
    const w = store.workspace('hour', T0 - 300 * DAY, false);
    w.counts.add(150_000, 1);
    w.counts.add(3, 1);
    expect(w.counts.slots).toBeLessThanOrEqual(2);
    await disposeTestApp(t);
  });
});

describe('a writer killed before its fold', () => {
  test('the next writer to open folds the clicks after the watermark: counters, variants and statistics equal the raw clicks', async () => {
    const c = await setup();
    const { t } = c;
    const { a, b, targets } = await twoLinks(c);
    const first = manualStore(t);
    first.writeBatch(wires(targets, 30, T0));
    first.fold();
    const watermark = foldedThrough(t);
    expect(watermark).toBe(30);
    // Two more batches, across midnight, written and never folded: the process dies here.
    first.writeBatch(wires(targets, 30, T0 + 11 * HOUR, 30));
    first.writeBatch(wires(targets, 30, T0 + 13 * HOUR, 60));
    expect(first.unfolded).toBe(60);
    expect(one(t, 'SELECT count(*) AS n FROM raw_clicks').n).toBe(90);
    expect(storedCounters(t, a.id)).not.toEqual(rawCounters(t, a.id));
    expect(foldedThrough(t)).toBe(watermark);

    const second = manualStore(t);
    expect(second.refolded).toBe(60);
    expect(foldedThrough(t)).toBe(90);
    for (const link of [a, b]) expect(storedCounters(t, link.id)).toEqual(rawCounters(t, link.id));
    const variants = variantCounts(t);
    expect(variants.stored).toEqual(variants.raw);
    expectBucketsMatchRawClicks(t);

    // It knows the visitors the dead writer saw today: the same ones are no new uniques.
    const again = wires(targets, 30, T0 + 14 * HOUR, 60);
    second.writeBatch(again);
    second.fold();
    const fresh = rows(t, 'SELECT first_of_day FROM raw_clicks WHERE id > 90').filter((r) => r.first_of_day === 1);
    expect(fresh).toEqual([]);
    for (const link of [a, b]) expect(storedCounters(t, link.id)).toEqual(rawCounters(t, link.id));
    expectBucketsMatchRawClicks(t);

    // A third open finds nothing to fold.
    expect(manualStore(t).refolded).toBe(0);
    await disposeTestApp(t);
  });
});

describe('a link deleted while its clicks wait for the fold', () => {
  test('its folded buckets leave the workspace with it, its pending sums never reach it', async () => {
    const c = await setup();
    const { t } = c;
    const keep = await createLink(c, { slug: 'keep' });
    const gone = await createLink(c, { slug: 'gone', params: { utm_source: 'only-gone' } });
    const targets: Target[] = [{ linkId: keep.id }, { linkId: gone.id }];
    const store = manualStore(t);
    // Folded clicks of both links, then more of both written and not folded yet.
    store.writeBatch(wires(targets, 20, T0));
    store.fold();
    store.writeBatch(wires(targets, 20, T0 + 2 * HOUR, 20));
    expect(store.unfolded).toBe(20);

    await deleteLinkWithClicks(t.deps, OPERATOR, gone.id, 'gone');
    expect(one(t, 'SELECT count(*) AS n FROM raw_clicks WHERE link_id = ?', gone.id).n).toBe(0);
    expect(store.fold()).toBe(20);

    // The workspace counts exactly the remaining link's raw clicks.
    const buckets = expectBucketsMatchRawClicks(t);
    expect(new Set(buckets.totals.map((b) => b.scope))).toEqual(new Set([keep.id, '']));
    expect(buckets.rows.some((r) => r.value === gone.id || r.value === 'only-gone')).toBe(false);
    expect(storedCounters(t, keep.id)).toEqual(rawCounters(t, keep.id));
    // The watermark is the last click folded, though that click has gone with its link.
    expect(foldedThrough(t)).toBe(40);
    expect(lastId(t)).toBeLessThan(40);
    await disposeTestApp(t);
  });
});
