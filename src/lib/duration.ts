/** Durations for `--expires-in`: a whole number and a unit, s, m, h or d. */
import { DAY_MS, HOUR_MS } from './time';

const UNIT_MS = { s: 1_000, m: 60_000, h: HOUR_MS, d: DAY_MS } as const;

/**
 * @example parseDuration('15m') // 900000
 * @returns milliseconds, or null when the text is not a duration
 */
export function parseDuration(text: string): number | null {
  const match = /^(\d{1,9})([smhd])$/.exec(text.trim());
  if (!match) return null;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return ms > 0 ? ms : null;
}
