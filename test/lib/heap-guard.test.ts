/**
 * HeapGuard: a full collection only once the heap is past its limit, and the limit then set
 * from what the collection left.
 */
import { heapSize } from 'bun:jsc';
import { expect, test } from 'bun:test';
import { HeapGuard } from '../../src/lib/heap-guard';

/** Allocates garbage until the heap holds at least `bytes`. */
function litter(bytes: number): void {
  let junk: unknown[] | null = [];
  while (heapSize() < bytes) junk.push({ filler: `${'x'.repeat(64)}${junk.length}` });
  junk = null;
}

test('collects when the heap is over the floor, then not again until it has grown past 1.5x what remained', () => {
  const floor = 1024 * 1024;
  const guard = new HeapGuard(floor, 1.5);
  litter(4 * floor);
  expect(guard.check()).toBe(true);
  expect(guard.collections.count).toBe(1);
  // Right after a collection the heap is at its live size, under the new limit.
  expect(guard.check()).toBe(false);
  expect(guard.collections.count).toBe(1);
  litter(Math.max(2 * heapSize(), 4 * floor));
  expect(guard.check()).toBe(true);
  expect(guard.collections.count).toBe(2);
});

test('never below the floor: a heap smaller than it is left alone', () => {
  const guard = new HeapGuard(Number.MAX_SAFE_INTEGER);
  litter(1024 * 1024);
  expect(guard.check()).toBe(false);
  expect(guard.collections).toEqual({ count: 0, ms: 0 });
});
