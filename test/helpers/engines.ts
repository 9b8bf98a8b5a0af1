/**
 * Both storage engines for the behavioural tests: `forEachEngine` declares a file's tests once
 * per engine (SQLite, and a real PostgreSQL server the tests start themselves: postgres.ts), so
 * every behaviour is held on both. Tests of one engine's internals stay out of it.
 */
import { describe, test } from 'bun:test';
import type { Engine } from '../../src/db/address';
import { freshPostgresUrl } from './postgres';

export const ENGINES: readonly Engine[] = ['sqlite', 'postgres'];

/** Declares `tests` once per engine, in a describe block named after it. */
export function forEachEngine(tests: (engine: Engine) => void): void {
  for (const engine of ENGINES) describe(engine, () => tests(engine));
}

/** What `test` takes: a name, the test, and an optional timeout. */
type DeclareTest = (name: string, fn: () => Promise<unknown> | unknown, timeout?: number) => void;

/**
 * Inside forEachEngine: `test` on SQLite, nothing on PostgreSQL. For the tests whose behaviour
 * the store does not decide (request validation, rendering, headers, paging arithmetic): they
 * run once, and the file keeps plain `test`s on both engines for what its store reads and writes.
 */
export function engineBlind(engine: Engine): DeclareTest {
  return engine === 'sqlite' ? (name, fn, timeout) => test(name, fn as () => Promise<unknown>, timeout) : () => {};
}

/**
 * What a spawned `slink` (the CLI, `serve`, dist/slink) needs in its environment to use a fresh
 * database of `engine`: nothing for SQLite (SLINK_DB or its default), SLINK_DATABASE_URL naming a
 * new database of the tests' PostgreSQL server for PostgreSQL.
 */
export async function databaseEnv(engine: Engine): Promise<Record<string, string>> {
  return engine === 'postgres' ? { SLINK_DATABASE_URL: await freshPostgresUrl() } : {};
}
