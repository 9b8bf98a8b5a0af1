/**
 * GET /links?sort=clicks over counts from 0 to past 2^53 - 1: most clicks first, ties by id
 * descending, every page of every walk by cursor (docs/behaviour.md). On PostgreSQL the order
 * comes from a coarse rank of the count, exact below 64, read in two parts
 * (links/postgres/click-order.ts): the counts here hold ties and many counts within one coarse
 * rank whose ids run against their counts (a read that took the rank's links in id order would
 * fail), and cross the boundary at 64 at every page size. Both engines must answer the same order.
 * One app per engine; the links are made once.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { api, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../helpers/app';
import { forEachEngine } from '../helpers/engines';
import { storedRows } from '../helpers/stored';

/** The counts given to the links, in creation order: ties, both sides of 64, one coarse rank's neighbours. */
const COUNTS = [
  ...[0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 5, 5, 31, 62, 62, 63, 63, 63],
  ...[64, 64, 64, 65, 66, 67, 100, 127, 127, 128, 129, 130],
  // 2,000-2,040: one rank or two (a step every ~2.2%), each count on several links.
  ...[2000, 2000, 2000, 2005, 2005, 2005, 2010, 2010, 2010, 2020, 2020, 2030, 2040, 2040],
  ...[2047, 2048, 2049, 5000, 5000, 1_000_000, 2 ** 40, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  ...[3, 70, 70, 2010, 0, 64, 63, 9, 2000, 150],
];

interface Link {
  id: string;
  clicks: number;
  tag: boolean;
  project: boolean;
  onGo: boolean;
  needle: boolean;
  status: 'active' | 'paused' | 'archived';
}

/** Byte order, as both engines compare ids. */
const cmpId = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The documented order, computed independently of either store. */
const expected = (links: Link[]) =>
  [...links].sort((a, b) => b.clicks - a.clicks || cmpId(b.id, a.id)).map((l) => l.id);

forEachEngine((engine) => {
  describe('GET /links?sort=clicks', () => {
    let t: TestApp;
    let key: string;
    let links: Link[];
    let projectId: string;

    /** Every page of `query` by cursor, `limit` at a time: the ids in the order answered. */
    async function walk(query: string, limit: number): Promise<string[]> {
      const ids: string[] = [];
      let cursor: string | null = null;
      for (let i = 0; ; i++) {
        expect(i).toBeLessThan(200);
        const after: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
        const res = await api(t, 'GET', `/links?sort=clicks&limit=${limit}${query}${after}`, { key });
        expect(res.status).toBe(200);
        ids.push(...res.body.items.map((l: { id: string }) => l.id));
        cursor = res.body.cursor;
        if (cursor === null) return ids;
        expect(res.body.items).toHaveLength(limit);
      }
    }

    beforeAll(async () => {
      t = await makeTestApp({ SLINK_RATE_LIMIT: '1000000' }, { engine });
      key = (await makeKey(t, 'write', { superuser: true })).key;
      const project = await api(t, 'POST', '/projects', { key, body: { name: 'Ranked' } });
      expect(project.status).toBe(201);
      projectId = project.body.id;
      expect((await api(t, 'POST', '/domains', { key, body: { origin: 'https://go.example.com' } })).status).toBe(201);
      links = [];
      for (const [i, clicks] of COUNTS.entries()) {
        const link: Link = {
          id: '',
          clicks,
          tag: i % 2 === 0,
          project: i % 3 === 0,
          onGo: i % 4 === 1,
          needle: i % 5 === 2,
          status: i % 11 === 4 ? 'archived' : i % 7 === 3 ? 'paused' : 'active',
        };
        const res = await api(t, 'POST', '/links', {
          key,
          body: {
            destination: `https://example.com/${i}`,
            ...(link.needle ? { title: `a Needle ${i}` } : {}),
            ...(link.tag ? { tags: ['even'] } : {}),
            ...(link.project ? { projectId } : {}),
            ...(link.onGo ? { domain: 'go.example.com' } : {}),
          },
        });
        expect(res.status).toBe(201);
        link.id = res.body.id;
        if (link.status !== 'active') {
          expect((await api(t, 'PATCH', `/links/${link.id}`, { key, body: { status: link.status } })).status).toBe(200);
        }
        links.push(link);
      }
      // The counts as the click pipeline would have left them (one statement: ids are the API's).
      const cases = links.map((l) => `WHEN '${l.id}' THEN ${l.clicks}`).join(' ');
      await storedRows(t, `UPDATE link_counters SET clicks = CASE link_id ${cases} ELSE clicks END`);
    });
    afterAll(() => disposeTestApp(t));

    const listed = (keep: (l: Link) => boolean) => links.filter((l) => l.status !== 'archived' && keep(l));

    if (engine === 'postgres') {
      test('the fixture: exact ranks are the counts, and one coarse rank holds counts whose ids run against them', async () => {
        const rows = await storedRows(t, 'SELECT link_id, clicks, click_rank FROM link_counters');
        expect(rows).toHaveLength(COUNTS.length);
        for (const r of rows) {
          if (Number(r.clicks) < 64) expect(r.click_rank).toBe(Number(r.clicks));
          else expect(Number(r.click_rank)).toBeGreaterThanOrEqual(64);
        }
        const crossed = rows.some((a) =>
          rows.some(
            (b) =>
              a.click_rank === b.click_rank &&
              Number(a.click_rank) >= 64 &&
              Number(a.clicks) > Number(b.clicks) &&
              cmpId(a.link_id as string, b.link_id as string) < 0,
          ),
        );
        expect(crossed).toBe(true);
      });
    }

    for (const limit of [1, 2, 3, 5, 8, 13, 50, 100]) {
      test(`every page, limit=${limit}: each listed link once, in the order of clicks then id`, async () => {
        expect(await walk('', limit)).toEqual(expected(listed(() => true)));
      });
    }

    const filters: [string, (l: Link) => boolean][] = [
      ['&tag=even', (l) => l.tag],
      ['&project=PROJECT', (l) => l.project],
      ['&project=none', (l) => !l.project],
      ['&domain=go.example.com', (l) => l.onGo],
      ['&q=NEEDLE', (l) => l.needle],
      ['&tag=even&domain=sl.test', (l) => l.tag && !l.onGo],
    ];
    for (const [query, keep] of filters) {
      test(`filtered by ${query.slice(1)}: every page at limits 1, 3 and 100`, async () => {
        const given = query.replace('PROJECT', projectId);
        expect(listed(keep).length).toBeGreaterThan(3);
        for (const limit of [1, 3, 100]) expect(await walk(given, limit)).toEqual(expected(listed(keep)));
      });
    }

    test('status=archived and status=paused: every page', async () => {
      const archived = links.filter((l) => l.status === 'archived');
      expect(archived.length).toBeGreaterThan(2);
      expect(await walk('&status=archived', 2)).toEqual(expected(archived));
      expect(await walk('&status=paused', 1)).toEqual(expected(links.filter((l) => l.status === 'paused')));
    });

    test('a cursor at any count, present or not, continues right after it (ids with NUL compared bytewise)', async () => {
      const order = expected(listed(() => true));
      const byId = new Map(links.map((l) => [l.id, l]));
      const after = (clicks: number, id: string) =>
        order.filter((x) => {
          const l = byId.get(x)!;
          return l.clicks < clicks || (l.clicks === clicks && cmpId(x, id) < 0);
        });
      const middle = (clicks: number) => links.find((l) => l.clicks === clicks && l.status !== 'archived')!.id;
      const keys: [number, string][] = [
        [2005, middle(2005)],
        [2005, `${middle(2005)}\u0000z`],
        [64, middle(64)],
        [63, middle(63)],
        [63, `${middle(63)}\u0000z`],
        [2003, 'lnk_m'],
        [1500, ''],
        [64, '\u007f'],
        [40, 'zzzz'],
        [0, ''],
        [-5, 'a'],
        [Number.MAX_SAFE_INTEGER, '\u007f'],
      ];
      for (const [clicks, id] of keys) {
        const cursor = Buffer.from(JSON.stringify(['clicks', clicks, id])).toString('base64url');
        const res = await api(t, 'GET', `/links?sort=clicks&limit=100&cursor=${cursor}`, { key });
        expect(res.status).toBe(200);
        expect({ clicks, id, ids: res.body.items.map((l: { id: string }) => l.id) }).toEqual({
          clicks,
          id,
          ids: after(clicks, id),
        });
      }
    });
  });
});
