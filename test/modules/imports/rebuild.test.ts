/**
 * Imported daily counts have no raw click, so statistics rebuilt from the raw clicks (SQLite's
 * rebuild at start when the buckets are missing, rollups/sqlite/rebuild.ts) would lose them:
 * their fold keeps them (imported_days) and the rebuild adds them back. Imported from the Bitly
 * fake through the API, beside a link's live clicks. PostgreSQL keeps them the same way.
 */
import { expect, test } from 'bun:test';
import type { Pg } from '../../../src/db/postgres/client';
import { clickSource } from '../../../src/modules/clicks/sqlite/raw-read';
import { rebuildRollupsIfMissing } from '../../../src/modules/rollups/public';
import { startBitlyFake } from '../../fakes/bitly';
import { forEachEngine } from '../../helpers/engines';
import { clickRequest, flushOk, UA } from '../clicks/support';
import { importApp } from './support';

forEachEngine((engine) => {
  let pool: Pg;
  const bitly = startBitlyFake({
    groups: [
      {
        guid: 'Bg1',
        links: [
          {
            id: 'go.brand.test/daily',
            long_url: 'https://example.com/daily',
            created_at: '2026-09-02T00:00:00+0000',
            clicks: { '2026-10-01': 5, '2026-10-03': 2 },
          },
          {
            id: 'go.brand.test/other',
            long_url: 'https://example.com/other',
            created_at: '2026-09-02T00:00:00+0000',
            clicks: { '2026-10-03': 4 },
          },
        ],
      },
    ],
  });
  const app = importApp({
    engine,
    fakes: [bitly],
    env: { SLINK_TRUST_PROXY: '1' },
    app: {
      wrapPostgres: (sql) => {
        pool = sql;
        return sql;
      },
    },
  });
  const call = app.call;

  async function statistics(id: string) {
    const range = 'from=2026-09-01&to=2026-12-31&bots=1';
    const link = await call('GET', `/links/${id}/stats?${range}`);
    const workspace = await call('GET', `/workspace/stats?${range}`);
    expect([link.status, workspace.status]).toEqual([200, 200]);
    return { link: link.body, workspace: workspace.body };
  }

  test('imported daily counts survive a rebuild of the statistics from the raw clicks', async () => {
    expect((await call('POST', '/domains', { origin: 'https://go.brand.test' })).status).toBe(201);
    const run = await app.run({ source: 'bitly', url: bitly.url, token: bitly.token });
    expect(run).toMatchObject({ status: 'done', links: { created: 2 }, clicks: { imported: 11 } });
    const link = (await call('GET', '/links?q=daily')).body.items[0];
    // A live click beside them: the rebuild counts it from its raw row.
    const { t } = app;
    const res = await t.app.handle(
      clickRequest('/daily', { ua: UA.chromeWin, ip: '81.2.69.142' }, 'https://go.brand.test'),
    );
    expect(res.status).toBe(302);
    await flushOk(t);
    const before = await statistics(link.id);
    expect(before.link.totals).toMatchObject({ clicks: 8, uniques: 1 });
    expect(before.workspace.totals).toMatchObject({ clicks: 12 });

    if (engine === 'postgres') {
      // No rebuild on PostgreSQL: the days are kept all the same, for one.
      const kept = await pool`SELECT start::float8 AS start, clicks::int AS clicks FROM imported_days
        WHERE link_id = ${link.id} ORDER BY start`;
      expect(kept.map((r: any) => [new Date(r.start).toISOString().slice(0, 10), r.clicks])).toEqual([
        ['2026-10-01', 5],
        ['2026-10-03', 2],
      ]);
      return;
    }
    const sqlite = t.deps.db.$client;
    sqlite.run('DELETE FROM rollups');
    expect(rebuildRollupsIfMissing(sqlite, clickSource(sqlite), t.clock)).toBe(12);
    expect(await statistics(link.id)).toEqual(before);
  });
});
