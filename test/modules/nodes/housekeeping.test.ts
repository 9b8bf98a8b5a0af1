/**
 * Housekeeping with several nodes on one PostgreSQL (db/postgres/locks.ts HOUSEKEEPING_LOCK): a
 * retention step is taken by one node at a time, and when the node at it dies, its lock goes with
 * its connection and the next node's turn does the work.
 */
import { afterEach, expect, test } from 'bun:test';
import { openPostgres, type Pg } from '../../../src/db/postgres/client';
import { HOUSEKEEPING_LOCK } from '../../../src/db/postgres/locks';
import { fixedClock } from '../../../src/lib/clock';
import { noGeo } from '../../../src/modules/clicks/enrich/geo';
import { PostgresClickWriter } from '../../../src/modules/clicks/postgres/store';
import { type EngineStore, engineStore, wire } from '../clicks/engine-store';

const NOW = Date.UTC(2026, 10, 21, 12);
const DAY = 86_400_000;

let store: EngineStore | null = null;
const pools: Pg[] = [];
afterEach(async () => {
  for (const sql of pools.splice(0)) await sql.close();
  await store?.close();
  store = null;
});

/** A node's click writer on the same database, keeping 30 days of raw clicks. */
function node(url: string): PostgresClickWriter {
  const sql = openPostgres(url, 2);
  pools.push(sql);
  return new PostgresClickWriter(sql, noGeo, ['sl.test'], fixedClock(NOW), { retentionDays: 30 });
}

test('a retention step runs on one node at a time; a dead node’s turn is taken by the next', async () => {
  store = await engineStore('postgres', NOW);
  await store.link('lnk_old', 'old');
  // Forty days old: past the retained window. Written by a writer that keeps everything.
  await store.writer.writeBatch(
    Array.from({ length: 5 }, (_, i) => wire({ linkId: 'lnk_old', time: NOW - 40 * DAY + i * 1000 })),
  );
  await store.writer.fold();
  expect(await store.rawClicks()).toBe(5);

  // A node in the middle of a step: it holds the lock in an open transaction.
  const holder = openPostgres(store.url!, 1);
  pools.push(holder);
  const busy = await holder.reserve();
  await busy`BEGIN`;
  await busy`SELECT pg_advisory_xact_lock(${HOUSEKEEPING_LOCK})`;
  const [{ pid }] = await busy`SELECT pg_backend_pid() AS pid`;

  // Two other nodes find it taken and skip their turn: nothing is deleted twice or at once.
  expect(await node(store.url!).retain()).toEqual({ kind: 'none' });
  expect(await node(store.url!).retain()).toEqual({ kind: 'none' });
  expect(await store.rawClicks()).toBe(5);

  // That node dies (its connection is cut, as kill -9 does): the server releases its lock.
  const admin = openPostgres(store.url!, 1);
  pools.push(admin);
  // (With a timeout the call waits until the backend is gone.)
  await admin`SELECT pg_terminate_backend(${pid}, 5000)`;
  busy.release();
  const next = node(store.url!);
  expect(await next.retain()).toEqual({ kind: 'tail', clicks: 5 });
  expect(await store.rawClicks()).toBe(0);
  expect(await next.retain()).toEqual({ kind: 'none' });
});
