/**
 * Sealing on PostgreSQL (clicks/postgres/seal.ts): the tail's clicks move into per-link blocks,
 * and nothing anyone reads may change: the clicks list (every page, bots and a window, a cursor
 * taken before a seal), the CSV export (across a seal, and cut short by a delete), statistics
 * and counters, the same as SQLite's for the same clicks. Clicks are made through the real
 * redirect and flush, some with times out of id order (the clock set back between flushes).
 * Then what only PostgreSQL has: the horizon (a batch still open is never sealed over), one
 * sealer at a time, retention by whole segments.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { openPostgres, type Pg } from '../../../src/db/postgres/client';
import { CLICK_BARRIER_LOCK, CLICK_SEAL_LOCK } from '../../../src/db/postgres/locks';
import { fixedClock } from '../../../src/lib/clock';
import { OPERATOR } from '../../../src/modules/access/public';
import { decodeBlock } from '../../../src/modules/clicks/block-codec';
import { noGeo } from '../../../src/modules/clicks/enrich/geo';
import { PgSealer, sealSegmentPg, takeHorizon } from '../../../src/modules/clicks/postgres/seal';
import { PostgresClickWriter } from '../../../src/modules/clicks/postgres/store';
import { deleteLink } from '../../../src/modules/links/service';
import { api, disposeTestApp, T0 } from '../../helpers/app';
import { freshPostgresUrl } from '../../helpers/postgres';
import { insertStoredClicks } from '../../helpers/stored-clicks';
import { wire } from './engine-store';
import { type Ctx, click, createLink, createVariant, flushOk, HOUR, pick, prng, setup, UA } from './support';

const pools: Pg[] = [];

/** A pool of its own on the test app's PostgreSQL database (closed after the file). */
function poolOf(c: Ctx, max = 2): Pg {
  const address = c.t.deps.stores.address;
  if (address.engine !== 'postgres') throw new Error('not a PostgreSQL test app');
  const sql = openPostgres(address.url, max);
  pools.push(sql);
  return sql;
}

afterAll(async () => {
  for (const sql of pools) await sql.close();
});

/** Seals the tail below a fresh horizon, `maxRows` ids of it at most. */
async function seal(sql: Pg, maxRows = 1_000_000): Promise<number> {
  const horizon = await takeHorizon(sql);
  expect(horizon).not.toBeNull();
  return sealSegmentPg(sql, horizon!, { minRows: 1, maxRows });
}

async function count(sql: Pg, table: string): Promise<number> {
  const [r] = await sql.unsafe(`SELECT count(*) AS n FROM ${table}`);
  return Number(r.n);
}

/** Every sealed click id, block by block (decoded), and the tail's. */
async function storedIds(sql: Pg): Promise<{ sealed: number[]; tail: number[] }> {
  const sealed: number[] = [];
  for (const b of await sql`SELECT data FROM click_blocks ORDER BY seg, link`) sealed.push(...decodeBlock(b.data).id);
  const tail = (await sql`SELECT id FROM click_tail ORDER BY id`).map((r: { id: string }) => Number(r.id));
  return { sealed: sealed.sort((a, b) => a - b), tail };
}

/** 300 clicks on two links (one with a variant), bots among them, every third round back in time. */
async function fill(c: Ctx) {
  const a = await createLink(c, { slug: 'sa', params: { utm_source: 'news', ref: 'x,"y"' } });
  const v = await createVariant(c, a.id, { code: 'fb', params: { utm_source: 'fb' } });
  const b = await createLink(c, { slug: 'sb' });
  const random = prng(7);
  const paths = ['/sa', '/sa/fb', '/sa/nope', '/sb', '/sb/q'];
  const agents = [UA.chromeWin, UA.safariIphone, UA.googlebot, UA.curl, UA.firefoxLinux];
  const ips = ['81.2.69.160', '8.8.8.8', '2a00:1450:4001:80b::200e', '77.88.55.55', '10.0.0.1'];
  for (let round = 0; round < 12; round++) {
    const base = T0 + (round % 3 === 2 ? -round : round) * HOUR;
    for (let i = 0; i < 25; i++) {
      c.t.clock.set(base + Math.floor(random() * 4) * 1000); // equal timestamps too
      expect(
        await click(c.t, pick(random, paths), {
          ip: pick(random, ips),
          ua: pick(random, agents),
          referer: random() < 0.3 ? 'https://www.google.com/' : undefined,
          lang: random() < 0.5 ? 'fr' : undefined,
        }),
      ).toBe(302);
    }
    await flushOk(c.t);
  }
  c.t.clock.set(T0 + 24 * HOUR);
  return { a, b, v };
}

