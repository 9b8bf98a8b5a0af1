/**
 * The packed breakdown of a rollup bucket: varint (id delta, clicks) pairs in id order. Round
 * trips, the exact bytes of small cases, counts past 2^32, and the writer's dense form giving
 * the same bytes as the map form, and the fold's merge of sorted pairs into packed bytes.
 */
import { expect, test } from 'bun:test';
import {
  type Counts,
  DenseCounts,
  decodeCounts,
  encodeCounts,
  forEachCount,
  mergeCounts,
  mergeEncoded,
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

test('DenseCounts, sparse: the same bytes; a few values of high ids hold a few slots, many turn it dense', () => {
  const rand = prng(13);
  const sparse = new DenseCounts({ sparse: true });
  const mirror: Counts = new Map();
  for (let round = 0; round < 40; round++) {
    const batch: Counts = new Map();
    for (let i = 0; i < 10; i++) {
      const id = 1 + Math.floor(rand() * 200_000);
      batch.set(id, (batch.get(id) ?? 0) + 1);
    }
    const sign = round % 5 === 4 ? -1 : 1;
    sparse.merge(batch, sign);
    for (const [id, n] of batch) mirror.set(id, (mirror.get(id) ?? 0) + sign * n);
    expect(Buffer.from(sparse.encode()).equals(Buffer.from(encodeCounts(mirror)))).toBe(true);
  }
  // 400 values of ids up to 200,000: a slot each, not an array of every id.
  expect(sparse.slots).toBeLessThanOrEqual(400);
  // Many values of close ids: an array is smaller than the map, and the bytes stay the same.
  for (let id = 1; id <= 30_000; id++) {
    sparse.add(id, 1);
    mirror.set(id, (mirror.get(id) ?? 0) + 1);
  }
  expect(sparse.slots).toBeGreaterThanOrEqual(200_000);
  expect(Buffer.from(sparse.encode()).equals(Buffer.from(encodeCounts(mirror)))).toBe(true);
});

test('mergeEncoded: packed bytes plus sorted pairs give the bytes of the summed map', () => {
  const random = prng(11);
  const pairs = (m: Counts) => {
    const ids = [...m.keys()].sort((a, b) => a - b);
    return { ids: Int32Array.from(ids), counts: Int32Array.from(ids.map((id) => m.get(id)!)), size: ids.length };
  };
  const cases: [Counts, Counts][] = [
    [new Map(), new Map()],
    [new Map(), new Map([[4, 2]])],
    [new Map([[4, 2]]), new Map()],
    // Equal ids add up; ids on either side only are kept; large stored counts stay exact.
    [
      new Map([
        [1, 1],
        [9, 2 ** 40],
        [300, 5],
      ]),
      new Map([
        [2, 1],
        [9, 3],
        [70_000, 1],
      ]),
    ],
  ];
  for (let k = 0; k < 50; k++) {
    const stored: Counts = new Map();
    const added: Counts = new Map();
    for (let i = 0; i < 40; i++) stored.set(1 + Math.floor(random() * 500), 1 + Math.floor(random() * 1000));
    for (let i = 0; i < 40; i++) added.set(1 + Math.floor(random() * 500), 1 + Math.floor(random() * 3));
    cases.push([stored, added]);
  }
  for (const [stored, added] of cases) {
    const p = pairs(added);
    const merged = mergeEncoded(stored.size ? encodeCounts(stored) : null, p.ids, p.counts, p.size);
    expect([...merged]).toEqual([...encodeCounts(mergeCounts(new Map(stored), added))]);
  }
  // Only the first `n` pairs count: the fold passes scratch arrays longer than the hour.
  expect([...mergeEncoded(null, Int32Array.from([3, 8]), Int32Array.from([1, 1]), 1)]).toEqual([3, 1]);
});
