/**
 * The WAL stays bounded (docs/operations.md, "Backups"; db/client.ts): the click writer's
 * connection cuts the -wal file back to WAL_SIZE_LIMIT after a checkpoint, and the writer
 * truncates it to nothing once it has been idle (no batch for IDLE_CHECKPOINT_MS) after writing.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, statSync } from 'node:fs';
import { type Db, openDatabase, WAL_SIZE_LIMIT } from '../../../src/db/client';
import { noGeo } from '../../../src/modules/clicks/geo';
import type { WireClick } from '../../../src/modules/clicks/record';
import { ClickStore, IDLE_CHECKPOINT_MS } from '../../../src/modules/clicks/store';
import { disposeTestApp, T0 } from '../../helpers/app';
import { type Ctx, createLink, setup, UA } from './support';

const IDLE_MS = 200;

function walBytes(dbPath: string): number {
  const wal = `${dbPath}-wal`;
  return existsSync(wal) ? statSync(wal).size : 0;
}

function wires(linkId: string, n: number, time: number, seed: number): WireClick[] {
  return Array.from({ length: n }, (_, i) => ({
    time: time + i,
    linkId,
    variantId: null,
    code: null,
    location: 'https://example.com/landing',
    paramsJson: '{}',
    address: `198.51.${(seed + i) % 250}.${i % 250}`,
    userAgent: i % 2 ? UA.chromeWin : UA.safariIphone,
    referrer: i % 3 ? 'https://www.google.com/' : null,
    acceptLanguage: 'en',
    bot: false,
  }));
}

describe('the WAL is bounded and truncated when the writer is idle', () => {
  let c: Ctx;
  let writer: Db;
  let store: ClickStore;
  let dbPath: string;

  beforeAll(async () => {
    c = await setup();
    dbPath = c.t.deps.config.dbPath;
    // The writer's own connection, with its pragmas (a checkpoint every ~128 MB of WAL).
    writer = openDatabase(dbPath, 'writer');
    store = new ClickStore(writer.$client, noGeo, ['sl.test'], c.t.clock, {
      idleCheckpointMs: IDLE_MS,
      sealRows: 5000,
    });
  });
  afterAll(async () => {
    store.close();
    writer.$client.close();
    await disposeTestApp(c.t);
  });

  test('the documented figures', () => {
    expect(WAL_SIZE_LIMIT).toBe(64 * 1024 * 1024);
    expect(IDLE_CHECKPOINT_MS).toBe(10_000);
    expect(writer.$client.query('PRAGMA journal_size_limit').get()).toEqual({ journal_size_limit: WAL_SIZE_LIMIT });
  });

  test('after a burst of writes and an idle period, the -wal file is at most WAL_SIZE_LIMIT (empty)', async () => {
    const links = [];
    for (let i = 0; i < 5; i++) links.push(await createLink(c, {}));
    writer.$client.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    let seed = 0;
    for (let b = 0; b < 20; b++) {
      for (const link of links) {
        store.writeBatch(wires(link.id, 200, T0 - 3_600_000 + b * 1000, seed++));
      }
      store.fold();
    }
    // Writes land in the WAL: it grew, under the writer's checkpoint size (~128 MB) and a batch.
    const busy = walBytes(dbPath);
    expect(busy).toBeGreaterThan(1024 * 1024);
    expect(busy).toBeLessThanOrEqual(WAL_SIZE_LIMIT * 2 + 4 * 1024 * 1024);
    expect(store.idleCheckpoints).toBe(0);
    await Bun.sleep(IDLE_MS * 3);
    expect(store.idleCheckpoints).toBe(1);
    const idle = walBytes(dbPath);
    expect(idle).toBeLessThanOrEqual(WAL_SIZE_LIMIT);
    expect(idle).toBe(0);
    // Nothing written since: no further checkpoint.
    await Bun.sleep(IDLE_MS * 2);
    expect(store.idleCheckpoints).toBe(1);
  });

  test('a reader in the way: the idle checkpoint waits briefly, gives up, and succeeds once the reader is gone', async () => {
    const link = await createLink(c, {});
    const reader = openDatabase(dbPath, 'standalone').$client;
    try {
      // A read transaction on the snapshot before the next batch: TRUNCATE cannot reset the WAL under it.
      reader.exec('BEGIN');
      reader.query('SELECT count(*) FROM links').get();
      const before = store.idleCheckpoints;
      store.writeBatch(wires(link.id, 500, T0 - 60_000, 7));
      store.fold();
      await Bun.sleep(IDLE_MS * 3);
      expect(store.idleCheckpoints).toBe(before);
      expect(walBytes(dbPath)).toBeGreaterThan(0);
      // The writer's busy timeout is back to its own after the short wait.
      expect(writer.$client.query('PRAGMA busy_timeout').get()).toEqual({ timeout: 5000 });
      reader.exec('COMMIT');
      await Bun.sleep(IDLE_MS * 3);
      expect(store.idleCheckpoints).toBe(before + 1);
      expect(walBytes(dbPath)).toBe(0);
    } finally {
      reader.close();
    }
  });
});