async function listAll(c: Ctx, id: string, query: string, limit = 7): Promise<unknown[]> {
  let cursor: string | null = null;
  const items: unknown[] = [];
  do {
    const res: { status: number; body: any } = await api(
      c.t,
      'GET',
      `/links/${id}/clicks?${query}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      { key: c.key },
    );
    expect(res.status).toBe(200);
    items.push(...res.body.items);
    cursor = res.body.cursor;
  } while (cursor);
  return items;
}

const QUERIES = ['range=all&bots=1', 'range=all', 'from=2026-11-21&to=2026-11-21&bots=1'];

/** Everything a reader can see of the clicks of these links: lists, exports, statistics, counters. */
async function everything(c: Ctx, ids: string[]) {
  const out: Record<string, unknown> = {};
  const get = async (path: string) => {
    const res = await api(c.t, 'GET', path, { key: c.key });
    expect(res.status).toBe(200);
    return path.includes('export.csv') ? res.text : res.body;
  };
  for (const id of ids) {
    for (const q of QUERIES) {
      out[`${id} list ${q}`] = await listAll(c, id, q);
      out[`${id} export ${q}`] = await get(`/links/${id}/export.csv?${q}`);
    }
    out[`${id} stats`] = await get(`/links/${id}/stats?from=2026-11-01&to=2026-11-30&bots=1`);
    out[`${id} link`] = await get(`/links/${id}`);
  }
  out.workspace = await get('/workspace/stats?from=2026-11-01&to=2026-11-30');
  return out;
}

describe('sealing on PostgreSQL', () => {
  test('the list (every page), the export, statistics and counters are the same before, between and after two seals, and the same as on SQLite', async () => {
    const c = await setup({}, 'postgres');
    const { a, b, v } = await fill(c);
    const sql = poolOf(c);
    const before = await everything(c, [a.id, b.id]);
    // Not vacuous: clicks listed, bots among them, times that fall while ids rise.
    const listed = before[`${a.id} list range=all&bots=1`] as { id: number; timestamp: number }[];
    expect(listed.length).toBeGreaterThan(50);
    expect(listed.length).toBeGreaterThan((before[`${a.id} list range=all`] as unknown[]).length);
    const byId = [...listed].sort((x, y) => x.id - y.id);
    expect(byId.some((r, i) => i > 0 && r.timestamp < byId[i - 1]!.timestamp)).toBe(true);

    // The same clicks on SQLite answer the same (ids of links and variants aside).
    const s = await setup();
    const other = await fill(s);
    const named = (x: unknown, ids: Record<string, string>) => {
      let text = JSON.stringify(x);
      for (const [id, name] of Object.entries(ids)) text = text.replaceAll(id, name);
      return JSON.parse(text);
    };
    const sqliteView = named(await everything(s, [other.a.id, other.b.id]), {
      [other.a.id]: 'A',
      [other.b.id]: 'B',
      [other.v.id]: 'V',
    });
    await disposeTestApp(s.t);
    expect(named(before, { [a.id]: 'A', [b.id]: 'B', [v.id]: 'V' })).toEqual(sqliteView);

    // Half sealed: the readers merge blocks and the tail.
    expect(await seal(sql, 150)).toBe(150);
    expect(await count(sql, 'click_tail')).toBe(150);
    expect(await everything(c, [a.id, b.id])).toEqual(before);
    // Then the rest, as a second segment: two blocks per link.
    expect(await seal(sql)).toBe(150);
    expect(await count(sql, 'click_tail')).toBe(0);
    expect(
      (await sql`SELECT seg, first_id, last_id, count FROM click_segments ORDER BY seg`).map(Object.values),
    ).toEqual([
      ['1', '1', '150', 150],
      ['2', '151', '300', 150],
    ]);
    expect(await count(sql, 'click_blocks')).toBe(4);
    expect(await everything(c, [a.id, b.id])).toEqual(before);
    expect(await storedIds(sql)).toEqual({ sealed: Array.from({ length: 300 }, (_, i) => i + 1), tail: [] });

    // A link's deletion takes its blocks with it; the other link's clicks read the same.
    const bOnly = await everything(c, [b.id]);
    await deleteLink(c.t.deps, OPERATOR, a.id, true);
    expect(await count(sql, 'click_blocks')).toBe(2);
    const [links] = await sql`SELECT count(DISTINCT link) AS n FROM click_blocks`;
    expect(Number(links.n)).toBe(1);
    const after = await everything(c, [b.id]);
    expect({ ...after, workspace: null }).toEqual({ ...bOnly, workspace: null });
    await disposeTestApp(c.t);
  }, 120_000);

  test('a list cursor taken before a seal goes on after it; a click written later with an old time waits in the tail and sorts in place', async () => {
    const c = await setup({}, 'postgres');
    const { a } = await fill(c);
    const sql = poolOf(c);
    const whole = await listAll(c, a.id, 'range=all&bots=1');
    const first = await api(c.t, 'GET', `/links/${a.id}/clicks?range=all&bots=1&limit=20`, { key: c.key });
    expect(first.status).toBe(200);
    expect(await seal(sql)).toBe(300);
    let cursor: string | null = first.body.cursor;
    const items = [...first.body.items];
    while (cursor) {
      const res = await api(c.t, 'GET', `/links/${a.id}/clicks?range=all&bots=1&limit=20&cursor=${cursor}`, {
        key: c.key,
      });
      expect(res.status).toBe(200);
      items.push(...res.body.items);
      cursor = res.body.cursor;
    }
    expect(items).toEqual(whole);

    // A click written after the seal with an old time (as a spill replay writes it): a new id,
    // in the tail, listed between sealed clicks by its time; sealed later, it lists the same.
    c.t.clock.set(T0 + 2 * HOUR + 500);
    expect(await click(c.t, '/sa', { ip: '8.8.8.8', ua: UA.chromeWin })).toBe(302);
    await flushOk(c.t);
    c.t.clock.set(T0 + 24 * HOUR);
    const withLate = await listAll(c, a.id, 'range=all&bots=1');
    expect(withLate).toHaveLength(whole.length + 1);
    const late = withLate.findIndex((r) => (r as { id: number }).id === 301);
    expect(late).toBeGreaterThan(0);
    expect(late).toBeLessThan(withLate.length - 1);
    expect(withLate.filter((_, i) => i !== late)).toEqual(whole);
    expect(await count(sql, 'click_tail')).toBe(1);
    expect(await seal(sql)).toBe(1);
    expect(await listAll(c, a.id, 'range=all&bots=1')).toEqual(withLate);
    await disposeTestApp(c.t);
  }, 120_000);

  test('an export across a seal is whole; one whose link is deleted while it reads blocks is cut short', async () => {
    const c = await setup({}, 'postgres');
    const link = await createLink(c, { slug: 'big' });
    // More than two export pages of 1000, one per millisecond back from T0.
    await insertStoredClicks(c.t, link.id, 3500, T0);
    const sql = poolOf(c);
    const path = `http://localhost/api/v1/links/${link.id}/export.csv?from=2026-11-01&to=2026-11-30`;
    const auth = { authorization: `Bearer ${c.key}` };
    const whole = await (await c.t.app.handle(new Request(path, { headers: auth }))).text();
    expect(whole.trimEnd().split('\n')).toHaveLength(3501);

    const res = await c.t.app.handle(new Request(path, { headers: auth }));
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    const first = await reader.read();
    text += decoder.decode(first.value, { stream: true });
    // Sealed in two segments while the export is under way.
    expect(await seal(sql, 2000)).toBe(2000);
    expect(await seal(sql)).toBe(1500);
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text).toBe(whole);

    // Now every click is in a block: a delete between two pages cuts the export short.
    const cut = await c.t.app.handle(new Request(path, { headers: auth }));
    const r2 = cut.body!.getReader();
    expect((await r2.read()).done).toBe(false);
    await deleteLink(c.t.deps, OPERATOR, link.id, true);
    let failed: unknown = null;
    try {
      for (;;) if ((await r2.read()).done) break;
    } catch (err) {
      failed = err;
    }
    expect(failed).not.toBeNull();
    expect(await count(sql, 'click_blocks')).toBe(0);
    await disposeTestApp(c.t);
  }, 120_000);
});

