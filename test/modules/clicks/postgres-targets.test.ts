/**
 * click_targets on PostgreSQL (clicks/postgres/targets.ts): a batch naming more new targets
 * than the writer's cache holds still gets every id (the cache starts over while they are
 * remembered); a link is made with its dictionary value and plain target, the very ones its
 * clicks name. Engine-internal: SQLite's targets are tested with its store.
 */
import { afterEach, expect, test } from 'bun:test';
import { openPostgres, type Pg } from '../../../src/db/postgres/client';
import { enrichClick } from '../../../src/modules/clicks/enrich/enrich';
import { noGeo } from '../../../src/modules/clicks/enrich/geo';
import { VisitorHasher } from '../../../src/modules/clicks/enrich/visitor';
import { PgSalts } from '../../../src/modules/clicks/postgres/salts';
import { PgTargets } from '../../../src/modules/clicks/postgres/targets';
import { apiExpecting, disposeTestApp, makeTestApp } from '../../helpers/app';
import { freshPostgresUrl } from '../../helpers/postgres';
import { wire } from './engine-store';
import { click, createLink, flushOk, setup, UA } from './support';

const T = Date.UTC(2026, 10, 21, 12, 30);
let sql: Pg | null = null;
afterEach(async () => {
  await sql?.close();
  sql = null;
});

test('a batch with more new targets than the cache holds gets each its own id, the same the next time', async () => {
  sql = openPostgres(await freshPostgresUrl(), 2);
  const salts = new PgSalts(sql);
  await salts.load([Math.floor(T / 86_400_000)]);
  const ctx = { geo: noGeo, hasher: new VisitorHasher(salts), ownHosts: ['sl.test'] };
  const clicks = Array.from({ length: 25 }, (_, i) =>
    enrichClick(wire({ linkId: `lnk_${i}`, time: T, location: `https://example.com/${i}` }), ctx),
  );
  // A cache of 10 starts over twice while the 25 new targets are remembered.
  const targets = new PgTargets(sql, 10);
  const ids = await targets.idsOf(clicks);
  expect(new Set(ids).size).toBe(25);
  const stored = new Map<string, number>(
    (await sql`SELECT id, link_id FROM click_targets`).map((r: { id: number; link_id: string }) => [
      r.link_id,
      Number(r.id),
    ]),
  );
  expect(ids).toEqual(clicks.map((c) => stored.get(c.linkId)!));
  // Half of them cached, half not: each still finds its id, and nothing is inserted twice.
  expect(await targets.idsOf(clicks)).toEqual(ids);
  expect(await new PgTargets(sql, 10).idsOf(clicks)).toEqual(ids);
  expect((await sql`SELECT count(*)::int4 AS n FROM click_targets`)[0].n).toBe(25);
});

test('a link is made with its dictionary value and plain target, the ones its clicks name', async () => {
  const c = await setup({}, 'postgres');
  try {
    const address = c.t.deps.stores.address;
    if (address.engine !== 'postgres') throw new Error('not a PostgreSQL test app');
    sql = openPostgres(address.url, 1);
    // Params applied to a destination with a query of its own, one of them to encode.
    const link = await createLink(c, {
      slug: 'named',
      destination: 'https://example.com/landing?ref=x#top',
      params: { utm_source: 'news letter', ref: 'ä' },
    });
    const names = async (db: Pg) => ({
      values: (await db`SELECT id FROM rollup_values WHERE dim = 'link' AND key = '' AND value = ${link.id}`).map(
        (r: { id: number }) => Number(r.id),
      ),
      targets: (await db`SELECT id FROM click_targets WHERE link_id = ${link.id}`).map((r: { id: number }) =>
        Number(r.id),
      ),
    });
    const made = await names(sql);
    expect(made.values).toHaveLength(1);
    expect(made.targets).toHaveLength(1);
    expect(await click(c.t, '/named', { ip: '8.8.8.8', ua: UA.chromeWin })).toBe(302);
    expect(await click(c.t, '/named', { ip: '8.8.4.4', ua: UA.firefoxLinux })).toBe(302);
    await flushOk(c.t);
    // The clicks named nothing new: they point at what the link was made with.
    expect(await names(sql)).toEqual(made);
    const tail = await sql`SELECT link, target FROM click_tail`;
    expect(tail).toHaveLength(2);
    for (const r of tail) expect([Number(r.link), Number(r.target)]).toEqual([made.values[0]!, made.targets[0]!]);
  } finally {
    await disposeTestApp(c.t);
  }
});

