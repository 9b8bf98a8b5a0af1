/**
 * Each connection role's pragmas as SQLite reports them on a real file: the server's, the click
 * writer's and the export's connections differ on purpose (src/db/client.ts says why).
 */
import type { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applyPragmas, type ConnectionRole, openConnection, openDatabase } from '../../src/db/client';

const dir = mkdtempSync(join(tmpdir(), 'slink-pragmas-'));
const path = join(dir, 'slink.db');
// The file exists, in WAL mode, before the read-only export connection opens it.
const first = openDatabase(path);
afterAll(() => {
  first.$client.close();
  rmSync(dir, { recursive: true, force: true });
});

const NAMES = [
  'cache_size',
  'wal_autocheckpoint',
  'journal_mode',
  'busy_timeout',
  'foreign_keys',
  'synchronous',
  'journal_size_limit',
];
function pragmas(sqlite: Database): Record<string, unknown> {
  return Object.fromEntries(
    NAMES.map((name) => [name, Object.values(sqlite.query(`PRAGMA ${name}`).get() as object)[0]]),
  );
}

// cache_size in KiB when negative; wal_autocheckpoint in pages (1000 is SQLite's default);
// synchronous 1 is NORMAL, 2 FULL (SQLite's default); journal_size_limit in bytes (64 MB).
const EXPECTED: Record<ConnectionRole, Record<string, unknown>> = {
  standalone: {
    cache_size: -65536,
    wal_autocheckpoint: 1000,
    journal_mode: 'wal',
    busy_timeout: 5000,
    foreign_keys: 1,
    synchronous: 1,
    journal_size_limit: 67_108_864,
  },
  server: {
    cache_size: -8192,
    wal_autocheckpoint: 0,
    journal_mode: 'wal',
    busy_timeout: 5000,
    foreign_keys: 1,
    synchronous: 1,
    journal_size_limit: 67_108_864,
  },
  writer: {
    cache_size: -16384,
    // Checkpoints are the policy's (src/db/checkpoint.ts), run on this connection.
    wal_autocheckpoint: 0,
    journal_mode: 'wal',
    busy_timeout: 5000,
    foreign_keys: 1,
    synchronous: 1,
    journal_size_limit: 67_108_864,
  },
  export: {
    cache_size: -2000,
    wal_autocheckpoint: 1000,
    journal_mode: 'wal',
    busy_timeout: 5000,
    foreign_keys: 0,
    synchronous: 2,
    // SQLite's default: no limit (this connection never writes).
    journal_size_limit: -1,
  },
};

describe('connection pragmas', () => {
  for (const role of Object.keys(EXPECTED) as ConnectionRole[]) {
    test(`${role}`, () => {
      const sqlite = openConnection(path, role);
      try {
        expect(pragmas(sqlite)).toEqual(EXPECTED[role]);
      } finally {
        sqlite.close();
      }
    });
  }

  test('the server: standalone while it migrates and rebuilds, then its own settings', () => {
    expect(pragmas(first.$client)).toEqual(EXPECTED.standalone);
    const sqlite = openConnection(path, 'standalone');
    try {
      applyPragmas(sqlite, 'server');
      expect(pragmas(sqlite)).toEqual(EXPECTED.server);
    } finally {
      sqlite.close();
    }
  });

  test('the export connection cannot write', () => {
    const sqlite = openConnection(path, 'export');
    try {
      expect(() => sqlite.exec('CREATE TABLE t (x)')).toThrow(/readonly/);
    } finally {
      sqlite.close();
    }
  });
});
