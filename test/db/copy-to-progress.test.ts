/** `slink copy-to`'s progress lines (docs/operations.md, "Moving to PostgreSQL"): at most one a second, the first at once. */
import { expect, test } from 'bun:test';
import { CopyProgress } from '../../src/db/copy-to/progress';

test('prints the table, rows and percentage at most once a second, the first line at once', () => {
  const lines: string[] = [];
  let now = 0;
  const bar = new CopyProgress(
    (line) => lines.push(line),
    () => now,
  );
  bar.begin('links', 200);
  now = 400;
  bar.advance(50);
  bar.begin('rollups', 1000, 100);
  now = 1000;
  bar.advance(150);
  now = 1500;
  bar.advance(700);
  now = 2001;
  bar.advance(1);
  expect(lines).toEqual([
    'copy-to: links 0/200 rows (0%)',
    'copy-to: rollups 250/1000 rows (25%)',
    'copy-to: rollups 951/1000 rows (95%)',
  ]);
});
