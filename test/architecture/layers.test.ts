/**
 * The layers of docs/architecture.md, held: lib < db (and config.ts) < http < modules < the top
 * (the composition root, the entry files, the CLI). An import goes down or stays level; the few
 * that go up are named below with the reason, so a new one fails here and is either turned
 * around or argued for in this list.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT, sourceFiles } from './scan';

/** The layer of a file or import target (relative to the root); higher numbers sit higher. */
function layerOf(path: string): number {
  if (path.startsWith('src/lib/')) return 0;
  if (path.startsWith('src/db/') || path === 'src/config.ts') return 1;
  if (path.startsWith('src/http/')) return 2;
  if (path.startsWith('src/modules/')) return 3;
  return 4; // src/compose, src/cli, the entry files, and what lies outside src/ (package.json, drizzle/)
}

/** Imports that go up on purpose: [importing file, imported path] patterns, and why. */
const UPWARD: readonly { from: RegExp; to: RegExp; why: string }[] = [
  {
    from: /^src\/db\/schema\.ts$/,
    to: /^src\/modules\/[a-z]+\/table\.ts$/,
    why: "drizzle-kit's schema: every module's tables gathered for the migrations",
  },
  {
    from: /^src\/db\/migrations\.gen\.ts$/,
    to: /^drizzle\//,
    why: 'the SQLite migrations drizzle-kit wrote, embedded into the binary',
  },
  {
    from: /^src\/db\/copy-to\//,
    to: /^src\/modules\/(clicks|rollups)\/public\.ts$/,
    why: "copy-to moves the click blocks and rollups in their own format, through their modules' faces",
  },
  {
    from: /^src\/http\/(auth|app-guard)\.ts$/,
    to: /^src\/modules\/(auth|sessions)\/[a-z-]+\.ts$/,
    why: 'the API and app guards check keys and sessions with those modules’ verbs',
  },
  {
    from: /^src\/http\/(auth|app-guard|route-actions)\.ts$/,
    to: /^src\/modules\/access\/public\.ts$/,
    why: 'the guards ask the one authorisation function for the action of the route before routing',
  },
  { from: /^src\/http\/docs\.ts$/, to: /^package\.json$/, why: "the OpenAPI document's version" },
  {
    from: /^src\/modules\/mcp\/server\.ts$/,
    to: /^package\.json$/,
    why: 'the version the MCP server names in its initialize answer',
  },
];

function upwardImports(): string[] {
  const files = sourceFiles(['src']).filter((f) => !f.includes('/generated/') && !f.includes('/dashboard/client/'));
  return files.flatMap((file) =>
    [...readFileSync(join(ROOT, file), 'utf8').matchAll(/\b(?:from|import)\s*\(?\s*['"](\.[^'"]+)['"]/g)].flatMap(
      (m) => {
        let target = relative(ROOT, resolve(dirname(join(ROOT, file)), m[1]!));
        if (!/\.(ts|tsx|json)$/.test(target)) target = `${target}.ts`;
        return layerOf(target) > layerOf(file) ? [`${file} -> ${target}`] : [];
      },
    ),
  );
}

describe('layers', () => {
  const upward = upwardImports();

  test('the scan sees the upward imports that are allowed (it is not vacuous)', () => {
    expect(upward.some((line) => line.startsWith('src/db/schema.ts -> src/modules/links/table.ts'))).toBe(true);
  });

  test('no import goes up a layer but those named, each with its reason', () => {
    const unexplained = upward.filter((line) => {
      const [from, to] = line.split(' -> ') as [string, string];
      return !UPWARD.some((rule) => rule.from.test(from) && rule.to.test(to));
    });
    expect(unexplained).toEqual([]);
  });
});
