/**
 * PostgreSQL only: the readers' copy of the value dictionary. With several nodes writing, a
 * value can be given an id below one this node has already read (given to one writer before
 * another's higher one, committed after it); reading "the ids above the highest known" never
 * finds it. The statistics and the clicks list must still name it, not drop or fail on it.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { openPostgres, type Pg } from '../../../src/db/postgres/client';
import { api, disposeTestApp } from '../../helpers/app';
import { type Ctx, click, createLink, flushOk, setup } from '../clicks/support';

describe('a dictionary id committed below the newest one read (another node)', () => {
  let c: Ctx;
  let sql: Pg;

  beforeAll(async () => {
    c = await setup({}, 'postgres');
    const address = c.t.deps.stores.address;
    if (address.engine !== 'postgres') throw new Error('not on PostgreSQL');
    sql = openPostgres(address.url, 1);
  });
  afterAll(async () => {
    await sql.close();
    await disposeTestApp(c.t);
  });

  test('its clicks are named in the statistics and the clicks list', async () => {
    const first = await createLink(c, { slug: 'first' });
    expect(await click(c.t, '/first', { ip: '192.0.2.1' })).toBe(302);
    await flushOk(c.t);
    const [{ max }] = await sql`SELECT max(id)::int4 AS max FROM rollup_values`;
    // Another node's value, with a high id: the statistics read it (the reader's highest id)...
    await sql`INSERT INTO rollup_values (id, dim, key, value) VALUES (${max + 500}, 'referrer', '', 'high.example')`;
    expect((await api(c.t, 'GET', `/links/${first.id}/stats`, { key: c.key })).status).toBe(200);
    // ...then one given a lower id earlier, committed only now, and clicked.
    await sql`INSERT INTO rollup_values (id, dim, key, value) VALUES (${max + 100}, 'referrer', '', 'late.example')`;
    const late = await createLink(c, { slug: 'late' });
    expect(await click(c.t, '/late', { ip: '192.0.2.2', referer: 'https://late.example/post' })).toBe(302);
    await flushOk(c.t);

    const stats = await api(c.t, 'GET', `/links/${late.id}/stats`, { key: c.key });
    expect([stats.status, stats.body.breakdowns.referrer]).toEqual([200, [{ value: 'late.example', clicks: 1 }]]);
    const list = await api(c.t, 'GET', `/links/${late.id}/clicks`, { key: c.key });
    expect(list.status).toBe(200);
    expect(list.body.items.map((i: { referrer: string | null }) => i.referrer)).toEqual(['late.example']);
  });
});
