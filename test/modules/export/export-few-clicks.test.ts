/**
 * The workspace export's click lines, where links with few clicks are read many at a time
 * (clicks/sqlite/few-clicks.ts, clicks/postgres/few-clicks.ts) and a link with more page by page:
 * every click of every link exactly once, each link's newest first, the same lines whether the
 * clicks are in the tail, half sealed into blocks or all sealed. More links than one group, one
 * link past the group read's limit. On both engines (each has its own reader). With
 * SLINK_RETENTION_DAYS set, every link's clicks are counted before its line too: all are on
 * lines, so no link line carries `countedOnly`.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { openPostgres, type Pg } from '../../../src/db/postgres/client';
import { sealSegmentPg, takeHorizon } from '../../../src/modules/clicks/postgres/seal';
import { sealBacklog } from '../../../src/modules/clicks/sqlite/seal';
import { disposeTestApp, T0 } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { storedRows } from '../../helpers/stored';
import { storedClicks } from '../../helpers/stored-clicks';
import { type Ctx, clickRequest, createLink, flushOk, setup, UA } from '../clicks/support';

const BUSY_CLICKS = 450;

forEachEngine((engine) => {
  let c: Ctx;
  let sql: Pg | null = null;
  const links: { id: string; slug: string }[] = [];

  beforeAll(async () => {
    // Ten years: every click kept, every link's clicks counted before its line.
    c = await setup({ SLINK_RETENTION_DAYS: '3650' }, engine);
    const address = c.t.deps.stores.address;
    if (address.engine === 'postgres') sql = openPostgres(address.url, 1);
    for (let i = 0; i < 60; i++) links.push(await createLink(c, { destination: `https://example.com/few/${i}` }));
    let at = T0;
    const hit = async (slug: string, ua: string) => {
      at += 1000;
      c.t.clock.set(at);
      await (await c.t.app.handle(clickRequest(`/${slug}`, { ua }))).arrayBuffer();
    };
    // Interleaved, so that ids and times of one link are spread among the others'.
    for (let round = 0; round < 3; round++)
      for (const [i, link] of links.entries())
        if (i % 7 !== 3) await hit(link.slug, round === 1 ? UA.googlebot : UA.chromeWin);
    for (let i = 0; i < BUSY_CLICKS; i++) await hit(links[11]!.slug, UA.chromeWin);
    await flushOk(c.t);
  });

  afterAll(async () => {
    await sql?.close();
    await disposeTestApp(c.t);
  });

  async function clickLines(): Promise<string[]> {
    const res = await c.t.app.handle(
      new Request('http://localhost/api/v1/export?clicks=1', { headers: { authorization: `Bearer ${c.key}` } }),
    );
    expect(res.status).toBe(200);
    const lines = (await res.text()).split('\n');
    // Counted as they are read: every click counted is on a line.
    const links = lines.filter((l) => l.includes('"type":"link"')).map((l) => JSON.parse(l));
    expect(links.length).toBe(60);
    expect(links.filter((l) => l.countedOnly !== undefined).map((l) => [l.slug, l.countedOnly])).toEqual([]);
    return lines.filter((l) => l.includes('"type":"click"'));
  }

  /** Seals the oldest `rows` clicks of the tail (all of them: a large number). */
  async function seal(rows: number): Promise<number> {
    if (sql !== null) {
      const horizon = await takeHorizon(sql);
      return sealSegmentPg(sql, horizon!, { minRows: 1, maxRows: rows });
    }
    const sqlite = c.t.deps.db.$client;
    const ids = sqlite.query<{ id: number }, [number]>('SELECT id FROM click_tail ORDER BY id LIMIT ?').all(rows);
    return sealBacklog(sqlite, ids.at(-1)!.id, 100);
  }

  test('links with few clicks read together, a busy one page by page: every click once, the same across seals', async () => {
    const inTail = await clickLines();
    const byLink = new Map<string, number[]>();
    for (const line of inTail) {
      const click = JSON.parse(line) as { id: number; linkId: string };
      byLink.set(click.linkId, [...(byLink.get(click.linkId) ?? []), click.id]);
    }
    for (const [i, link] of links.entries()) {
      const stored = (await storedClicks(c.t, link.id)).map((s) => s.id).sort((a, b) => b - a);
      expect({ i, ids: byLink.get(link.id) ?? [] }).toEqual({ i, ids: stored });
    }
    expect(byLink.get(links[11]!.id)).toHaveLength(3 + BUSY_CLICKS);
    expect(byLink.has(links[3]!.id)).toBe(false);
    // Half of the clicks in blocks, then all: the same lines.
    expect(await seal(Math.floor(inTail.length / 2))).toBeGreaterThan(0);
    expect(await clickLines()).toEqual(inTail);
    expect(await seal(1_000_000)).toBeGreaterThan(0);
    const [tail] = await storedRows(c.t, 'SELECT count(*) AS n FROM click_tail');
    expect(Number(tail!.n)).toBe(0);
    expect(await clickLines()).toEqual(inTail);
  }, 60_000);
});
