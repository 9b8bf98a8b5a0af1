/**
 * SQLite: an import's history is taken by this process's click writer while the import goes on,
 * once enough is queued, not only at its end: the queue (and what a take holds) stays bounded
 * by that amount, whatever the run's size.
 */
import { expect, test } from 'bun:test';
import { CHECKPOINT_PAGES } from '../../../src/db/checkpoint';
import { importsQueued } from '../../../src/modules/clicks/sqlite/imports';
import { type SourceVisit, sqliteHistoryWriter } from '../../../src/modules/imports/public';
import { apiExpecting, T0 } from '../../helpers/app';
import { expectBucketsMatchRawClicks, UA } from '../clicks/support';
import { historyApp, sourceVisit } from './support';

const app = historyApp();

const visits = (n: number): SourceVisit[] =>
  Array.from({ length: n }, (_, i) => sourceVisit({ at: T0 - (i + 1) * 3_600_000 }));

test('the writer is asked to take the queue each time 10 clicks are queued, and counts them all by the flush', async () => {
  const { t, key } = app;
  const sqlite = t.deps.db.$client;
  /** The queued clicks each time a take was asked for. */
  const asked: number[] = [];
  const writer = sqliteHistoryWriter(sqlite, {
    policy: { referrer: 'host', geo: 'city', ownHosts: [] },
    clock: t.clock,
    retentionDays: 0,
    takeAfter: 10,
    take: () => {
      asked.push(sqlite.query<{ n: number }, []>('SELECT coalesce(sum(count), 0) AS n FROM click_imports').get()!.n);
      return t.deps.clicks.flusher.takeImports();
    },
  });
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) {
    const id = await app.newLink(`take-${i}`);
    ids.push(id);
    expect(await writer.visits(id, 'shlink', visits(4))).toBe(4);
  }
  // Asked after the 3rd and 6th links' visits (12 queued each time), before any flush.
  expect(asked).toEqual([12, 12]);
  await writer.flush!();
  expect(importsQueued(sqlite)).toBe(0);
  for (const id of ids) expect((await apiExpecting(t, key, 'GET', `/links/${id}`)).clickCount).toBe(4);
});

test('while an import writes, a connection that checkpoints itself does so at the size of the writer, set back at the flush; one that never does is left alone', async () => {
  const { t, key } = app;
  const sqlite = t.deps.db.$client;
  const autocheckpoint = () =>
    sqlite.query<{ wal_autocheckpoint: number }, []>('PRAGMA wal_autocheckpoint').get()!.wal_autocheckpoint;
  const before = autocheckpoint();
  const link = await apiExpecting(t, key, 'POST', '/links', {
    destination: 'https://example.com/',
    slug: 'wal-widened',
  });
  const open = () =>
    sqliteHistoryWriter(sqlite, {
      policy: { referrer: 'host', geo: 'city', ownHosts: [] },
      clock: t.clock,
      retentionDays: 0,
      take: () => t.deps.clicks.flusher.takeImports(),
    });
  try {
    sqlite.exec('PRAGMA wal_autocheckpoint = 1000');
    const writer = open();
    expect(await writer.visits(link.id as string, 'shlink', visits(2))).toBe(2);
    expect(autocheckpoint()).toBe(CHECKPOINT_PAGES);
    await writer.flush!();
    expect(autocheckpoint()).toBe(1000);
    // A server's connection (its writer's thread checkpoints): never made to checkpoint itself.
    sqlite.exec('PRAGMA wal_autocheckpoint = 0');
    const server = open();
    expect(await server.visits(link.id as string, 'shlink', visits(3))).toBe(3);
    expect(autocheckpoint()).toBe(0);
    await server.flush!();
    expect(autocheckpoint()).toBe(0);
  } finally {
    sqlite.exec(`PRAGMA wal_autocheckpoint = ${before}`);
  }
  expect((await apiExpecting(t, key, 'GET', `/links/${link.id}`)).clickCount).toBe(5);
});

test('a second take adds to the hour and day buckets a first one wrote for the same hours of a past day', async () => {
  const { t, key } = app;
  const id = await app.newLink('same-hours-twice');
  const day = Date.parse('2026-10-12T00:00:00Z');
  const some = (minute: number): SourceVisit[] =>
    [9, 9, 10, 13].map((h, i) =>
      sourceVisit({ at: day + h * 3_600_000 + minute * 60_000, userAgent: i === 3 ? UA.googlebot : UA.chromeWin }),
    );
  // Each call taken and folded on its own: the second fold finds the first one's buckets.
  expect(await t.deps.history.visits(id, 'shlink', some(5))).toBe(4);
  await t.deps.history.flush?.();
  expect(await t.deps.history.visits(id, 'shlink', some(35))).toBe(4);
  await t.deps.history.flush?.();
  const stats = await apiExpecting(t, key, 'GET', `/links/${id}/stats?from=2026-10-01&to=2026-10-31&bots=1`);
  expect(stats.totals).toMatchObject({ clicks: 8, bots: 2 });
  const days = (stats.series as { t: number; clicks: number }[])
    .filter((p) => p.clicks > 0)
    .map((p) => [p.t, p.clicks]);
  expect(days).toEqual([[day, 8]]);
  expectBucketsMatchRawClicks(t);
});
