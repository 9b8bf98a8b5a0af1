/**
 * What every screenshot script writes: into the folder given as its first argument (default
 * docs/screenshots), at 1280 px wide in light and dark and at 375 px in light.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/proc';

export const SIZES = [
  { width: 1280, colorScheme: 'light' },
  { width: 1280, colorScheme: 'dark' },
  { width: 375, colorScheme: 'light' },
] as const;

/** The output folder from argv, made if missing. */
export function screenshotDir(): string {
  const dir = process.argv[2] ?? join(ROOT, 'docs', 'screenshots');
  mkdirSync(dir, { recursive: true });
  return dir;
}
