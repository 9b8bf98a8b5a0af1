/**
 * The variant breakdowns and topLinks, through the real redirect, flush and API: a link's
 * variant list has a `""` entry for its own clicks and adds up to totals.clicks; the workspace's
 * keeps each link's variants apart as `<slug>/<code>` (with linkId and code), never adding up
 * the same code of two links; topLinks carry the link's title.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { StatsModel, WorkspaceStatsModel } from '../../../src/modules/analytics/model';
import { api, disposeTestApp } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { expectSchema } from '../../helpers/schema';
import { type Ctx, click, createLink, createVariant, flushOk, setup, UA } from '../clicks/support';

forEachEngine((engine) => {
  let c: Ctx;
  let one: any;
  let two: any;
  let variants: Record<string, any>;

  const sum = (rows: { clicks: number }[]) => rows.reduce((n, r) => n + r.clicks, 0);

  async function stats(path: string): Promise<any> {
    const res = await api(c.t, 'GET', path, { key: c.key });
    expect(res.status).toBe(200);
    expectSchema(path.startsWith('/workspace') ? WorkspaceStatsModel : StatsModel, res.body);
    return res.body;
  }

  async function visit(path: string, times: number, o: Parameters<typeof click>[2] = {}): Promise<void> {
    for (let i = 0; i < times; i++) expect(await click(c.t, path, { ip: `192.0.2.${i + 1}`, ...o })).toBe(302);
  }

  beforeAll(async () => {
    c = await setup({}, engine);
    one = await createLink(c, { slug: 'one', title: 'Spring sale' });
    two = await createLink(c, { slug: 'two' });
    variants = {
      oneA: await createVariant(c, one.id, { code: 'a' }),
      oneB: await createVariant(c, one.id, { code: 'b' }),
      twoB: await createVariant(c, two.id, { code: 'b' }),
      oneGone: await createVariant(c, one.id, { code: 'gone' }),
    };
    await visit('/one', 2); // the bare link
    await visit('/one/a', 1);
    await visit('/one/b', 3);
    await visit('/one/zz', 1); // a code no variant ever had
    await visit('/one/gone', 1); // its variant is deleted below
    await visit('/one/a', 1, { ua: UA.googlebot }); // a bot hit: only with bots=1
    await visit('/two/b', 2);
    await visit('/two', 1);
    await flushOk(c.t);
    const deleted = await api(c.t, 'DELETE', `/links/${one.id}/variants/${variants.oneGone.id}`, { key: c.key });
    expect(deleted.status).toBe(200);
  });
  afterAll(async () => {
    await disposeTestApp(c.t);
  });

  describe("a link's variant breakdown", () => {
    test('`""` counts the bare link and unrecognised codes; the list adds up to totals.clicks', async () => {
      const body = await stats(`/links/${one.id}/stats`);
      expect(body.totals.clicks).toBe(8);
      expect(body.breakdowns.variant).toEqual([
        { value: '', clicks: 4 }, // 2 bare, zz, gone
        { value: 'b', clicks: 3 },
        { value: 'a', clicks: 1 },
      ]);
      expect(sum(body.breakdowns.variant)).toBe(body.totals.clicks);
      expect(body.unknownVariants).toEqual([
        { code: 'gone', clicks: 1 },
        { code: 'zz', clicks: 1 },
      ]);
    });

    test('with bots=1 the bot hits count in it too, and it still adds up', async () => {
      const body = await stats(`/links/${one.id}/stats?bots=1`);
      expect(body.totals.clicks).toBe(9);
      expect(body.breakdowns.variant).toEqual([
        { value: '', clicks: 4 },
        { value: 'b', clicks: 3 },
        { value: 'a', clicks: 2 },
      ]);
      expect(sum(body.breakdowns.variant)).toBe(body.totals.clicks);
    });

    test('a link clicked only on its bare address has one entry, `""`; one never clicked has none', async () => {
      const bare = await createLink(c, { slug: 'bare' });
      expect((await stats(`/links/${bare.id}/stats`)).breakdowns.variant).toEqual([]);
      await visit('/bare', 2);
      await flushOk(c.t);
      expect((await stats(`/links/${bare.id}/stats`)).breakdowns.variant).toEqual([{ value: '', clicks: 2 }]);
    });
  });

  describe("the workspace's variant breakdown and topLinks", () => {
    test('each link keeps its own variants, as <slug>/<code> with linkId and code; no link-own entries', async () => {
      const body = await stats('/workspace/stats');
      expect(body.breakdowns.variant).toEqual([
        { value: 'one/b', linkId: one.id, code: 'b', clicks: 3 },
        { value: 'two/b', linkId: two.id, code: 'b', clicks: 2 },
        { value: 'one/a', linkId: one.id, code: 'a', clicks: 1 },
      ]);
      expect(body.unknownVariants).toEqual([
        { code: 'gone', clicks: 1 },
        { code: 'zz', clicks: 1 },
      ]);
    });

    test('topLinks carry the title (null without one)', async () => {
      const body = await stats('/workspace/stats');
      // (`bare`, clicked in the test above, is left out here.)
      expect(body.topLinks.filter((l: any) => l.slug !== 'bare')).toEqual([
        { id: one.id, slug: 'one', title: 'Spring sale', clicks: 8 },
        { id: two.id, slug: 'two', title: null, clicks: 3 },
      ]);
    });

    test('renamed slugs and codes show their current names; the clicks stay with the variant', async () => {
      const renamed = await api(c.t, 'PATCH', `/links/${two.id}`, { key: c.key, body: { slug: 'deux', title: 'Two' } });
      expect(renamed.status).toBe(200);
      const recoded = await api(c.t, 'PATCH', `/links/${one.id}/variants/${variants.oneB.id}`, {
        key: c.key,
        body: { code: 'bee' },
      });
      expect(recoded.status).toBe(200);
      const body = await stats('/workspace/stats');
      expect(body.breakdowns.variant).toEqual([
        { value: 'one/bee', linkId: one.id, code: 'bee', clicks: 3 },
        { value: 'deux/b', linkId: two.id, code: 'b', clicks: 2 },
        { value: 'one/a', linkId: one.id, code: 'a', clicks: 1 },
      ]);
      expect(body.topLinks.find((l: any) => l.id === two.id)).toEqual({
        id: two.id,
        slug: 'deux',
        title: 'Two',
        clicks: 3,
      });
    });
  });
});