test("a link's clicks carry the ids the database holds: made here, made by another node, moved, renamed, its destination edited", async () => {
  const a = await setup({}, 'postgres');
  let b: Awaited<ReturnType<typeof setup>> | null = null;
  try {
    const address = a.t.deps.stores.address;
    if (address.engine !== 'postgres') throw new Error('not a PostgreSQL test app');
    sql = openPostgres(address.url, 1);
    const db = sql;
    /** The link's dictionary value and its plain target of this location, as stored (0: none). */
    const stored = async (linkId: string, location: string) => ({
      valueId: Number(
        (await db`SELECT id FROM rollup_values WHERE dim = 'link' AND key = '' AND value = ${linkId}`)[0]?.id ?? 0,
      ),
      targetId: Number(
        (
          await db`SELECT id FROM click_targets WHERE link_id = ${linkId} AND variant_id = '' AND code IS NULL
            AND rule IS NULL AND destination = ${location}`
        )[0]?.id ?? 0,
      ),
    });
    const carried = (c: typeof a, id: string) => {
      const base = c.t.deps.linkIndex.getById(id)!.base;
      return { valueId: base.valueId, targetId: base.targetId };
    };
    const here = await createLink(a, { slug: 'here', destination: 'https://example.com/here' });
    const ids = await stored(here.id, 'https://example.com/here');
    expect(ids.valueId).toBeGreaterThan(0);
    expect(ids.targetId).toBeGreaterThan(0);
    expect(carried(a, here.id)).toEqual(ids);

    // Made by another node on the same database: this node reads it with its ids.
    b = {
      t: await makeTestApp({ SLINK_TRUST_PROXY: '1' }, { engine: 'postgres', postgresUrl: address.url }),
      key: a.key,
    };
    const there = await createLink(b, { slug: 'there', destination: 'https://example.com/there' });
    expect(await a.t.deps.linkIndex.learn('there')).toBeGreaterThanOrEqual(0);
    expect(carried(a, there.id)).toEqual(await stored(there.id, 'https://example.com/there'));

    // Moved to another domain: the same ids.
    await apiExpecting(a.t, a.key, 'POST', '/domains', { origin: 'https://go.example.com' });
    const away = await createLink(a, { slug: 'away', destination: 'https://example.com/away' });
    const awayIds = carried(a, away.id);
    expect(awayIds).toEqual(await stored(away.id, 'https://example.com/away'));
    await apiExpecting(a.t, a.key, 'PATCH', `/links/${away.id}`, { domain: 'go.example.com' });
    expect(a.t.deps.linkIndex.getById(away.id)!.domainId).not.toBe(1);
    expect(carried(a, away.id)).toEqual(awayIds);

    // Renamed: the same ids. Its destination edited: its value, and no target until one is named.
    await apiExpecting(a.t, a.key, 'PATCH', `/links/${here.id}`, { slug: 'here2' });
    expect(carried(a, here.id)).toEqual(ids);
    await apiExpecting(a.t, a.key, 'PATCH', `/links/${here.id}`, { destination: 'https://example.com/moved' });
    expect(carried(a, here.id)).toEqual({ valueId: ids.valueId, targetId: 0 });

    expect(await click(a.t, '/here2', { ip: '8.8.8.8', ua: UA.chromeWin })).toBe(302);
    expect(await click(a.t, '/there', { ip: '8.8.8.8', ua: UA.chromeWin })).toBe(302);
    await flushOk(a.t);
    const moved = await stored(here.id, 'https://example.com/moved');
    expect(moved.targetId).toBeGreaterThan(0);
    expect(moved.targetId).not.toBe(ids.targetId);
    const tail = (await db`SELECT link, target FROM click_tail ORDER BY id`).map(
      (r: { link: number; target: number }) => [Number(r.link), Number(r.target)],
    );
    const thereIds = await stored(there.id, 'https://example.com/there');
    expect(tail).toEqual([
      [ids.valueId, moved.targetId],
      [thereIds.valueId, thereIds.targetId],
    ]);
  } finally {
    if (b !== null) await disposeTestApp(b.t);
    await disposeTestApp(a.t);
  }
});
