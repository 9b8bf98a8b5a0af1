/**
 * The click limit is exact under concurrency, over a real socket: `clickLimit` human clicks are
 * let through (302) and every other request answers 410; bots never use the limit up; clicks
 * stored before a restart and clicks still in the buffer both count.
 */
import { describe, expect, test } from 'bun:test';
import { api, disposeTestApp, type TestApp } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { storedClicks, storedRows } from '../../helpers/stored';
import { click, createLink, flushOk, getLink, reopen, setup, UA } from './support';

interface Shot {
  ua: string;
  method?: 'HEAD';
  bot: boolean;
}

const HUMAN: Shot = { ua: UA.chromeWin, bot: false };
const BOT_SHOTS: Shot[] = [
  { ua: UA.googlebot, bot: true },
  { ua: UA.curl, bot: true },
  { ua: UA.facebook, bot: true },
  { ua: UA.chromeWin, method: 'HEAD', bot: true },
];

function listen(t: TestApp): string {
  t.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false });
  return `http://127.0.0.1:${t.app.server!.port}`;
}

/** Fires every shot at once at `base + path` (Host: sl.test); returns the statuses in order. */
async function fire(base: string, path: string, shots: Shot[]): Promise<number[]> {
  const responses = await Promise.all(
    shots.map((s, i) =>
      fetch(`${base}${path}`, {
        method: s.method ?? 'GET',
        redirect: 'manual',
        headers: { host: 'sl.test', 'user-agent': s.ua, 'x-forwarded-for': `198.51.100.${i % 250}` },
      }),
    ),
  );
  await Promise.all(responses.map((r) => r.arrayBuffer()));
  return responses.map((r) => r.status);
}

const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

/** The link's stored raw clicks, humans and bots (either engine). */
async function rawCounts(t: TestApp, linkId: string) {
  const mine = (await storedClicks(t)).filter((c) => c.link_id === linkId);
  return {
    humans: mine.filter((c) => Number(c.bot) === 0).length,
    bots: mine.filter((c) => Number(c.bot) === 1).length,
  };
}

/** The link's stored counters (either engine). */
async function storedCounts(t: TestApp, linkId: string) {
  const [row] = await storedRows(t, 'SELECT clicks, bots FROM link_counters WHERE link_id = ?', linkId);
  return { clicks: Number(row!.clicks), bots: Number(row!.bots) };
}

