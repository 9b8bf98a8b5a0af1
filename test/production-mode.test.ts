/**
 * The service runs Elysia in production mode (src/production-mode.ts): set before Elysia is first
 * imported, by the entry point that `bun run start` and dist/slink both run.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { BUN, cleanEnv, ROOT, run } from './helpers/proc';

/** What Elysia decided, in a fresh process that first imports `first` (or nothing). */
async function elysiaMode(first: string | null): Promise<string> {
  const script = `${first ? `await import(${JSON.stringify(first)});` : ''}
    const { isProduction } = await import('elysia/error');
    console.log(isProduction ? 'production' : 'development');`;
  const env = cleanEnv();
  delete env.NODE_ENV;
  const result = await run([BUN, '-e', script], { env });
  expect(result.stderr).toBe('');
  return result.stdout.trim();
}

describe('production mode', () => {
  test('Elysia is in development mode by default and in production mode after src/production-mode', async () => {
    expect(await elysiaMode(null)).toBe('development');
    expect(await elysiaMode(`${ROOT}/src/production-mode.ts`)).toBe('production');
  });

  test('the entry point imports it before anything else', () => {
    const source = readFileSync(`${ROOT}/src/index.ts`, 'utf8');
    const imports = [...source.matchAll(/^import\s+(?:[^'"]*from\s+)?'([^']+)';/gm)].map((m) => m[1]);
    expect(imports[0]).toBe('./production-mode');
  });
});
