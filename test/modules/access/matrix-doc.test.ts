/**
 * docs/behaviour.md publishes the authorisation matrix ("Who may do what") as
 * scripts/matrix-doc.ts generates it from access/matrix.ts and http/route-actions.ts: a change to
 * either that the doc does not follow fails here (regenerate with `bun run scripts/matrix-doc.ts --write`).
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { CALLER_KINDS, DOC, matrixMarkdown, publishedMatrix } from '../../../scripts/matrix-doc';
import { ACTIONS } from '../../../src/modules/access/public';

describe('the published matrix', () => {
  test('docs/behaviour.md holds the generated table, exactly', () => {
    const published = publishedMatrix(readFileSync(DOC, 'utf8'));
    expect(published).not.toBeNull();
    expect(published).toBe(matrixMarkdown());
  });

  test('a row per action and a column per kind of caller', () => {
    const rows = matrixMarkdown().split('\n\n')[0]!.split('\n');
    expect(rows).toHaveLength(ACTIONS.length + 2);
    for (const row of rows) expect(row.split('|')).toHaveLength(CALLER_KINDS.length + 3);
  });

  test('a change to the matrix shows as a difference', () => {
    const doc = readFileSync(DOC, 'utf8');
    const changed = doc.replace('| `me.read` | allowed', '| `me.read` | 403 `insufficient_scope`');
    expect(changed).not.toBe(doc);
    expect(publishedMatrix(changed)).not.toBe(matrixMarkdown());
  });
});
