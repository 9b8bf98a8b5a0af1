/**
 * The writer Worker's protocol, with the real Worker on the test app's database (SQLite, and
 * PostgreSQL, where opening awaits the server): a commit takes exactly the slices added before it
 * (the flusher hands the next batch over while one is being written), even when they come before
 * the Worker has opened, and `discard` forgets what was added after the last commit.
 */
import { describe, expect, test } from 'bun:test';
import type { Engine } from '../../../src/db/address';
import type { WireClick } from '../../../src/modules/clicks/capture/record';
import { WorkerSink } from '../../../src/modules/clicks/capture/sink';
import { noGeo } from '../../../src/modules/clicks/enrich/geo';
import { countClicks } from '../../../src/modules/clicks/sqlite/raw-read';
import { SqliteClickWriter } from '../../../src/modules/clicks/sqlite/store';
import { disposeTestApp, T0, type TestApp } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { storedClicks } from '../../helpers/stored-clicks';
import { createLink, DAY, setup, UA } from './support';

function wire(linkId: string, time: number): WireClick {
  return {
    time,
    linkId,
    variantId: null,
    code: null,
    location: 'https://example.com/landing',
    paramsJson: '{}',
    address: '192.0.2.10',
    userAgent: UA.chromeWin,
    referrer: null,
    acceptLanguage: 'en',
    bot: false,
  };
}

/** The times of the stored raw clicks, in the order they were written. */
const writtenTimes = async (t: TestApp) => (await storedClicks(t)).map((c) => c.timestamp);

/** A test app with one link and a real writer Worker on its database; the Worker is closed whatever the body does. */
async function withWorkerSink(
  engine: Engine,
  slug: string,
  body: (sink: WorkerSink, linkId: string, t: TestApp) => Promise<void>,
): Promise<void> {
  const c = await setup({}, engine);
  const { t } = c;
  const link = await createLink(c, { slug });
  const sink = new WorkerSink({ database: t.deps.stores.address, geoDb: null, ownHosts: ['localhost'] });
  try {
    await body(sink, link.id, t);
  } finally {
    await sink.close();
  }
  await disposeTestApp(t);
}

forEachEngine((engine) => {
  describe('WorkerSink', () => {
    test('slices added after a commit belong to the next commit, even when added before the first answer', () =>
      withWorkerSink(engine, 'worker', async (sink, linkId, t) => {
        // All posted before the Worker has even opened the database.
        sink.add([wire(linkId, T0), wire(linkId, T0 + 1)]);
        const first = sink.commit();
        sink.add([wire(linkId, T0 + 2)]);
        const second = sink.commit();
        expect(await first).toMatchObject({ written: 2, skipped: 0 });
        expect(await second).toMatchObject({ written: 1, skipped: 0 });
        expect(await writtenTimes(t)).toEqual([T0, T0 + 1, T0 + 2]);
      }));

    test('discard forgets the slices added since the last commit', () =>
      withWorkerSink(engine, 'dropped', async (sink, linkId, t) => {
        sink.add([wire(linkId, T0)]);
        const first = sink.commit();
        sink.add([wire(linkId, T0 + 1), wire(linkId, T0 + 2)]);
        sink.discard();
        sink.add([wire(linkId, T0 + 3)]);
        expect(await first).toMatchObject({ written: 1 });
        expect(await sink.commit()).toMatchObject({ written: 1 });
        expect(await sink.commit()).toMatchObject({ written: 0 });
        expect(await writtenTimes(t)).toEqual([T0, T0 + 3]);
      }));

    test('visits sent to fallback URLs are added to their links in the Worker, in the order sent', () =>
      withWorkerSink(engine, 'ended', async (sink, linkId, t) => {
        // Sent before the Worker has opened; a link deleted meanwhile is no error.
        const first = sink.addFallbackVisits([[linkId, 3]]);
        const second = sink.addFallbackVisits([
          [linkId, 2],
          ['lnk_gone', 7],
        ]);
        expect(await Promise.all([first, second])).toEqual([undefined, undefined]);
        expect((await t.deps.stores.links.find(linkId))?.fallbackCount).toBe(5);
      }));

    test('a fold sent before the Worker has opened waits for it, as the commit before it does', () =>
      withWorkerSink(engine, 'early', async (sink, linkId, t) => {
        sink.add([wire(linkId, T0)]);
        const committed = sink.commit();
        const folded = sink.fold();
        expect(await committed).toMatchObject({ written: 1, skipped: 0 });
        expect(await folded).toBeUndefined();
        expect(await writtenTimes(t)).toEqual([T0]);
      }));
  });
});

// Its old clicks are written by SQLite's store (retention on both engines: test/modules/analytics/retention.test.ts).
describe('WorkerSink', () => {
  test('SLINK_RETENTION_DAYS reaches the Worker: its batch is followed by a pruning step', async () => {
    const c = await setup();
    const { t } = c;
    const link = await createLink(c, { slug: 'retained' });
    // 50 clicks of 100 days ago, written and folded inline (they stay in the tail).
    const now = Date.now();
    const old = new SqliteClickWriter(t.deps.db.$client, noGeo, ['localhost'], t.clock);
    old.writeBatch(Array.from({ length: 50 }, (_, i) => wire(link.id, now - 100 * DAY + i)));
    old.fold();
    expect(countClicks(t.deps.db.$client)).toBe(50);
    const sink = new WorkerSink({
      database: t.deps.stores.address,
      geoDb: null,
      ownHosts: ['localhost'],
      retentionDays: 30,
    });
    try {
      sink.add([wire(link.id, now)]);
      expect(await sink.commit()).toMatchObject({ written: 1 });
      expect(countClicks(t.deps.db.$client)).toBe(1);
    } finally {
      await sink.close();
    }
    await disposeTestApp(t);
  });
});
