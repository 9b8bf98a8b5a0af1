/**
 * No test, helper or application file runs a program through the synchronous spawn
 * (`spawnSync`, `Bun.spawnSync`, `execSync`, `execFileSync`): in a test worker Bun's can lose a
 * child's exit and then waits out the test's limit, a failure that names no cause. Tests run
 * programs through `tool` or `run` (test/helpers/proc.ts). The benchmarks (test/bench/) run
 * outside the test runner and are left to their own habits.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, sourceFiles } from './scan';

const SYNC_SPAWN = /\b(?:spawnSync|execSync|execFileSync)\s*\(/;

function uses(file: string): string[] {
  return readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .flatMap((line, i) => (SYNC_SPAWN.test(line) && !/^\s*(\*|\/\/)/.test(line) ? [`${file}:${i + 1}`] : []));
}

describe('no synchronous spawn', () => {
  test('the scan sees each form', () => {
    const seen = [
      "spawnSync('id', ['-u'])",
      "Bun.spawnSync(['zbarimg'])",
      "execSync('ls')",
      "execFileSync('git', [])",
    ].filter((line) => SYNC_SPAWN.test(line));
    expect(seen.length).toBe(4);
    expect(SYNC_SPAWN.test('Bun.spawn(["ls"])')).toBe(false);
  });

  test('src/, scripts/ and test/ (but the benchmarks) use none', () => {
    const found = sourceFiles(['src', 'scripts', 'test'])
      .filter((f) => !f.startsWith('test/bench/') && f !== 'test/architecture/no-sync-spawn.test.ts')
      .flatMap(uses);
    expect(found).toEqual([]);
  });
});
