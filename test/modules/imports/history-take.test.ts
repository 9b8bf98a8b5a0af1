/**
 * SQLite: an import's history is taken by this process's click writer while the import goes on,
 * once enough is queued, not only at its end: the queue (and what a take holds) stays bounded
 * by that amount, whatever the run's size.
 */
import { expect, test } from 'bun:test';
import { importsQueued } from '../../../src/modules/clicks/sqlite/imports';
import { type SourceVisit, sqliteHistoryWriter } from '../../../src/modules/imports/public';
import { apiExpecting, T0 } from '../../helpers/app';
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
