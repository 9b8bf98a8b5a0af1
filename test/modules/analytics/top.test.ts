/**
 * The breakdowns' top list: the BREAKDOWN_LIMIT entries with the most clicks, ties broken by the
 * given order. Long lists are cut by selection before sorting; the result must be exactly what a
 * full sort gives, ties at the cut included.
 */
import { expect, test } from 'bun:test';
import { BREAKDOWN_LIMIT, top } from '../../../src/modules/analytics/top';
import { prng } from '../../helpers/random';

type E = { value: string; clicks: number };
const byValue = (a: E, b: E) => (a.value === b.value ? 0 : a.value < b.value ? -1 : 1);
const fullSort = (list: E[]) =>
  [...list].sort((a, b) => b.clicks - a.clicks || byValue(a, b)).slice(0, BREAKDOWN_LIMIT);

test('equals a full sort for short and long lists, few and many distinct counts, ties at the cut', () => {
  const rand = prng(20261124);
  for (const size of [0, 1, 99, 100, 101, 400, 401, 1000, 5000, 20_000]) {
    for (const spread of [1, 3, 50, 1_000_000]) {
      const list: E[] = Array.from({ length: size }, (_, i) => ({
        value: `v${Math.floor(rand() * size * 10)}-${i}`,
        clicks: 1 + Math.floor(rand() * spread),
      }));
      const expected = fullSort(list);
      const got = top([...list], byValue);
      expect({ size, spread, got }).toEqual({ size, spread, got: expected });
    }
  }
});

test('sorted input, reversed input and every count equal', () => {
  const make = (n: number, f: (i: number) => number): E[] =>
    Array.from({ length: n }, (_, i) => ({ value: `v${String(i).padStart(5, '0')}`, clicks: f(i) }));
  for (const list of [make(3000, (i) => i + 1), make(3000, (i) => 3000 - i), make(3000, () => 7)]) {
    const got = top([...list], byValue);
    expect(got).toEqual(fullSort(list));
    expect(got).toHaveLength(BREAKDOWN_LIMIT);
  }
});
