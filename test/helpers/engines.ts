/**
 * Both storage engines for the behavioural tests: `forEachEngine` declares a file's tests once
 * per engine (SQLite, and a real PostgreSQL server the tests start themselves: postgres.ts), so
 * every behaviour is held on both. Tests of one engine's internals stay out of it.
 */
import { describe } from 'bun:test';
import type { Engine } from '../../src/stores';

export const ENGINES: readonly Engine[] = ['sqlite', 'postgres'];

/** Declares `tests` once per engine, in a describe block named after it. */
export function forEachEngine(tests: (engine: Engine) => void): void {
  for (const engine of ENGINES) describe(engine, () => tests(engine));
}
