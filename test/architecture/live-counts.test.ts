/**
 * The links' live counters (`humanClicks`, `unsorted`: the slug index's typed arrays that click
 * limits are decided on) have one owner, clicks/capture/live-counts.ts: every change to them is
 * made there, so their invariant is read in one file. Elsewhere under src/ they are only read,
 * and the slug index's table only declares them and grows them (a copy, values kept).
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, sourceFiles } from './scan';

const OWNER = 'src/modules/clicks/capture/live-counts.ts';
const COUNTER = String.raw`\b(?:humanClicks|unsorted)\s*\[[^\]]*\]\s*!?`;
/** An element written: assigned, compounded, incremented or decremented (before or after). */
const ELEMENT_WRITE = new RegExp(
  String.raw`${COUNTER}\s*(?:\+\+|--|[-+*/%|&^]?=(?!=))|(?:\+\+|--)\s*[\w.]*${COUNTER.slice(2)}`,
);
/** The array itself taken into a variable or written in bulk, which would let its elements be written unseen. */
const ALIAS =
  /(?:\b(?:const|let|var)\b[^=;]*=\s*[\w.]*\.(?:humanClicks|unsorted)\s*;)|\b(?:humanClicks|unsorted)\s*\.\s*(?:fill|set|copyWithin)\s*\(/;
/** Where the table declares and grows them. */
const TABLE = 'src/modules/redirect/link-table.ts';
const TABLE_LINES = [
  /^\s*(humanClicks|unsorted) = new (Float64|Int32)Array\(0\);$/,
  /^\s*this\.(humanClicks|unsorted) = grown\(this\.\1, capacity\);$/,
];

function writes(file: string): string[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  return lines.flatMap((line, i) => {
    if (/^\s*(\*|\/\/)/.test(line)) return [];
    if (file === TABLE && TABLE_LINES.some((allowed) => allowed.test(line))) return [];
    return ELEMENT_WRITE.test(line) || ALIAS.test(line) || /\b(?:humanClicks|unsorted)\s*=[^=]/.test(line)
      ? [`${file}:${i + 1}: ${line.trim()}`]
      : [];
  });
}

describe('live counters', () => {
  test('the scan sees a write in every form it looks for', () => {
    const seen = [
      'links.humanClicks[slot]!++;',
      '++links.unsorted[slot];',
      'this.table.humanClicks[slot]! += humans;',
      'links.humanClicks[slot] = Math.max(links.humanClicks[slot]!, used);',
      'record.links.unsorted[record.slot]!--;',
      'const h = links.humanClicks;',
      'links.unsorted.fill(0);',
    ].filter((line) => ELEMENT_WRITE.test(line) || ALIAS.test(line));
    expect(seen.length).toBe(7);
    expect(ELEMENT_WRITE.test('if (links.humanClicks[slot]! >= limit) return;')).toBe(false);
    expect(ELEMENT_WRITE.test('counters: { humanClicks: t.humanClicks[slot]!, unsorted: t.unsorted[slot]! },')).toBe(
      false,
    );
  });

  test('only their owner writes them', () => {
    const found = sourceFiles(['src'])
      .filter((f) => f !== OWNER)
      .flatMap(writes);
    expect(found).toEqual([]);
    // The owner does (the scan is not blind to it).
    expect(writes(OWNER).length).toBeGreaterThanOrEqual(6);
  });
});
