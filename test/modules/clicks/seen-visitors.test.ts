/**
 * The writer's in-memory seen visitors: the typed-array set keeps every key through its
 * growth, and a batch's first visits count only once its transaction commits.
 */
import { describe, expect, test } from 'bun:test';
import { SeenVisitors } from '../../../src/modules/clicks/sqlite/seen-visitors';
import { U64Set } from '../../../src/modules/clicks/sqlite/u64-set';

describe('U64Set', () => {
  test('holds 100,000 keys through its growth, tells them from absent ones, and adds each once', () => {
    const set = new U64Set(16);
    for (let i = 0; i < 100_000; i++) expect(set.add(i * 2654435761, ~i)).toBe(true);
    expect(set.size).toBe(100_000);
    for (let i = 0; i < 100_000; i++) {
      expect(set.has(i * 2654435761, ~i)).toBe(true);
      expect(set.has(i * 2654435761, i + 1)).toBe(false);
    }
    expect(set.add(5 * 2654435761, ~5)).toBe(false);
    // The all-zero key (the empty slot's) is a key like any other.
    expect(set.has(0, 0)).toBe(false);
    expect(set.add(0, 0)).toBe(true);
    expect(set.has(0, 0)).toBe(true);
    set.clear();
    expect(set.size).toBe(0);
    expect(set.has(7 * 2654435761, ~7)).toBe(false);
  });
});

describe('SeenVisitors', () => {
  const V = '0123456789abcdef';
  test('a first visit per (link, visitor) and day; a rolled-back batch leaves its visitors unseen', () => {
    const seen = new SeenVisitors();
    expect(seen.firstVisit(1, 'lnk_a', V)).toBe(true);
    expect(seen.firstVisit(1, 'lnk_a', V)).toBe(false); // again in the same batch
    expect(seen.firstVisit(1, 'lnk_b', V)).toBe(true); // another link
    seen.rollback();
    expect(seen.firstVisit(1, 'lnk_a', V)).toBe(true);
    seen.commit();
    expect(seen.firstVisit(1, 'lnk_a', V)).toBe(false);
    expect(seen.firstVisit(2, 'lnk_b', 'fedcba9876543210')).toBe(true);
    seen.commit();
    expect(seen.size).toBe(2);
    seen.forgetBefore(2);
    expect(seen.size).toBe(1);
    seen.remember(2, 'lnk_c', V);
    expect(seen.firstVisit(2, 'lnk_c', V)).toBe(false);
  });
});
