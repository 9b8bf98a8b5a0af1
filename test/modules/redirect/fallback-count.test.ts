/**
 * Visits sent to a link's fallback URL (docs/behaviour.md, "fallbackCount"), through the real
 * app on each engine: human visits of an expired link or one past its click limit are counted
 * per link, apart from its clicks (none recorded); bots, HEAD requests and the 410 page are not.
 * Counted in memory and written by the flush, never on the request; a normal stop writes them.
 * On PostgreSQL, nodes adding at once all count.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Engine } from '../../../src/db/address';
import { apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { startNodes } from '../../helpers/nodes';

const SHORT = 'https://sl.test';
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const GOOGLEBOT = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
const SORRY = 'https://example.com/sorry';
/** A social-preview crawler: a bot, whatever isbot says. */
const SLACKBOT = 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)';

async function visit(t: TestApp, slug: string, init: { agent?: string | null; method?: string } = {}) {
  const agent = init.agent === undefined ? CHROME : init.agent;
  const res = await t.app.handle(
    new Request(`${SHORT}/${slug}`, {
      method: init.method ?? 'GET',
      headers: agent === null ? {} : { 'user-agent': agent },
    }),
  );
  return { status: res.status, location: res.headers.get('location') };
}

forEachEngine((engine: Engine) => {
  describe('fallbackCount', () => {
    let t: TestApp;
    let su: string;
    beforeAll(async () => {
      t = await makeTestApp({}, { engine });
      su = (await makeKey(t, 'write', { superuser: true })).key;
    });
    afterAll(() => disposeTestApp(t));

    const write = (method: string, path: string, body?: unknown) => apiExpecting(t, su, method, path, body);
    const counts = async (id: string) => {
      const link = await write('GET', `/links/${id}`);
      return { clickCount: link.clickCount, botCount: link.botCount, fallbackCount: link.fallbackCount };
    };

    test('human visits of an expired link sent to its fallback are counted, apart from clicks; bots and HEAD are not', async () => {
      const now = t.clock.now();
      const link = await write('POST', '/links', {
        destination: 'https://example.com/old',
        slug: 'old-offer',
        expiresAt: now + 60_000,
        fallbackUrl: SORRY,
      });
      expect(link.fallbackCount).toBe(0);
      expect(await visit(t, 'old-offer')).toEqual({ status: 302, location: 'https://example.com/old' });
      t.clock.advance(60_000);
      for (let i = 0; i < 3; i++) expect(await visit(t, 'old-offer')).toEqual({ status: 302, location: SORRY });
      expect(await visit(t, 'old-offer', { agent: GOOGLEBOT })).toEqual({ status: 302, location: SORRY });
      expect(await visit(t, 'old-offer', { agent: null })).toEqual({ status: 302, location: SORRY });
      expect(await visit(t, 'old-offer', { agent: ' ' })).toEqual({ status: 302, location: SORRY });
      expect(await visit(t, 'old-offer', { agent: SLACKBOT })).toEqual({ status: 302, location: SORRY });
      expect(await visit(t, 'old-offer', { method: 'HEAD' })).toEqual({ status: 302, location: SORRY });
      // Nothing is written on the request: the flush writes it.
      expect(await counts(link.id)).toEqual({ clickCount: 0, botCount: 0, fallbackCount: 0 });
      expect(await t.deps.clicks.flusher.flush()).toBe(true);
      expect(await counts(link.id)).toEqual({ clickCount: 1, botCount: 0, fallbackCount: 3 });
      expect(await write('GET', '/links?limit=100')).toMatchObject({
        items: expect.arrayContaining([expect.objectContaining({ id: link.id, fallbackCount: 3 })]),
      });
    });

    test('past its click limit too; an ended link without a fallback (410) counts nothing', async () => {
      const limited = await write('POST', '/links', {
        destination: 'https://example.com/few',
        slug: 'first-two',
        clickLimit: 2,
        fallbackUrl: SORRY,
      });
      const gone = await write('POST', '/links', {
        destination: 'https://example.com/gone',
        slug: 'gone-now',
        expiresAt: t.clock.now() + 1000,
      });
      t.clock.advance(1000);
      for (let i = 0; i < 2; i++) expect((await visit(t, 'first-two')).location).toBe('https://example.com/few');
      for (let i = 0; i < 4; i++) expect(await visit(t, 'first-two')).toEqual({ status: 302, location: SORRY });
      expect((await visit(t, 'gone-now')).status).toBe(410);
      expect(await t.deps.clicks.flusher.flush()).toBe(true);
      expect(await counts(limited.id)).toEqual({ clickCount: 2, botCount: 0, fallbackCount: 4 });
      expect(await counts(gone.id)).toEqual({ clickCount: 0, botCount: 0, fallbackCount: 0 });
    });

    if (engine === 'sqlite')
      test('a write that fails keeps the count in memory; the next flush writes it all', async () => {
        const link = await write('POST', '/links', {
          destination: 'https://example.com/fail',
          slug: 'failing',
          expiresAt: t.clock.now() + 1000,
          fallbackUrl: SORRY,
        });
        t.clock.advance(1000);
        const sqlite = t.deps.db.$client;
        sqlite.run(
          "CREATE TRIGGER fail_fallbacks BEFORE UPDATE OF fallback_visits ON link_counters BEGIN SELECT RAISE(ABORT, 'disk full'); END",
        );
        for (let i = 0; i < 2; i++) await visit(t, 'failing');
        expect(await t.deps.clicks.flusher.flush()).toBe(false);
        expect(t.errors.splice(0)).toEqual([expect.stringContaining('click flush failed')]);
        await visit(t, 'failing');
        sqlite.run('DROP TRIGGER fail_fallbacks');
        expect(await t.deps.clicks.flusher.flush()).toBe(true);
        expect(await counts(link.id)).toEqual({ clickCount: 0, botCount: 0, fallbackCount: 3 });
      });

    test('a normal stop writes what was counted since the last flush', async () => {
      const link = await write('POST', '/links', {
        destination: 'https://example.com/stop',
        slug: 'stopped',
        expiresAt: t.clock.now() + 1000,
        fallbackUrl: SORRY,
      });
      t.clock.advance(1000);
      for (let i = 0; i < 5; i++) await visit(t, 'stopped');
      expect(await t.deps.clicks.flusher.stop()).toBe(true);
      expect(await counts(link.id)).toEqual({ clickCount: 0, botCount: 0, fallbackCount: 5 });
    });
  });
});

