/**
 * A re-run stores nothing twice, even after a process stopped at the worst instant: a batch of
 * history and the source link's position (the newest visit or day stored) commit together. The
 * process's death is played by the history writer throwing right after it stored a batch (the
 * instant a separate position save would still be missing); the next run then adds nothing.
 * Both engines: each writes the position in its own transaction. And visits sharing the newest
 * second imported: the position counts them, so one recorded in that second later still comes.
 */
import { describe, expect, test } from 'bun:test';
import type { HistoryWriter } from '../../../src/modules/imports/public';
import { type ShlinkVisitSeed, startShlinkFake } from '../../fakes/shlink';
import { forEachEngine } from '../../helpers/engines';
import { UA } from '../clicks/support';
import { importApp } from './support';

const visitsOn = (day: string): ShlinkVisitSeed[] => [
  { date: `${day}T10:00:00+00:00`, userAgent: UA.chromeWin, countryCode: 'FR' },
  { date: `${day}T11:00:00+00:00`, userAgent: UA.firefoxLinux, countryCode: 'DE' },
  { date: `${day}T12:00:00+00:00`, userAgent: UA.edgeMac, countryCode: 'GB' },
];

forEachEngine((engine) => {
  const shlink = startShlinkFake({
    links: [
      {
        shortCode: 'ex-visits',
        longUrl: 'https://example.com/visits',
        dateCreated: '2026-09-01T00:00:00+00:00',
        visits: visitsOn('2026-10-01'),
      },
    ],
  });
  /** Visits to the second, as Shlink keeps them: two in one second, more to come in it. */
  const sameSecond: ShlinkVisitSeed[] = [
    { date: '2026-10-03T09:00:00+00:00', userAgent: UA.chromeWin },
    { date: '2026-10-03T10:00:00+00:00', userAgent: UA.chromeWin },
    { date: '2026-10-03T10:00:00+00:00', userAgent: UA.firefoxLinux },
  ];
  const seconds = startShlinkFake({
    links: [
      {
        shortCode: 'ex-second',
        longUrl: 'https://example.com/second',
        dateCreated: '2026-09-03T00:00:00+00:00',
        visits: sameSecond,
      },
    ],
  });
  const legacyVisits: ShlinkVisitSeed[] = [{ date: '2026-10-04T10:00:00+00:00', userAgent: UA.chromeWin }];
  const legacy = startShlinkFake({
    links: [
      {
        shortCode: 'ex-legacy',
        longUrl: 'https://example.com/legacy',
        dateCreated: '2026-09-04T00:00:00+00:00',
        visits: legacyVisits,
      },
    ],
  });
  const daily = startShlinkFake({
    links: [
      {
        shortCode: 'ex-daily',
        longUrl: 'https://example.com/daily',
        dateCreated: '2026-09-02T00:00:00+00:00',
        visits: visitsOn('2026-10-02'),
      },
    ],
  });

  const app = importApp({ engine, fakes: [shlink, daily, seconds, legacy] });
  const { call } = app;

  async function run(body: Record<string, unknown>) {
    return app.run({ source: 'shlink', url: shlink.url, token: shlink.apiKey, ...body });
  }

  async function link(slug: string) {
    const res = await call('GET', `/links?q=${slug}`);
    expect(res.status).toBe(200);
    return res.body.items.find((l: any) => l.slug === slug);
  }

  /** The history writer dies (throws) right after its first call of `method` has stored its batch. */
  function dieOnceAfter(method: 'visits' | 'days') {
    const history = app.t.deps.history as HistoryWriter;
    const stored = history[method] as (...args: unknown[]) => Promise<number>;
    history[method] = (async (...args: unknown[]) => {
      history[method] = stored as never;
      await stored(...args);
      throw new Error('killed');
    }) as never;
  }

  describe('a run stopped right after a batch of history was stored', () => {
    test('visits: the next run stores that batch no second time', async () => {
      dieOnceAfter('visits');
      const first = await run({});
      expect(first.errors).toContainEqual({ source: 'ex-visits', reason: 'history: killed' });
      const again = await run({});
      expect(again).toMatchObject({ status: 'done', links: { created: 0 }, clicks: { imported: 0 } });
      const made = await link('ex-visits');
      expect(made.clickCount).toBe(3);
      const clicks = await call('GET', `/links/${made.id}/clicks?from=2026-09-01&to=2026-11-01&bots=1&limit=100`);
      expect(clicks.body.items.length).toBe(3);
    });

    test('daily counts: the next run adds no day twice', async () => {
      dieOnceAfter('days');
      const source = { history: 'daily', url: daily.url, token: daily.apiKey };
      const first = await run(source);
      expect(first.errors).toContainEqual({ source: 'ex-daily', reason: 'history: killed' });
      const again = await run(source);
      expect(again).toMatchObject({ status: 'done', links: { created: 0 }, clicks: { imported: 0 } });
      expect((await link('ex-daily')).clickCount).toBe(3);
    });
  });

  test('a visit recorded in the second of the newest one imported, after that run read, comes with the next run', async () => {
    const source = { url: seconds.url, token: seconds.apiKey };
    expect(await run(source)).toMatchObject({ status: 'done', links: { created: 1 }, clicks: { imported: 3 } });
    sameSecond.push(
      { date: '2026-10-03T10:00:00+00:00', userAgent: UA.edgeMac },
      { date: '2026-10-03T11:00:00+00:00', userAgent: UA.edgeMac },
    );
    expect(await run(source)).toMatchObject({ status: 'done', clicks: { imported: 2 } });
    // Nothing new: nothing added, however many visits share the newest second.
    expect(await run(source)).toMatchObject({ status: 'done', clicks: { imported: 0 } });
    const made = await link('ex-second');
    expect(made.clickCount).toBe(5);
    const clicks = await call('GET', `/links/${made.id}/clicks?from=2026-09-01&to=2026-11-01&bots=1&limit=100`);
    expect(clicks.body.items.map((c: any) => new Date(c.timestamp).toISOString())).toEqual([
      '2026-10-03T11:00:00.000Z',
      '2026-10-03T10:00:00.000Z',
      '2026-10-03T10:00:00.000Z',
      '2026-10-03T10:00:00.000Z',
      '2026-10-03T09:00:00.000Z',
    ]);
  });

  // A position saved before the count was kept (the column's default, 0, on both engines; SQLite's
  // file is at hand): its instant's visits are all taken as stored, as then, never stored twice.
  if (engine === 'sqlite')
    test('a position saved with no count skips every visit at its instant', async () => {
      const source = { url: legacy.url, token: legacy.apiKey };
      expect(await run(source)).toMatchObject({ status: 'done', clicks: { imported: 1 } });
      app.t.deps.db.$client.run("UPDATE import_links SET visit_at_count = 0 WHERE source_id = 'ex-legacy'");
      legacyVisits.push({ date: '2026-10-04T11:00:00+00:00', userAgent: UA.edgeMac });
      expect(await run(source)).toMatchObject({ status: 'done', clicks: { imported: 1 } });
      expect((await link('ex-legacy')).clickCount).toBe(2);
    });
});
