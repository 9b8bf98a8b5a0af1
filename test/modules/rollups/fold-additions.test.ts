/**
 * The PostgreSQL fold's additions built in typed arrays (rollups/postgres/additions.ts) write
 * byte for byte the buckets the Map-based build wrote (fold-additions-support.ts keeps it): the
 * same keys in the same order, clicks, uniques and packed breakdowns, for links' hours and late
 * days and the workspace's hours and days, merged into stored rows and into none, bots and
 * humans, imported counts with no breakdown, and one FoldAdditions reused fold after fold.
 */
import { expect, test } from 'bun:test';
import { PendingSums } from '../../../src/modules/rollups/pending';
import { FoldAdditions } from '../../../src/modules/rollups/postgres/additions';
import { encodeCounts } from '../../../src/modules/rollups/rollup-codec';
import { prng } from '../../helpers/random';
import { mapBuckets, type StoredRow, typedBuckets } from './fold-additions-support';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const TODAY = Date.UTC(2026, 10, 22);

/** A fold's pending sums: `clicks` clicks over `links` links and four days up to today's hours. */
function fold(random: () => number, links: number, clicks: number): PendingSums {
  const pending = new PendingSums();
  const pick = (n: number) => Math.floor(random() * n);
  for (let i = 0; i < clicks; i++) {
    const link = pick(links);
    const time = TODAY - 3 * DAY + pick(4 * DAY);
    const ids = new Set<number>();
    for (let k = pick(12); k > 0; k--) ids.add(1 + pick(400));
    const bot = random() < 0.2;
    const variantId = random() < 0.1 ? `v${pick(3)}` : null;
    pending.add({ linkId: `l${link}`, time, bot, variantId }, random() < 0.4, [...ids], 1000 + link);
    if (random() < 0.02) pending.addCount(`l${link}`, 1000 + link, TODAY - pick(3) * DAY, 1 + pick(50));
  }
  return pending;
}

/** A stored row for about half the keys the fold touches (workspace ones among them). */
function storedRows(random: () => number, keys: readonly string[]): Map<string, StoredRow> {
  const stored = new Map<string, StoredRow>();
  for (const key of keys) {
    if (random() < 0.5) continue;
    const counts = new Map<number, number>();
    for (let k = Math.floor(random() * 20); k > 0; k--)
      counts.set(1 + Math.floor(random() * 1500), 1 + Math.floor(random() * 9));
    stored.set(key, { clicks: 50, uniques: 7, data: random() < 0.1 ? new Uint8Array(0) : encodeCounts(counts) });
  }
  return stored;
}

test('the typed-array additions write the same buckets, byte for byte, as the Map-based build', () => {
  const random = prng(47);
  const additions = new FoldAdditions();
  for (const [links, clicks] of [
    [30, 400],
    [2000, 5000],
    [5, 3],
    [500, 8000],
  ] as const) {
    const pending = fold(random, links, clicks);
    // Some links skipped (deleted meanwhile), as the fold's `kept` leaves them out.
    const slots = pending.linksInOrder().filter(() => random() < 0.95);
    // Marks: none yet (every day from hours), today (hours only), or yesterday.
    const marks = new Map(
      slots.map((slot) => [pending.linkValue(slot), [0, TODAY, TODAY - DAY][Math.floor(random() * 3)]!]),
    );
    const bare = mapBuckets(pending, slots, marks, new Map());
    const stored = storedRows(
      random,
      bare.map((r) => r.key),
    );
    for (const rows of [new Map<string, StoredRow>(), stored]) {
      const before = mapBuckets(pending, slots, marks, rows);
      const after = typedBuckets(additions, pending, slots, marks, rows);
      expect(after.length).toBe(before.length);
      expect(after.map((r) => r.key)).toEqual(before.map((r) => r.key));
      expect(after.map((r) => [r.clicks, r.uniques])).toEqual(before.map((r) => [r.clicks, r.uniques]));
      expect(after.map((r) => Buffer.from(r.data).toString('hex'))).toEqual(
        before.map((r) => Buffer.from(r.data).toString('hex')),
      );
    }
    expect(bare.some((r) => r.key.startsWith('0|1|'))).toBe(true);
    if (clicks > 100) expect(bare.some((r) => /^[1-9]\d*\|1\|/.test(r.key))).toBe(true);
  }
  // Nothing to add: no rows.
  expect(typedBuckets(additions, new PendingSums(), [], new Map(), new Map())).toEqual([]);
});
