/**
 * The packed breakdown of a rollup bucket: varint (id delta, clicks) pairs in id order. Round
 * trips, the exact bytes of small cases, counts past 2^32, and the writer's dense form giving
 * the same bytes as the map form.
 */
import { expect, test } from 'bun:test';
import {
  type Counts,
  DenseCounts,
  decodeCounts,
  encodeCounts,
  forEachCount,
} from '../../../src/modules/rollups/rollup-codec';
import { prng } from '../../helpers/random';

test('small cases, byte for byte: ids in order as deltas, zero and negative counts dropped', () => {
  expect([...encodeCounts(new Map())]).toEqual([]);
  expect([...encodeCounts(new Map([[5, 1]]))]).toEqual([5, 1]);
  // Written in id order whatever the map's order; 300 = 0b10_0101100 takes two bytes.
  expect([
    ...encodeCounts(
      new Map([
        [9, 2],
        [3, 300],
        [4, 0],
        [7, -1],
      ]),
    ),
  ]).toEqual([3, 0xac, 0x02, 6, 2]);
});

test('round trips: random maps, large ids and counts up to 2^53 - 1', () => {
  const rand = prng(7);
  for (let round = 0; round < 200; round++) {
    const counts: Counts = new Map();
    const n = Math.floor(rand() * 300);
    for (let i = 0; i < n; i++) {
      const id = 1 + Math.floor(rand() * (round % 2 ? 5_000_000 : 2_000));
      const big = rand() < 0.05;
      counts.set(id, big ? Math.floor(rand() * Number.MAX_SAFE_INTEGER) + 1 : 1 + Math.floor(rand() * 1000));
    }
    const blob = encodeCounts(counts);
    expect(new Map([...decodeCounts(blob)].sort((a, b) => a[0] - b[0]))).toEqual(
      new Map([...counts].sort((a, b) => a[0] - b[0])),
    );
    const seen: number[] = [];
    forEachCount(blob, (id) => seen.push(id));
    expect(seen).toEqual([...counts.keys()].sort((a, b) => a - b));
  }
  expect(decodeCounts(encodeCounts(new Map([[1, 2 ** 40]])))).toEqual(new Map([[1, 2 ** 40]]));
  expect(decodeCounts(encodeCounts(new Map([[2 ** 31, Number.MAX_SAFE_INTEGER]])))).toEqual(
    new Map([[2 ** 31, Number.MAX_SAFE_INTEGER]]),
  );
});

test('DenseCounts: merging adds and takes away, grows past its size, encodes as encodeCounts does', () => {
  const rand = prng(11);
  const dense = DenseCounts.fromBlob(encodeCounts(new Map([[2, 5]])));
  const mirror: Counts = new Map([[2, 5]]);
  for (let round = 0; round < 50; round++) {
    const batch: Counts = new Map();
    for (let i = 0; i < 40; i++) {
      const id = 1 + Math.floor(rand() * 20_000);
      batch.set(id, (batch.get(id) ?? 0) + 1);
    }
    const sign = round % 5 === 4 ? -1 : 1;
    dense.merge(batch, sign);
    for (const [id, n] of batch) mirror.set(id, (mirror.get(id) ?? 0) + sign * n);
    expect(Buffer.from(dense.encode()).equals(Buffer.from(encodeCounts(mirror)))).toBe(true);
  }
  dense.clear();
  expect([...dense.encode()]).toEqual([]);
});