forEachEngine((engine) => {
  describe('click limit under concurrency, over a real socket', () => {
    test('500 concurrent human clicks at clickLimit 100: exactly 100 redirect, 400 answer 410', async () => {
      const c = await setup({}, engine);
      const { t } = c;
      const link = await createLink(c, { slug: 'limited', clickLimit: 100 });
      const base = listen(t);
      const statuses = await fire(
        base,
        '/limited',
        Array.from({ length: 500 }, () => HUMAN),
      );
      expect(statuses.length).toBe(500);
      expect({ redirected: count(statuses, 302), gone: count(statuses, 410) }).toEqual({ redirected: 100, gone: 400 });

      await flushOk(t);
      expect(await storedCounts(t, link.id)).toEqual({ clicks: 100, bots: 0 });
      expect(await rawCounts(t, link.id)).toEqual({ humans: 100, bots: 0 });
      expect((await getLink(c, link.id)).clickCount).toBe(100);
      // Full for good: the next visitor gets the 410 page.
      const after = await fetch(`${base}/limited`, {
        redirect: 'manual',
        headers: { host: 'sl.test', 'user-agent': UA.safariIphone },
      });
      expect(after.status).toBe(410);
      expect(await after.text()).toContain('reached its click limit');
      await disposeTestApp(t);
    });

    test('bots do not use the limit up: 150 bot hits, then 300 humans mixed with 200 bots, still exactly 100 humans', async () => {
      const c = await setup({}, engine);
      const { t } = c;
      const link = await createLink(c, { slug: 'mixed', clickLimit: 100 });
      const base = listen(t);
      const firstBots = Array.from({ length: 150 }, (_, i) => BOT_SHOTS[i % BOT_SHOTS.length]!);
      const early = await fire(base, '/mixed', firstBots);
      expect(count(early, 302)).toBe(150); // more bot hits than the limit, all redirected
      expect(t.deps.linkIndex.getById(link.id)!.counters.humanClicks).toBe(0);

      // Interleaved so that humans and bots race each other.
      const shots = Array.from({ length: 500 }, (_, i) => (i % 5 < 3 ? HUMAN : BOT_SHOTS[i % BOT_SHOTS.length]!));
      const statuses = await fire(base, '/mixed', shots);
      const humans = statuses.filter((_, i) => !shots[i]!.bot);
      const bots = statuses.filter((_, i) => shots[i]!.bot);
      expect(humans.length).toBe(300);
      expect({ redirected: count(humans, 302), gone: count(humans, 410) }).toEqual({ redirected: 100, gone: 200 });
      expect(count(bots, 302) + count(bots, 410)).toBe(200);
      const botsThrough = 150 + count(bots, 302);

      await flushOk(t);
      expect(await storedCounts(t, link.id)).toEqual({ clicks: 100, bots: botsThrough });
      expect(await rawCounts(t, link.id)).toEqual({ humans: 100, bots: botsThrough });
      await disposeTestApp(t);
    });

    // reopen() opens the SQLite file again; a restart on PostgreSQL is tested in test/postgres-serve.test.ts.
    test.skipIf(engine !== 'sqlite')(
      'clicks stored before a restart count: 60 stored, then 500 concurrent on a fresh app let exactly 40 through',
      async () => {
        const c = await setup({}, engine);
        const { t } = c;
        const link = await createLink(c, { slug: 'partial', clickLimit: 100 });
        for (let i = 0; i < 60; i++)
          expect(await click(t, '/partial', { ip: `203.0.113.${i}`, ua: UA.firefoxLinux })).toBe(302);
        for (let i = 0; i < 10; i++)
          expect(await click(t, '/partial', { ip: '192.0.2.1', ua: UA.googlebot })).toBe(302);
        await flushOk(t);
        expect(await storedCounts(t, link.id)).toEqual({ clicks: 60, bots: 10 });

        // A restart: the slug index and its counters load from the database.
        const t2 = await reopen(t);
        expect(t2.deps.linkIndex.getById(link.id)!.counters).toEqual({ humanClicks: 60, unsorted: 0 });
        const base = listen(t2);
        const statuses = await fire(
          base,
          '/partial',
          Array.from({ length: 500 }, () => HUMAN),
        );
        expect({ redirected: count(statuses, 302), gone: count(statuses, 410) }).toEqual({ redirected: 40, gone: 460 });
        await flushOk(t2);
        expect(await storedCounts(t2, link.id)).toEqual({ clicks: 100, bots: 10 });
        expect(await rawCounts(t2, link.id)).toEqual({ humans: 100, bots: 10 });

        await t2.app.stop(true);
        expect(t2.errors).toEqual([]);
        await t2.close();
        await disposeTestApp(t);
      },
    );

    test('stored and still-buffered clicks both count: 50 stored + 30 buffered leave exactly 20', async () => {
      const c = await setup({}, engine);
      const { t } = c;
      const link = await createLink(c, { slug: 'buffered', clickLimit: 100 });
      for (let i = 0; i < 50; i++) expect(await click(t, '/buffered', { ip: `203.0.113.${i}` })).toBe(302);
      await flushOk(t);
      for (let i = 0; i < 30; i++) expect(await click(t, '/buffered', { ip: `198.18.0.${i}` })).toBe(302);
      expect(t.deps.clicks.buffer.length).toBe(30);
      const statuses = await fire(
        listen(t),
        '/buffered',
        Array.from({ length: 200 }, () => HUMAN),
      );
      expect({ redirected: count(statuses, 302), gone: count(statuses, 410) }).toEqual({ redirected: 20, gone: 180 });
      await flushOk(t);
      expect(await storedCounts(t, link.id)).toEqual({ clicks: 100, bots: 0 });
      expect(await rawCounts(t, link.id)).toEqual({ humans: 100, bots: 0 });
      await disposeTestApp(t);
    });

    test('a limit set while unclassified clicks are buffered counts only their humans', async () => {
      const c = await setup({}, engine);
      const { t } = c;
      const link = await createLink(c, { slug: 'later' });
      // No limit yet: these stay unclassified in the buffer (bot or human decided in the flush).
      for (let i = 0; i < 30; i++)
        expect(await click(t, '/later', { ip: `203.0.113.${i}`, ua: UA.safariIphone })).toBe(302);
      for (let i = 0; i < 20; i++) expect(await click(t, '/later', { ip: '192.0.2.9', ua: UA.curl })).toBe(302);
      expect(t.deps.linkIndex.getById(link.id)!.counters).toEqual({ humanClicks: 0, unsorted: 50 });
      const patched = await api(t, 'PATCH', `/links/${link.id}`, { key: c.key, body: { clickLimit: 40 } });
      expect(patched.status).toBe(200);
      expect(t.deps.linkIndex.getById(link.id)!.counters).toEqual({ humanClicks: 30, unsorted: 0 });
      const statuses = await fire(
        listen(t),
        '/later',
        Array.from({ length: 100 }, () => HUMAN),
      );
      expect({ redirected: count(statuses, 302), gone: count(statuses, 410) }).toEqual({ redirected: 10, gone: 90 });
      await flushOk(t);
      expect(await storedCounts(t, link.id)).toEqual({ clicks: 40, bots: 20 });
      expect(await rawCounts(t, link.id)).toEqual({ humans: 40, bots: 20 });
      await disposeTestApp(t);
    });
  });
});
