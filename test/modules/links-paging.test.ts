/**
 * Keyset paging of GET /links: for every sort, walking all pages in every page size gives each
 * link exactly once, in the order `sort` defines (docs/behaviour.md; ties broken by id in the sort's
 * direction), and links created during the walk neither repeat nor push old ones out.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ErrorModel } from '../../src/http/models';
import { LinkListModel } from '../../src/modules/links/model';
import { api, makeKey, makeTestApp, T0, type TestApp } from '../helpers/app';
import { forEachEngine } from '../helpers/engines';
import { expectExactKeys, expectSchema } from '../helpers/schema';
import { setLinkCounters, storedLinks } from '../helpers/stored';

type Sort = 'created' | 'oldest' | 'clicks' | 'updated';
const SORTS: Sort[] = ['created', 'oldest', 'clicks', 'updated'];

interface Row {
  id: string;
  createdAt: number;
  updatedAt: number;
  clickCount: number;
  status: string;
}

/** Byte order, as both engines compare ids (not localeCompare). */
function cmpId(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The documented order, computed independently of the service. */
function expectedOrder(rows: Row[], sort: Sort): string[] {
  const key = (r: Row) => (sort === 'clicks' ? r.clickCount : sort === 'updated' ? r.updatedAt : r.createdAt);
  const dir = sort === 'oldest' ? 1 : -1;
  return [...rows].sort((a, b) => dir * (key(a) - key(b) || cmpId(a.id, b.id))).map((r) => r.id);
}

async function page(t: TestApp, key: string, query: string): Promise<{ items: any[]; cursor: string | null }> {
  const res = await api(t, 'GET', `/links?${query}`, { key });
  expect(res.status).toBe(200);
  expectSchema(LinkListModel, res.body);
  expectExactKeys(res.body, ['items', 'cursor']);
  return res.body;
}

/** Walks every page; `between` runs after each page that has a next one. */
async function walk(
  t: TestApp,
  key: string,
  base: string,
  limit: number | null,
  between?: (pageIndex: number) => Promise<void>,
): Promise<{ ids: string[]; pages: number[] }> {
  const ids: string[] = [];
  const pages: number[] = [];
  let cursor: string | null = null;
  for (let i = 0; ; i++) {
    expect(i).toBeLessThan(500);
    const parts = [
      base,
      limit === null ? '' : `limit=${limit}`,
      cursor === null ? '' : `cursor=${encodeURIComponent(cursor)}`,
    ];
    const body = await page(t, key, parts.filter(Boolean).join('&'));
    ids.push(...body.items.map((l) => l.id));
    pages.push(body.items.length);
    if (body.cursor === null) break;
    expect(body.cursor).toEqual(expect.any(String));
    // A cursor is only handed out when something follows.
    expect(body.items.length).toBe(limit ?? 50);
    if (between) await between(i);
    cursor = body.cursor;
  }
  return { ids, pages };
}

function rowsOf(t: TestApp): Promise<Row[]> {
  return storedLinks(t);
}

forEachEngine((engine) => {
  // ---------------------------------------------------------------------------------------

  describe('GET /links paging over 37 links with ties', () => {
    let t: TestApp;
    let key: string;
    let visible: Row[];
    let archived: Row[];

    beforeAll(async () => {
      t = await makeTestApp({ SLINK_RATE_LIMIT: '1000000' }, { engine });
      key = (await makeKey(t, 'write', { superuser: true })).key;
      const ids: string[] = [];
      // createdAt: groups of three share a millisecond (ties), groups differ.
      for (let i = 0; i < 37; i++) {
        if (i % 3 === 0) t.clock.advance(1_000);
        const res = await api(t, 'POST', '/links', {
          key,
          body: { destination: `https://example.com/${i}`, tags: ['paging'] },
        });
        expect(res.status).toBe(201);
        ids.push(res.body.id);
      }
      // updatedAt: touched in a scrambled order, the clock moving only every other PATCH (ties),
      // a few links never touched (they keep their createdAt).
      for (let n = 0; n < 30; n++) {
        const id = ids[(n * 11) % 37]!;
        if (n % 2 === 0) t.clock.advance(500);
        const res = await api(t, 'PATCH', `/links/${id}`, { key, body: { title: `touched ${n}` } });
        expect(res.status).toBe(200);
      }
      // clickCount: written directly (clicks do not flow yet); many ties, many zeros.
      for (const [i, id] of ids.entries()) {
        await setLinkCounters(t, id, { clicks: (i * 7) % 5 === 0 ? 0 : (i * 7) % 4 });
      }
      // Paused links are listed by default, archived ones are not.
      for (const i of [4, 20]) {
        expect((await api(t, 'PATCH', `/links/${ids[i]}`, { key, body: { status: 'paused' } })).status).toBe(200);
      }
      for (const i of [7, 8, 30]) {
        expect((await api(t, 'PATCH', `/links/${ids[i]}`, { key, body: { status: 'archived' } })).status).toBe(200);
      }
      const rows = await rowsOf(t);
      visible = rows.filter((r) => r.status !== 'archived');
      archived = rows.filter((r) => r.status === 'archived');
    });
    afterAll(() => t.close());

    test('the fixture really has distinct and tied values for every sort key', () => {
      expect(visible).toHaveLength(34);
      expect(archived).toHaveLength(3);
      for (const k of ['createdAt', 'updatedAt', 'clickCount'] as const) {
        const values = visible.map((r) => r[k]);
        const distinct = new Set(values).size;
        expect(distinct).toBeGreaterThan(2);
        expect(distinct).toBeLessThan(values.length);
      }
      // Every createdAt is on or after T0.
      expect(Math.min(...visible.map((r) => r.createdAt))).toBeGreaterThan(T0);
    });

    for (const sort of SORTS) {
      for (const limit of [1, 5, 10, null]) {
        test(`sort=${sort}, limit=${limit ?? 'default'}: every link once, in order, cursor null at the end`, async () => {
          const { ids, pages } = await walk(t, key, `sort=${sort}`, limit);
          expect(ids).toEqual(expectedOrder(visible, sort));
          expect(new Set(ids).size).toBe(ids.length);
          const size = limit ?? 50;
          expect(pages).toHaveLength(Math.ceil(34 / size));
          expect(pages.slice(0, -1).every((n) => n === size)).toBe(true);
        });
      }

      test(`sort=${sort} with status=archived pages through the archived links only`, async () => {
        const { ids } = await walk(t, key, `sort=${sort}&status=archived`, 2);
        expect(ids).toEqual(expectedOrder(archived, sort));
      });
    }

    test('without sort the order is created (newest first)', async () => {
      const { ids } = await walk(t, key, 'tag=paging', 7);
      expect(ids).toEqual(expectedOrder(visible, 'created'));
    });

    test('items carry the values they are sorted by', async () => {
      const body = await page(t, key, 'sort=clicks&limit=100');
      const byId = new Map(visible.map((r) => [r.id, r]));
      for (const item of body.items) {
        const row = byId.get(item.id)!;
        expect([item.clickCount, item.createdAt, item.updatedAt]).toEqual([
          row.clickCount,
          row.createdAt,
          row.updatedAt,
        ]);
      }
      const counts = body.items.map((l: any) => l.clickCount);
      expect(counts).toEqual([...counts].sort((a, b) => b - a));
    });

    test('a cursor from one sort used with another sort -> 400 field cursor', async () => {
      for (const from of SORTS) {
        const first = await page(t, key, `sort=${from}&limit=3`);
        expect(first.cursor).toEqual(expect.any(String));
        // The same sort accepts it...
        const ok = await api(t, 'GET', `/links?sort=${from}&limit=3&cursor=${encodeURIComponent(first.cursor!)}`, {
          key,
        });
        expect(ok.status).toBe(200);
        for (const to of SORTS) {
          if (to === from) continue;
          const res = await api(t, 'GET', `/links?sort=${to}&limit=3&cursor=${encodeURIComponent(first.cursor!)}`, {
            key,
          });
          expect({ status: res.status, code: res.body?.error?.code, field: res.body?.error?.field }).toEqual({
            status: 400,
            code: 'invalid_request',
            field: 'cursor',
          });
          expectSchema(ErrorModel, res.body);
        }
        // ...and no sort given means created.
        const implicit = await api(t, 'GET', `/links?limit=3&cursor=${encodeURIComponent(first.cursor!)}`, { key });
        expect(implicit.status).toBe(from === 'created' ? 200 : 400);
      }
    });

    test('a cursor keeps working under the same filters and page size changes', async () => {
      const first = await page(t, key, 'sort=updated&limit=4');
      const rest = await walk(t, key, `sort=updated&cursor=${encodeURIComponent(first.cursor!)}`, 9);
      expect([...first.items.map((l) => l.id), ...rest.ids]).toEqual(expectedOrder(visible, 'updated'));
    });
  });

  // ---------------------------------------------------------------------------------------

  describe('GET /links paging while links are being created', () => {
    for (const sort of SORTS) {
      for (const advance of [true, false]) {
        test(`sort=${sort}, new links ${advance ? 'later' : 'in the same millisecond'}: no repeats, no skips`, async () => {
          const t = await makeTestApp({ SLINK_RATE_LIMIT: '1000000' }, { engine });
          try {
            const { key } = await makeKey(t, 'write', { superuser: true });
            for (let i = 0; i < 37; i++) {
              if (i % 4 === 0) t.clock.advance(1_000);
              const res = await api(t, 'POST', '/links', { key, body: { destination: `https://example.com/${i}` } });
              expect(res.status).toBe(201);
              // Ties in clickCount too, including with the new links' zero.
              await setLinkCounters(t, res.body.id, { clicks: i % 3 });
            }
            const initial = await rowsOf(t);
            const expected = expectedOrder(initial, sort);
            const created: string[] = [];
            const { ids } = await walk(t, key, `sort=${sort}`, 5, async () => {
              if (advance) t.clock.advance(250);
              for (let k = 0; k < 2; k++) {
                const res = await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/new' } });
                expect(res.status).toBe(201);
                created.push(res.body.id);
              }
            });
            expect(created.length).toBeGreaterThan(0);
            // No repeats at all.
            expect(new Set(ids).size).toBe(ids.length);
            // Every link that existed at the start, exactly once and in order.
            const initialIds = new Set(initial.map((r) => r.id));
            expect(ids.filter((id) => initialIds.has(id))).toEqual(expected);
            // Anything else seen is one of the links created during the walk.
            for (const id of ids) if (!initialIds.has(id)) expect(created).toContain(id);
            // Newest-first walks never reach links created after they started (later clock).
            if (advance && (sort === 'created' || sort === 'updated')) expect(ids).toEqual(expected);
          } finally {
            t.close();
          }
        });
      }
    }
  });

  // ---------------------------------------------------------------------------------------

  describe('GET /links page sizes', () => {
    let t: TestApp;
    let key: string;
    beforeAll(async () => {
      t = await makeTestApp({ SLINK_RATE_LIMIT: '1000000' }, { engine });
      key = (await makeKey(t, 'write', { superuser: true })).key;
      for (let i = 0; i < 120; i++) {
        t.clock.advance(10);
        const res = await api(t, 'POST', '/links', { key, body: { destination: `https://example.com/${i}` } });
        expect(res.status).toBe(201);
      }
    });
    afterAll(() => t.close());

    test('the default page size is 50', async () => {
      const first = await page(t, key, '');
      expect(first.items).toHaveLength(50);
      expect(first.cursor).toEqual(expect.any(String));
      const { pages, ids } = await walk(t, key, 'sort=created', null);
      expect(pages).toEqual([50, 50, 20]);
      expect(ids).toEqual(expectedOrder(await rowsOf(t), 'created'));
    });

    test('limit=100 is the largest page; 101 is refused', async () => {
      const { pages } = await walk(t, key, 'sort=oldest', 100);
      expect(pages).toEqual([100, 20]);
      const res = await api(t, 'GET', '/links?limit=101', { key });
      expect({ status: res.status, code: res.body?.error?.code, field: res.body?.error?.field }).toEqual({
        status: 400,
        code: 'invalid_request',
        field: 'limit',
      });
    });

    test('a cursor whose id holds NUL pages by byte order, as if its id ended before the NUL', async () => {
      const rows = await rowsOf(t);
      const middle = expectedOrder(rows, 'created')[60]!;
      const at = rows.find((r) => r.id === middle)!.createdAt;
      const cursor = (sort: Sort) =>
        encodeURIComponent(Buffer.from(JSON.stringify([sort, at, `${middle}\u0000z`])).toString('base64url'));
      // Byte order: the id itself is below `${id}\0z`; every id above it is above that too.
      const newest = await page(t, key, `sort=created&limit=100&cursor=${cursor('created')}`);
      expect(newest.items.map((l) => l.id)).toEqual(
        expectedOrder(rows, 'created').filter((id) => {
          const r = rows.find((x) => x.id === id)!;
          return r.createdAt < at || (r.createdAt === at && cmpId(id, middle) <= 0);
        }),
      );
      const oldest = await page(t, key, `sort=oldest&limit=100&cursor=${cursor('oldest')}`);
      expect(oldest.items.map((l) => l.id)).toEqual(
        expectedOrder(rows, 'oldest').filter((id) => {
          const r = rows.find((x) => x.id === id)!;
          return r.createdAt > at || (r.createdAt === at && cmpId(id, middle) > 0);
        }),
      );
    });

    test('an exact multiple of the page size ends with cursor null, not an empty page', async () => {
      const { pages } = await walk(t, key, 'sort=clicks', 40);
      expect(pages).toEqual([40, 40, 40]);
      const { pages: sixty } = await walk(t, key, 'sort=updated', 60);
      expect(sixty).toEqual([60, 60]);
    });
  });
});
