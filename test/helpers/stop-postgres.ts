/**
 * Preloaded by `bun test` (bunfig.toml): stops and removes the PostgreSQL cluster the tests
 * started (helpers/postgres.ts), after the last test, since `bun test` runs no 'exit' listeners.
 */
import { afterAll } from 'bun:test';
import { stopTestCluster } from './postgres';

afterAll(stopTestCluster);