/** A fresh database with links `l0`..`l{n-1}`, and a click store on it (never sealing on its own unless told). */
async function storeWith(links: number, options: { sealRows?: number; retentionDays?: number; now?: number } = {}) {
  const url = await freshPostgresUrl();
  const sql = openPostgres(url, 4);
  pools.push(sql);
  for (let i = 0; i < links; i++) {
    // Domain 1: the first domain, which the migrations make.
    await sql`INSERT INTO links (id, slug, domain_id, destination, status, params, created_at, updated_at)
      VALUES (${`l${i}`}, ${`s${i}`}, 1, 'https://example.com/', 'active', '{}'::jsonb, 0, 0)`;
    await sql`INSERT INTO link_counters (link_id) VALUES (${`l${i}`})`;
  }
  const clock = fixedClock(options.now ?? T0);
  const store = new PostgresClickWriter(sql, noGeo, ['sl.test'], clock, {
    sealRows: options.sealRows ?? 1_000_000,
    retentionDays: options.retentionDays ?? 0,
  });
  return { url, sql, store, clock };
}

/** `n` clicks spread over `links` links, at `time` + i ms. */
function batch(n: number, links: number, time: number, from = 0) {
  return Array.from({ length: n }, (_, i) =>
    wire({ linkId: `l${(from + i) % links}`, time: time + i, address: `10.1.${(from + i) % 250}.${i % 250}` }),
  );
}

