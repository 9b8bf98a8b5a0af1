/** The retry schedule: growing delays, jittered, for at least 24 hours from the first attempt, then given up. */
import { describe, expect, test } from 'bun:test';
import { nextAttemptAt, RETRY_FOR_MS } from '../../../src/modules/webhooks/retry';

const HOUR = 3_600_000;

describe('nextAttemptAt', () => {
  test('delays grow from 5 s to 8 h (without jitter at its middle)', () => {
    const delays = Array.from({ length: 10 }, (_, i) => nextAttemptAt(i + 1, 0, 0, () => 0.5)!);
    expect(delays).toEqual([5_000, 30_000, 120_000, 600_000, 1_800_000, HOUR, 2 * HOUR, 4 * HOUR, 8 * HOUR, 8 * HOUR]);
  });

  test('jitter spreads a delay over ±10%', () => {
    expect(nextAttemptAt(2, 0, 0, () => 0)).toBe(27_000);
    expect(nextAttemptAt(2, 0, 0, () => 0.999999)).toBe(33_000);
  });

  test('a failing receiver is tried for 24 hours: the last attempt at the end of them, then given up', () => {
    let now = 0;
    let attempts = 0;
    const times: number[] = [];
    for (;;) {
      attempts++;
      const next = nextAttemptAt(attempts, 0, now, () => 0.5);
      if (next === null) break;
      now = next;
      times.push(now);
    }
    expect(times.at(-1)).toBe(RETRY_FOR_MS);
    expect(times.every((t, i) => i === 0 || t > times[i - 1]!)).toBe(true);
    // The first attempt, then after 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h
    // (23 h 43 min in), and at the end of the 24 hours.
    expect(attempts).toBe(12);
  });
});
