/**
 * When a failed delivery is tried again (docs/behaviour.md, "Webhooks"): growing delays, with
 * jitter so that the deliveries of one outage do not all come back at the same second, until
 * at least 24 hours have passed since the first attempt; the attempt after that is the last.
 */

/** Delays after the 1st, 2nd, ... failed attempt; the last one repeats. */
const DELAYS_MS = [
  5_000,
  30_000,
  2 * 60_000,
  10 * 60_000,
  30 * 60_000,
  60 * 60_000,
  2 * 3_600_000,
  4 * 3_600_000,
  8 * 3_600_000,
] as const;

/** How long a delivery keeps being retried, from its first attempt. */
export const RETRY_FOR_MS = 24 * 3_600_000;

/**
 * The time of the next attempt after `attempts` failed ones (1 = the first failed), the first
 * having been made at `firstAt`; null when the delivery is given up. `random` in [0, 1) spreads
 * each delay over ±10%.
 */
export function nextAttemptAt(attempts: number, firstAt: number, now: number, random: () => number): number | null {
  if (now - firstAt >= RETRY_FOR_MS) return null;
  const base = DELAYS_MS[Math.min(attempts, DELAYS_MS.length) - 1]!;
  const next = now + Math.round(base * (0.9 + 0.2 * random()));
  // The last attempt falls at the end of the 24 hours, not beyond them by a whole delay.
  return Math.min(next, firstAt + RETRY_FOR_MS);
}