/** Waits until some session waits for an advisory lock (what a test holds). */
async function someoneWaitsForAdvisoryLock(sql: Pg, done: () => boolean): Promise<boolean> {
  for (;;) {
    const [r] = await sql`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`;
    if (r.n > 0) return true;
    if (done()) return false;
    await Bun.sleep(10);
  }
}

describe('the horizon: a batch still open is never sealed over', () => {
  test('a sealer waits for a batch transaction holding a lower id, then seals it with the rest', async () => {
    const { sql, store } = await storeWith(3);
    expect((await store.writeBatch(batch(10, 3, T0))).written).toBe(10);
    // A batch by hand, as a writer's: the barrier shared first, then an id, its row not committed yet.
    const open = await sql.reserve();
    await open`BEGIN`;
    await open`SELECT pg_advisory_xact_lock_shared(${CLICK_BARRIER_LOCK})`;
    const [{ id }] = await open`SELECT nextval('click_ids') AS id`;
    expect(Number(id)).toBe(11);
    await open`INSERT INTO click_tail (link, id, time, target, country, city, device, os, browser, referrer, traffic,
        language, visitor, flags)
      SELECT link, ${id}, time, target, country, city, device, os, browser, referrer, traffic, language, visitor, flags
      FROM click_tail WHERE id = 1`;
    // Another batch commits meanwhile, above it.
    expect((await store.writeBatch(batch(10, 3, T0 + 100, 10))).written).toBe(10);

    let finished = false;
    const sealing = new PgSealer(sql, { rows: 11, waitMs: 120_000 }).sealIfDue().finally(() => {
      finished = true;
    });
    expect(await someoneWaitsForAdvisoryLock(sql, () => finished)).toBe(true);
    // While it waits, nothing was sealed.
    expect(await count(sql, 'click_segments')).toBe(0);
    expect(await count(sql, 'click_tail')).toBe(20);
    await open`COMMIT`;
    open.release();
    expect(await sealing).toBe(21);
    expect(await storedIds(sql)).toEqual({ sealed: Array.from({ length: 21 }, (_, i) => i + 1), tail: [] });
  });

  test('a sealer that cannot have the barrier in time seals nothing, and the open batch keeps its row', async () => {
    const { sql, store } = await storeWith(2);
    expect((await store.writeBatch(batch(10, 2, T0))).written).toBe(10);
    const open = await sql.reserve();
    await open`BEGIN`;
    await open`SELECT pg_advisory_xact_lock_shared(${CLICK_BARRIER_LOCK})`;
    await open`SELECT nextval('click_ids')`;
    expect(await takeHorizon(sql, 50)).toBeNull();
    expect(await new PgSealer(sql, { rows: 6, waitMs: 50 }).sealIfDue()).toBe(0);
    expect(await count(sql, 'click_segments')).toBe(0);
    await open`ROLLBACK`;
    open.release();
    // The id the rolled-back batch took is a gap: sealed over once the barrier is free.
    expect(await new PgSealer(sql, { rows: 6, waitMs: 50 }).sealIfDue()).toBe(10);
    const [state] = await sql`SELECT value FROM click_state WHERE name = 'sealed_through'`;
    expect(Number(state.value)).toBe(11);
  });

  test('a batch holds the barrier shared: it waits while a horizon is taken', async () => {
    const { sql, store } = await storeWith(2);
    const horizon = await sql.reserve();
    await horizon`BEGIN`;
    await horizon`SELECT pg_advisory_xact_lock(${CLICK_BARRIER_LOCK})`;
    let finished = false;
    const writing = store.writeBatch(batch(10, 2, T0)).finally(() => {
      finished = true;
    });
    expect(await someoneWaitsForAdvisoryLock(sql, () => finished)).toBe(true);
    expect(await count(sql, 'click_tail')).toBe(0);
    await horizon`COMMIT`;
    horizon.release();
    expect((await writing).written).toBe(10);
    expect(await count(sql, 'click_tail')).toBe(10);
  });
});

