/**
 * Preloaded by `bun test` (bunfig.toml): stops and removes the PostgreSQL cluster the tests
 * started (helpers/postgres.ts), after the last test, since `bun test` runs no 'exit' listeners.
 * Under --parallel a preload's afterAll runs after every file, and the worker's next file uses
 * the same cluster: there the watchdog helpers/postgres.ts starts stops it once the worker is gone.
 */
import { afterAll } from 'bun:test';
import { stopTestCluster } from './postgres';

if (process.env.BUN_TEST_WORKER_ID === undefined) afterAll(stopTestCluster);
