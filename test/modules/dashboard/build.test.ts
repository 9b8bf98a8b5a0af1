/** The dashboard build's staleness check: any change to an input changes the fingerprint. */
import { afterAll, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inputsFingerprint, recordedFingerprint } from '../../../scripts/dashboard/fingerprint';

const dir = mkdtempSync(join(tmpdir(), 'slink-dash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a changed, added or renamed file, or a changed lockfile, changes the fingerprint', () => {
  mkdirSync(join(dir, 'client', 'pages'), { recursive: true });
  writeFileSync(join(dir, 'client', 'main.tsx'), 'one');
  writeFileSync(join(dir, 'bun.lock'), 'lock 1');
  const inputs = ['client', 'bun.lock', 'missing-folder'];
  const seen = new Set([inputsFingerprint(dir, inputs)]);
  expect(inputsFingerprint(dir, inputs)).toBe([...seen][0]!);
  writeFileSync(join(dir, 'client', 'main.tsx'), 'two');
  seen.add(inputsFingerprint(dir, inputs));
  writeFileSync(join(dir, 'client', 'pages', 'new.tsx'), '');
  seen.add(inputsFingerprint(dir, inputs));
  rmSync(join(dir, 'client', 'pages', 'new.tsx'));
  writeFileSync(join(dir, 'client', 'pages', 'renamed.tsx'), '');
  seen.add(inputsFingerprint(dir, inputs));
  writeFileSync(join(dir, 'bun.lock'), 'lock 2');
  seen.add(inputsFingerprint(dir, inputs));
  expect(seen.size).toBe(5);
});

test('reads the fingerprint a generated module records; none when it was never built', () => {
  const gen = join(dir, 'assets.gen.ts');
  expect(recordedFingerprint(gen)).toBeNull();
  writeFileSync(gen, "export const FINGERPRINT = '0123abcd';\n");
  expect(recordedFingerprint(gen)).toBe('0123abcd');
});