describe('one sealer at a time', () => {
  test('a sealer finding another one at work skips its turn; sealers racing from several connections seal each click once', async () => {
    const { url, sql, store } = await storeWith(7);
    for (let i = 0; i < 6; i++)
      expect((await store.writeBatch(batch(100, 7, T0 + i * 1000, i * 100))).written).toBe(100);
    const horizon = (await takeHorizon(sql))!;
    expect(horizon).toBe(600);
    const busy = await sql.reserve();
    await busy`BEGIN`;
    await busy`SELECT pg_advisory_xact_lock(${CLICK_SEAL_LOCK})`;
    expect(await sealSegmentPg(sql, horizon, { minRows: 1, maxRows: 1000 })).toBe(0);
    await busy`ROLLBACK`;
    busy.release();

    // Four connections' sealers at once, again and again, 70 ids a segment at most.
    const others = Array.from({ length: 4 }, () => {
      const pool = openPostgres(url, 1);
      pools.push(pool);
      return pool;
    });
    let sealed = 0;
    for (let round = 0; round < 40 && (await count(sql, 'click_tail')) > 0; round++) {
      const got = await Promise.all(others.map((p) => sealSegmentPg(p, horizon, { minRows: 1, maxRows: 70 })));
      sealed += got.reduce((s, n) => s + n, 0);
    }
    expect(sealed).toBe(600);
    expect(await storedIds(sql)).toEqual({ sealed: Array.from({ length: 600 }, (_, i) => i + 1), tail: [] });
    const segs = await sql`SELECT seg, first_id, last_id, count FROM click_segments ORDER BY seg`;
    expect(segs.map((s: { count: number }) => s.count).reduce((a: number, b: number) => a + b, 0)).toBe(600);
    for (let i = 1; i < segs.length; i++) expect(Number(segs[i].first_id)).toBeGreaterThan(Number(segs[i - 1].last_id));
    expect(segs.map((s: { seg: string }) => Number(s.seg))).toEqual(
      Array.from({ length: segs.length }, (_, i) => i + 1),
    );
  });

  test('the store seals after a batch once a segment is due, a bounded step at a time', async () => {
    const { sql, store } = await storeWith(5, { sealRows: 50 });
    expect((await store.writeBatch(batch(49, 5, T0))).written).toBe(49);
    expect(await store.sealer.idle()).toBe(0);
    expect(await count(sql, 'click_segments')).toBe(0);
    // Started after the batch, not waited for by it.
    expect((await store.writeBatch(batch(1, 5, T0 + 100, 49))).written).toBe(1);
    expect(await store.sealer.idle()).toBe(50);
    expect(await count(sql, 'click_segments')).toBe(1);
    expect(await count(sql, 'click_tail')).toBe(0);
    // A backlog (a long outage's batch): two segments' worth at most per batch.
    expect((await store.writeBatch(batch(450, 5, T0 + 200, 50))).written).toBe(450);
    expect(await store.sealer.idle()).toBe(100);
    expect((await sql`SELECT count FROM click_segments ORDER BY seg`).map((r: { count: number }) => r.count)).toEqual([
      50, 100,
    ]);
    expect((await store.writeBatch(batch(1, 5, T0 + 1000, 500))).written).toBe(1);
    expect(await store.sealer.idle()).toBe(100);
    expect((await sql`SELECT count FROM click_segments ORDER BY seg`).map((r: { count: number }) => r.count)).toEqual([
      50, 100, 100,
    ]);
    expect(await storedIds(sql)).toEqual({
      sealed: Array.from({ length: 250 }, (_, i) => i + 1),
      tail: Array.from({ length: 251 }, (_, i) => i + 251),
    });
  });
});

