/**
 * HeapGuard: a full collection only once the heap is past its limit, and the limit then set
 * from what the collection left, never under the floor.
 */
import { expect, test } from 'bun:test';
import { HeapGuard } from '../../src/lib/heap-guard';

/** A heap whose size the test sets; a collection leaves `live` bytes. */
function fakeHeap(live: number) {
  const heap = { bytes: live, live, collections: 0 };
  return {
    heap,
    options: {
      size: () => heap.bytes,
      collect: () => {
        heap.collections++;
        heap.bytes = heap.live;
      },
    },
  };
}

test('collects past the floor, then only once the heap has grown past growth x what the collection left', () => {
  const { heap, options } = fakeHeap(100);
  const guard = new HeapGuard({ floorBytes: 50, growth: 1.5, ...options });
  heap.bytes = 60;
  expect(guard.check()).toBe(true);
  expect(heap.bytes).toBe(100); // what stayed live
  // The limit is now 150: growth up to it is left alone.
  heap.bytes = 150;
  expect(guard.check()).toBe(false);
  heap.bytes = 151;
  expect(guard.check()).toBe(true);
  expect(guard.collections.count).toBe(2);
  expect(heap.collections).toBe(2);
});

test('the limit never falls under the floor, and a heap under it is left alone', () => {
  const { heap, options } = fakeHeap(10);
  const guard = new HeapGuard({ floorBytes: 1000, growth: 1.5, ...options });
  heap.bytes = 999;
  expect(guard.check()).toBe(false);
  heap.bytes = 1001;
  expect(guard.check()).toBe(true);
  // 10 bytes live x 1.5 is under the floor: the limit stays 1000.
  heap.bytes = 1000;
  expect(guard.check()).toBe(false);
  expect(guard.collections.count).toBe(1);
});

test('with the real heap: a floor above any heap never collects', () => {
  const guard = new HeapGuard({ floorBytes: Number.MAX_SAFE_INTEGER });
  expect(guard.check()).toBe(false);
  expect(guard.collections).toEqual({ count: 0, ms: 0 });
});

test('fixed bytes (mapped files) count in the heap but not in its growth', () => {
  const { heap, options } = fakeHeap(300);
  const guard = new HeapGuard({ floorBytes: 50, growth: 1.5, fixedBytes: 200, ...options });
  heap.bytes = 400;
  expect(guard.check()).toBe(true);
  // 300 left, 200 of them fixed: the limit is 300 + 100 x 0.5 = 350, not 300 x 1.5 = 450.
  heap.bytes = 350;
  expect(guard.check()).toBe(false);
  heap.bytes = 351;
  expect(guard.check()).toBe(true);
  expect(guard.collections.count).toBe(2);
});
