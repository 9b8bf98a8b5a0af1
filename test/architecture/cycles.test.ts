/**
 * No import cycle in src/, type-only imports included: the house is a graph that goes one way
 * (lib < db < http < modules < the composition root, docs/architecture.md), so any file can be
 * read, tested and moved knowing only what is below it. dpdm parses the imports with the
 * TypeScript parser; the bundler's generated dashboard chunks are not source and are skipped.
 */
import { describe, expect, test } from 'bun:test';
import { relative } from 'node:path';
import { parseCircular, parseDependencyTree } from 'dpdm';
import { ROOT } from './scan';

/** ~1.5 s of CPU for the ~500 files; the wall time on a loaded box is several times that. */
const PARSE_TIMEOUT_MS = 60_000;

async function cyclesIn(pattern: string): Promise<string[]> {
  const tree = await parseDependencyTree(pattern, {
    context: ROOT,
    // Type-only imports are kept (transform: false): a cycle of types is a cycle of knowledge.
    transform: false,
    exclude: /node_modules|\/generated\//,
    tsconfig: `${ROOT}/tsconfig.json`,
  });
  expect(Object.keys(tree).length).toBeGreaterThan(0);
  return parseCircular(tree).map((cycle) => cycle.map((file) => relative(ROOT, file)).join(' -> '));
}

describe('import cycles', () => {
  test(
    'src/ has none',
    async () => {
      expect(await cyclesIn(`${ROOT}/src/**/*.{ts,tsx}`)).toEqual([]);
    },
    PARSE_TIMEOUT_MS,
  );

  test(
    'the check sees a cycle of type-only imports',
    async () => {
      expect(await cyclesIn(`${ROOT}/test/architecture/fixtures/cycle/*.ts`)).toEqual([
        'test/architecture/fixtures/cycle/a.ts -> test/architecture/fixtures/cycle/b.ts',
      ]);
    },
    PARSE_TIMEOUT_MS,
  );
});