describe('retention by segment', () => {
  test('a segment whose newest click is older than the cut goes whole; old tail rows go as before; segment numbers are never given again', async () => {
    const DAY = 24 * HOUR;
    const now = T0 + 40 * DAY;
    const { sql, store, clock } = await storeWith(3, { now });
    const pruner = new PostgresClickWriter(sql, noGeo, ['sl.test'], clock, { retentionDays: 30 });
    // Segment 1: only old clicks. Segment 2: old and recent ones. The tail: old and recent ones.
    expect((await store.writeBatch(batch(30, 3, now - 35 * DAY))).written).toBe(30);
    expect(await seal(sql)).toBe(30);
    expect((await store.writeBatch([...batch(10, 3, now - 34 * DAY), ...batch(10, 3, now - 5 * DAY)])).written).toBe(
      20,
    );
    expect(await seal(sql)).toBe(20);
    expect((await store.writeBatch(batch(10, 3, now - 33 * DAY))).written).toBe(10);
    expect((await store.writeBatch(batch(5, 3, now - DAY))).written).toBe(5);
    expect(await count(sql, 'click_blocks')).toBe(6);

    expect(await pruner.retain()).toEqual({ kind: 'segment', clicks: 30 });
    expect((await sql`SELECT seg FROM click_segments`).map((r: { seg: string }) => Number(r.seg))).toEqual([2]);
    expect((await sql`SELECT DISTINCT seg FROM click_blocks`).map((r: { seg: string }) => Number(r.seg))).toEqual([2]);
    expect(await pruner.retain()).toEqual({ kind: 'tail', clicks: 10 });
    expect(await pruner.retain()).toEqual({ kind: 'none' });
    expect(await storedIds(sql)).toEqual({
      sealed: Array.from({ length: 20 }, (_, i) => i + 31),
      tail: Array.from({ length: 5 }, (_, i) => i + 61),
    });

    // Forty days on, the last segment goes too (and the old tail): the next seal is segment 3.
    clock.set(now + 40 * DAY);
    expect(await pruner.retain()).toEqual({ kind: 'segment', clicks: 20 });
    expect(await pruner.retain()).toEqual({ kind: 'tail', clicks: 5 });
    expect(await count(sql, 'click_segments')).toBe(0);
    expect(await count(sql, 'click_blocks')).toBe(0);
    expect((await store.writeBatch(batch(4, 3, now + 40 * DAY - HOUR))).written).toBe(4);
    expect(await seal(sql)).toBe(4);
    expect((await sql`SELECT seg, first_id FROM click_segments`).map(Object.values)).toEqual([['3', '66']]);
  });
});
