/**
 * PostgreSQL's history writer stores a batch of visits and its links' `imported` note in one
 * transaction: a process that dies right after the clicks' transaction committed (played by the
 * click writer throwing once it has) leaves clicks that say where they came from. SQLite queues
 * both in one transaction by construction (history/sqlite.ts).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { Pg } from '../../../src/db/postgres/client';
import { openPgImportWriter } from '../../../src/modules/clicks/public';
import { postgresHistoryWriter } from '../../../src/modules/imports/public';
import { apiExpecting, makeKey, makeTestApp, T0, type TestApp } from '../../helpers/app';
import { UA } from '../clicks/support';

let t: TestApp;
let key: string;
let pool: Pg;

beforeAll(async () => {
  t = await makeTestApp(
    {},
    {
      engine: 'postgres',
      wrapPostgres: (sql) => {
        pool = sql;
        return sql;
      },
    },
  );
  key = (await makeKey(t, 'write', { superuser: true })).key;
});
afterAll(async () => {
  await t.close();
});

test('a process dead right after the clicks committed leaves them with their note', async () => {
  const id = (await apiExpecting(t, key, 'POST', '/links', { destination: 'https://example.com/n', slug: 'note' }))
    .id as string;
  const options = { ownHosts: ['sl.test'], clock: t.clock, retentionDays: 0 };
  const clicks = openPgImportWriter(pool, options);
  const dying = {
    async writeEnriched(...args: Parameters<typeof clicks.writeEnriched>) {
      await clicks.writeEnriched(...args);
      throw new Error('killed');
    },
    fold: () => clicks.fold(),
  };
  const writer = postgresHistoryWriter(pool, dying, {
    policy: { referrer: 'host', geo: 'city', ownHosts: ['sl.test'] },
    clock: t.clock,
    retentionDays: 0,
  });
  const visit = {
    sourceId: null,
    at: T0 - 86_400_000,
    referrer: null,
    userAgent: UA.chromeWin,
    country: 'FR',
    city: null,
    bot: null,
    device: null,
    os: null,
    browser: null,
  };
  await expect(writer.visits(id, 'shlink', [visit, { ...visit, at: visit.at + 1000 }])).rejects.toThrow('killed');
  await clicks.fold();
  const link = await apiExpecting(t, key, 'GET', `/links/${id}`);
  expect({ clickCount: link.clickCount, imported: link.imported }).toEqual({
    clickCount: 2,
    imported: { source: 'shlink', at: T0, history: 'visits', clicks: 2 },
  });
});