describe('fallbackCount across two nodes on PostgreSQL', () => {
  test('every node adds its own visits: the count is their sum', async () => {
    const { nodes, advance, close } = await startNodes(2);
    try {
      const [a, b] = nodes as [TestApp, TestApp];
      const su = (await makeKey(a, 'write', { superuser: true })).key;
      const link = await apiExpecting(a, su, 'POST', '/links', {
        destination: 'https://example.com/shared',
        slug: 'shared-old',
        expiresAt: a.clock.now() + 1000,
        fallbackUrl: SORRY,
      });
      await b.deps.linkIndex.refresh(link.id);
      advance(1000);
      for (let i = 0; i < 7; i++) expect((await visit(a, 'shared-old')).location).toBe(SORRY);
      for (let i = 0; i < 5; i++) expect((await visit(b, 'shared-old')).location).toBe(SORRY);
      await Promise.all([a.deps.clicks.flusher.flush(), b.deps.clicks.flusher.flush()]);
      for (let i = 0; i < 2; i++) await visit(b, 'shared-old');
      expect(await b.deps.clicks.flusher.flush()).toBe(true);
      const read = await apiExpecting(b, su, 'GET', `/links/${link.id}`);
      expect({ clickCount: read.clickCount, fallbackCount: read.fallbackCount }).toEqual({
        clickCount: 0,
        fallbackCount: 14,
      });
    } finally {
      await close();
    }
  }, 60_000);
});
