/**
 * The click pipeline's buffer and flusher, on both engines (SQLite, and PostgreSQL with its
 * writer below): a failed write keeps every click buffered in order and retries it exactly once,
 * a full buffer counts and reports what it drops, backpressure holds redirects until the writer
 * drains, a flush works in batches and never stops later flushes, stop() writes what is left,
 * clicks of deleted links and variants are handled, and the raw client address never reaches the
 * database. SQLite's own steps (a transaction failing half-way through its value ids, a fold
 * failing apart from the writes, the workspace buckets its writer keeps decoded) are tested on
 * SQLite alone.
 */
import { Database } from 'bun:sqlite';
import { describe, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import type { Logger } from '../../../src/lib/log';
import { OPERATOR } from '../../../src/modules/access/public';
import { ClickBuffer, MAX_WAIT_MS } from '../../../src/modules/clicks/capture/buffer';
import { ClickFlusher, MAX_BATCH } from '../../../src/modules/clicks/capture/flusher';
import type { ClickRecord } from '../../../src/modules/clicks/capture/record';
import { type ClickSink, InlineSink } from '../../../src/modules/clicks/capture/sink';
import { noGeo } from '../../../src/modules/clicks/enrich/geo';
import { deleteLink, updateLink } from '../../../src/modules/links/service';
import { createRedirect } from '../../../src/modules/redirect/redirect';
import { api, disposeTestApp, T0, type TestApp } from '../../helpers/app';
import { clickRecord, recordAt, testTarget } from '../../helpers/click-record';
import { forEachEngine } from '../../helpers/engines';
import { allStoredRows, storedClicks, storedLinkBuckets, storedRows } from '../../helpers/stored';
import { waitUntil } from '../../helpers/wait';
import {
  type Ctx,
  click,
  clickRequest,
  createLink,
  createVariant,
  expectBucketsMatchRawClicks,
  flushOk,
  one,
  readBuckets,
  rows,
  setup,
  UA,
  WORKSPACE,
} from './support';

/** A link's stored counters, on either engine. */
async function linkCounts(t: TestApp, id: string): Promise<{ clicks: number; bots: number; uniques: number }> {
  const [row] = await storedRows(t, 'SELECT clicks, bots, uniques FROM link_counters WHERE link_id = ?', id);
  return { clicks: Number(row!.clicks), bots: Number(row!.bots), uniques: Number(row!.uniques) };
}

/** The times of the stored raw clicks in the order they were written, on either engine. */
async function storedTimes(t: TestApp): Promise<number[]> {
  return (await storedClicks(t)).map((c) => Number(c.timestamp));
}

/** How many raw clicks are stored. */
async function storedCount(t: TestApp): Promise<number> {
  return (await storedClicks(t)).length;
}

/** The stored raw clicks per link id. */
async function clicksPerLink(t: TestApp): Promise<Record<string, number>> {
  const per: Record<string, number> = {};
  for (const c of await storedClicks(t)) per[c.link_id as string] = (per[c.link_id as string] ?? 0) + 1;
  return per;
}

/** On SQLite, every bucket equals the raw clicks and the workspace's name this link alone (each grain once). */
function expectOnlyLinkCounted(t: TestApp, linkId: string): void {
  if (t.deps.stores.engine !== 'sqlite') return;
  const buckets = expectBucketsMatchRawClicks(t);
  expect(buckets.rows.filter((r) => r.dim === 'link').map((r) => r.value)).toEqual(['hour', 'day'].map(() => linkId));
}

/** What the statistics of T0's day answer for the link and for the workspace: humans, uniques, bots. */
async function statistics(c: Ctx, linkId: string) {
  const window = '?from=2026-11-21&to=2026-11-21';
  const link = await api(c.t, 'GET', `/links/${linkId}/stats${window}`, { key: c.key });
  const workspace = await api(c.t, 'GET', `/workspace/stats${window}`, { key: c.key });
  expect([link.status, workspace.status]).toEqual([200, 200]);
  const totals = (body: { totals: { clicks: number; uniques: number; bots: number } }) => ({
    clicks: body.totals.clicks,
    uniques: body.totals.uniques,
    bots: body.totals.bots,
  });
  return { link: totals(link.body), workspace: totals(workspace.body) };
}

/**
 * After a recovered failure: every click of the link written once, in click order, and counted
 * once everywhere: its counters, the statistics of the link and the workspace (each human a
 * distinct visitor), and on SQLite every bucket checked against the raw clicks.
 */
async function expectWrittenOnceInOrder(
  c: Ctx,
  linkId: string,
  clicked: { times: number[]; humans: number; bots: number },
): Promise<void> {
  const { t } = c;
  const { times, humans, bots } = clicked;
  expect(await storedTimes(t)).toEqual(times);
  expect(await linkCounts(t, linkId)).toEqual({ clicks: humans, bots: bots, uniques: humans });
  const once = { clicks: humans, uniques: humans, bots };
  expect(await statistics(c, linkId)).toEqual({ link: once, workspace: once });
  if (t.deps.stores.engine === 'sqlite') expectBucketsCountEachClickOnce(t, linkId, humans, bots);
}

/**
 * After the failure is gone: the next flush writes everything left (`batches` in all), each
 * click once and in order, and the one error logged while failing is the only one (cleared).
 */
async function expectRecovered(
  c: Ctx,
  flusher: ClickFlusher,
  linkId: string,
  clicked: { times: number[]; humans: number; bots: number },
  batches: number,
): Promise<void> {
  const { t } = c;
  expect(await flusher.flush()).toBe(true);
  expect(t.deps.clicks.buffer.length).toBe(0);
  expect(flusher.stats).toMatchObject({ written: clicked.times.length, skipped: 0, batches });
  await expectWrittenOnceInOrder(c, linkId, clicked);
  expect(t.errors).toHaveLength(1);
  t.errors.length = 0;
}

/**
 * The clicks of one link (the only one clicked) counted once each in its and the workspace's
 * buckets of both grains, humans and bots apart (each human a distinct visitor), and every
 * breakdown equal to the raw clicks (SQLite's buckets, decoded).
 */
function expectBucketsCountEachClickOnce(t: TestApp, linkId: string, humans: number, bots: number): void {
  for (const scope of [linkId, WORKSPACE]) {
    for (const grain of ['hour', 'day'] as const) {
      // As the statistics read them (a link's later days are its hours summed).
      const sums = [0, 1].map((bot) => {
        const list = readBuckets(t, { scope, grain }).totals.filter((b) => b.bot === bot);
        return {
          bot,
          clicks: list.reduce((n, b) => n + b.clicks, 0),
          uniques: list.reduce((n, b) => n + b.uniques, 0),
        };
      });
      expect({ scope, grain, sums }).toEqual({
        scope,
        grain,
        sums: [
          { bot: 0, clicks: humans, uniques: humans },
          { bot: 1, clicks: bots, uniques: 0 },
        ],
      });
    }
  }
  expectBucketsMatchRawClicks(t);
}

/**
 * `n` clicks one millisecond apart from distinct addresses, every third one a bot (or, with
 * `botsFirst`, the first `botsFirst` clicks); returns their timestamps and kinds.
 */
async function clicks(
  t: TestApp,
  slug: string,
  n: number,
  start = T0,
  botsFirst?: number,
): Promise<{ times: number[]; humans: number; bots: number }> {
  const times: number[] = [];
  let humans = 0;
  for (let i = 0; i < n; i++) {
    const time = start + i;
    t.clock.set(time);
    const bot = botsFirst === undefined ? i % 3 === 2 : i < botsFirst;
    const res = await t.app.handle(
      clickRequest(`/${slug}`, {
        ip: `198.${18 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}`,
        ua: bot ? UA.googlebot : UA.chromeAndroid,
      }),
    );
    expect(res.status).toBe(302);
    times.push(time);
    if (!bot) humans++;
  }
  return { times, humans, bots: n - humans };
}

/** Holds SQLite's write lock from a second connection; the app's connection stops waiting for locks. */
function lockDatabase(t: TestApp): { release(): void } {
  t.deps.db.$client.exec('PRAGMA busy_timeout = 0');
  const locker = new Database(t.deps.config.dbPath);
  locker.exec('PRAGMA busy_timeout = 0');
  locker.exec('BEGIN EXCLUSIVE');
  return {
    release() {
      locker.exec('ROLLBACK');
      locker.close();
      t.deps.db.$client.exec('PRAGMA busy_timeout = 5000');
    },
  };
}

/**
 * Makes the database refuse click writes until released: on SQLite its write lock held by a
 * second connection (a busy database), on PostgreSQL a trigger failing every insert of raw clicks
 * (a statement the server refuses: the batch's transaction rolls back whole).
 */
async function refuseClickWrites(t: TestApp): Promise<{ release(): Promise<void> }> {
  if (t.deps.stores.engine === 'sqlite') {
    const lock = lockDatabase(t);
    return { release: async () => lock.release() };
  }
  await storedRows(
    t,
    "CREATE FUNCTION refuse_clicks() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$",
  );
  await storedRows(
    t,
    'CREATE TRIGGER refuse_clicks BEFORE INSERT ON click_tail FOR EACH STATEMENT EXECUTE FUNCTION refuse_clicks()',
  );
  return {
    async release() {
      await storedRows(t, 'DROP TRIGGER refuse_clicks ON click_tail');
      await storedRows(t, 'DROP FUNCTION refuse_clicks()');
    },
  };
}

/** A classified bot hit for buffer-only tests (a link of its own, no counters to settle). */
function botRecord(): ClickRecord {
  return clickRecord(testTarget({ linkId: 'l', location: 'https://x.test/' }), {
    time: T0,
    address: null,
    userAgent: 'ua',
    bot: true,
  });
}

function captureLog(): Logger & { errors: string[] } {
  const errors: string[] = [];
  return { errors, info: () => {}, error: (m) => errors.push(m) };
}

/** A sink writing inline through the app's own connection (or pool), like the test app's own. */
function inlineSink(t: TestApp): InlineSink {
  return new InlineSink(
    t.deps.stores.openClickWriter({ geo: noGeo, ownHosts: ['sl.test'], clock: t.clock, retentionDays: 0 }),
  );
}

/**
 * Wraps a sink so that `after(n)` runs right after its n-th commit (awaited before the flusher
 * hears of the commit) or add.
 */
function hookedSink(
  inner: ClickSink,
  hooks: { afterCommit?(n: number): void | Promise<void>; afterAdd?(n: number): void },
): ClickSink {
  let commits = 0;
  let adds = 0;
  return {
    add(slice) {
      inner.add(slice);
      hooks.afterAdd?.(++adds);
    },
    async commit() {
      const outcome = await inner.commit();
      await hooks.afterCommit?.(++commits);
      return outcome;
    },
    discard: () => inner.discard(),
    addFallbackVisits: (visits) => inner.addFallbackVisits(visits),
    fold: () => inner.fold(),
    close: () => inner.close(),
  };
}

forEachEngine((engine) => {
  describe('a failed flush keeps the clicks and retries them', () => {
    test('flush(): false while the database is locked, one error logged, then every click written exactly once, in order', async () => {
      const c = await setup({}, engine);
      const { t } = c;
      const link = await createLink(c, { slug: 'retry' });
      const n = MAX_BATCH + 600; // the failing batch has clicks queued behind it
      const { times, humans, bots } = await clicks(t, 'retry', n);
      const flusher = t.deps.clicks.flusher;

      const lock = await refuseClickWrites(t);
      expect(await flusher.flush()).toBe(false);
      expect(await flusher.flush()).toBe(false); // still failing: no second error
      expect(t.deps.clicks.buffer.length).toBe(n);
      expect(t.errors).toHaveLength(1);
      expect(t.errors[0]).toContain(`click flush failed; ${n} clicks kept in memory and retried`);
      expect(await storedCount(t)).toBe(0);
      expect(await linkCounts(t, link.id)).toEqual({ clicks: 0, bots: 0, uniques: 0 });

      await lock.release();
      await flushOk(t);
      await expectWrittenOnceInOrder(c, link.id, { times, humans, bots });
      expect(t.deps.linkIndex.getById(link.id)!.counters).toEqual({ humanClicks: humans, unsorted: 0 });
      expect(t.errors).toHaveLength(1);
      t.errors.length = 0;
      await disposeTestApp(t);
    });

    test('a write failing after the first batch puts the rest back in order; the next flush writes each once', async () => {
      const c = await setup({}, engine);
      const { t } = c;
      const link = await createLink(c, { slug: 'batches' });
      const n = MAX_BATCH + 1000;
      const { times, humans, bots } = await clicks(t, 'batches', n);
      const buffer = t.deps.clicks.buffer;
      let lock: { release(): Promise<void> } | null = null;
      // The lock lands right after the first batch's transaction.
      const sink = hookedSink(inlineSink(t), {
        afterCommit: async (k) => {
          if (k === 1) lock = await refuseClickWrites(t);
        },
      });
      const flusher = new ClickFlusher(buffer, sink, t.deps.log);

      expect(await flusher.flush()).toBe(false);
      expect(lock).not.toBeNull();
      expect(buffer.length).toBe(1000);
      expect(t.errors).toHaveLength(1);
      expect(t.errors[0]).toContain('click flush failed; 1000 clicks kept in memory and retried');
      expect(flusher.stats).toMatchObject({ written: MAX_BATCH, batches: 1 });
      expect(await flusher.flush()).toBe(false); // still locked
      expect(buffer.length).toBe(1000);
      expect(t.errors).toHaveLength(1);
      expect(await storedTimes(t)).toEqual(times.slice(0, MAX_BATCH));

      await lock!.release();
      await expectRecovered(c, flusher, link.id, { times, humans, bots }, 2);
      await disposeTestApp(t);
    });

    test('the batch handed over while a failing commit runs is taken back too: nothing of it is written, then all of it once, in order', async () => {
      const c = await setup({}, engine);
      const { t } = c;
      const link = await createLink(c, { slug: 'ahead' });
      const n = 2 * MAX_BATCH + 700;
      const { times, humans, bots } = await clicks(t, 'ahead', n);
      const buffer = t.deps.clicks.buffer;
      let lock: { release(): Promise<void> } | null = null;
      const events: string[] = [];
      // The lock lands after the first commit: the second fails while the third is handed over.
      const sink = hookedSink(inlineSink(t), {
        afterAdd: (k) => events.push(`add ${k}`),
        afterCommit: async (k) => {
          events.push(`commit ${k}`);
          if (k === 1) lock = await refuseClickWrites(t);
        },
      });
      const flusher = new ClickFlusher(buffer, sink, t.deps.log);

      expect(await flusher.flush()).toBe(false);
      // The second batch's first slice went over before the first commit had answered.
      expect(events.indexOf('add 5')).toBeLessThan(events.indexOf('commit 1'));
      expect(buffer.length).toBe(MAX_BATCH + 700);
      expect(flusher.stats).toMatchObject({ written: MAX_BATCH, batches: 1 });
      expect(await storedTimes(t)).toEqual(times.slice(0, MAX_BATCH));

      await lock!.release();
      await expectRecovered(c, flusher, link.id, { times, humans, bots }, 3);
      await disposeTestApp(t);
    });

    test('a hand-over that fails while the batch before it commits: that batch is written once, the rest kept in order', async () => {
      const c = await setup({}, engine);
      const { t } = c;
      await createLink(c, { slug: 'handover' });
      const n = MAX_BATCH + 900;
      const { times } = await clicks(t, 'handover', n);
      const buffer = t.deps.clicks.buffer;
      let failAt = MAX_BATCH / 500 + 1; // the second batch's first slice (slices of 500)
      const sink = hookedSink(inlineSink(t), {
        afterAdd: (k) => {
          if (k === failAt) throw new Error('cannot hand over');
        },
      });
      const flusher = new ClickFlusher(buffer, sink, t.deps.log);

      expect(await flusher.flush()).toBe(false);
      expect(flusher.stats).toMatchObject({ written: MAX_BATCH, batches: 1 });
      expect(buffer.length).toBe(900);
      expect(t.errors).toEqual([expect.stringContaining('click flush failed; 900 clicks kept in memory and retried')]);
      expect(await storedTimes(t)).toEqual(times.slice(0, MAX_BATCH));

      failAt = -1;
      expect(await flusher.flush()).toBe(true);
      expect(buffer.length).toBe(0);
      expect(await storedTimes(t)).toEqual(times);
      expect(flusher.stats).toMatchObject({ written: n, batches: 2 });
      t.errors.length = 0;
      await disposeTestApp(t);
    });

    test('a flush that finds nothing to write, or fails at once, does not stop later flushes', async () => {
      const c = await setup({}, engine);
      const { t } = c;
      await createLink(c, { slug: 'again' });
      const { buffer, flusher } = t.deps.clicks;
      expect(await flusher.flush()).toBe(true); // nothing to write
      await clicks(t, 'again', 3);
      await flushOk(t);
      expect(await storedCount(t)).toBe(3);

      await clicks(t, 'again', 3, T0 + 60_000);
      const lock = await refuseClickWrites(t);
      expect(await flusher.flush()).toBe(false);
      expect(buffer.length).toBe(3);
      await lock.release();
      await flushOk(t);
      expect(await storedCount(t)).toBe(6);
      expect(t.errors).toHaveLength(1);
      t.errors.length = 0;
      await disposeTestApp(t);
    });
  });

  describe('API writes served while a flush yields between slices', () => {
    /**
     * 500 bot hits, then 500 human clicks, buffered unclassified (no limit yet); a flush on the
     * app's buffer runs `during` right after handing over its first slice, which is where the
     * real flusher yields to the event loop (and so to API requests).
     */
    async function duringFlush(during: (t: TestApp, linkId: string) => unknown) {
      const c = await setup({}, engine);
      const { t } = c;
      const link = await createLink(c, { slug: 'inflight' });
      await clicks(t, 'inflight', 1000, T0, 500);
      expect(t.deps.linkIndex.getById(link.id)!.counters).toEqual({ humanClicks: 0, unsorted: 1000 });
      // The API write starts there; services are asynchronous, so it is awaited after the flush.
      const started: Promise<unknown>[] = [];
      const sink = hookedSink(inlineSink(t), {
        afterAdd: (k) => {
          if (k === 1) started.push(Promise.resolve(during(t, link.id)));
        },
      });
      const flusher = new ClickFlusher(t.deps.clicks.buffer, sink, t.deps.log);
      expect(await flusher.flush()).toBe(true);
      await Promise.all(started);
      return { c, t, link, flusher };
    }

    test('a delete sees the human clicks being written and is refused', async () => {
      let outcome = '';
      const { t, link, flusher } = await duringFlush((t, id) => {
        expect(t.deps.clicks.buffer.length).toBe(0); // the whole batch is out of the buffer
        return deleteLink(t.deps, OPERATOR, id).then(
          () => {
            outcome = 'deleted';
          },
          (err) => {
            outcome = (err as { code: string }).code;
          },
        );
      });
      expect(outcome).toBe('delete_requires_dashboard');
      expect(flusher.stats).toMatchObject({ written: 1000, skipped: 0 });
      expect(await linkCounts(t, link.id)).toMatchObject({ clicks: 500, bots: 500 });
      await disposeTestApp(t);
    });

    test('a click limit set then counts the human clicks being written', async () => {
      const { c, t, link } = await duringFlush((t, id) => {
        return updateLink(t.deps, OPERATOR, id, { clickLimit: 502 });
      });
      expect(t.deps.linkIndex.getById(link.id)!.counters).toEqual({ humanClicks: 500, unsorted: 0 });
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push(await click(t, '/inflight', { ip: `192.0.2.${i}` }));
      expect(statuses).toEqual([302, 302, 410, 410, 410]);
      await flushOk(t);
      expect(await linkCounts(t, link.id)).toMatchObject({ clicks: 502, bots: 500 });
      expect((await api(t, 'GET', `/links/${link.id}`, { key: c.key })).body.clickCount).toBe(502);
      await disposeTestApp(t);
    });
  });
  describe('a full buffer', () => {
    test('counts what it drops, keeps the link counters consistent, and the flusher reports the count once', async () => {
      const c = await setup({}, engine);
      const { t } = c;
      const link = await createLink(c, { slug: 'full' });
      const links = t.deps.linkIndex.table;
      const slot = t.deps.linkIndex.find('full');
      const counters = () => ({ humanClicks: links.humanClicks[slot]!, unsorted: links.unsorted[slot]! });
      const buffer = new ClickBuffer(5);
      const log = captureLog();
      const flusher = new ClickFlusher(buffer, inlineSink(t), log);

      // What the redirect does: count the click on the link, then push it.
      const push = (bot: boolean | null, userAgent: string) => {
        if (bot === null) links.unsorted[slot]!++;
        else if (!bot) links.humanClicks[slot]!++;
        buffer.push(recordAt(links, slot, -1, { time: t.clock.now(), address: '8.8.8.8', userAgent, bot }));
      };
      push(null, UA.chromeWin); // unsorted human
      push(null, UA.googlebot); // unsorted bot
      push(false, UA.firefoxLinux); // known human (a limited link)
      push(true, UA.curl); // known bot
      push(null, UA.safariIphone);
      expect(buffer.length).toBe(5);
      expect(buffer.dropped).toBe(0);
      expect(counters()).toEqual({ humanClicks: 1, unsorted: 3 });
      // Full from here: three unsorted, two known humans and a bot are refused.
      push(null, UA.chromeWin);
      push(null, UA.googlebot);
      push(null, UA.edgeMac);
      push(false, UA.chromeWin);
      push(false, UA.chromeWin);
      push(true, UA.googlebot);
      expect(buffer.length).toBe(5);
      expect(buffer.dropped).toBe(6);
      expect(counters()).toEqual({ humanClicks: 1, unsorted: 3 });

      expect(await flusher.flush()).toBe(true);
      expect(log.errors).toEqual(['6 clicks dropped: the click buffer was full (5) while writes failed']);
      expect(buffer.dropped).toBe(0);
      expect(buffer.length).toBe(0);
      expect(flusher.stats).toMatchObject({ written: 5, skipped: 0 });
      // Written: chromeWin, firefoxLinux and safariIphone humans; googlebot and curl bots.
      expect(counters()).toEqual({ humanClicks: 3, unsorted: 0 });
      expect(await linkCounts(t, link.id)).toEqual({ clicks: 3, bots: 2, uniques: 3 });
      expect(await storedCount(t)).toBe(5);

      expect(await flusher.flush()).toBe(true);
      expect(log.errors).toHaveLength(1); // reported once

      // A later overflow is reported with its own count.
      for (let i = 0; i < 7; i++) push(null, UA.chromeWin);
      expect(buffer.dropped).toBe(2);
      expect(counters()).toEqual({ humanClicks: 3, unsorted: 5 });
      expect(await flusher.flush()).toBe(true);
      expect(log.errors).toEqual([
        '6 clicks dropped: the click buffer was full (5) while writes failed',
        '2 clicks dropped: the click buffer was full (5) while writes failed',
      ]);
      expect(counters()).toEqual({ humanClicks: 8, unsorted: 0 });
      expect(await linkCounts(t, link.id)).toMatchObject({ clicks: 8, bots: 2 });
      await disposeTestApp(t);
    });
  });
  describe('backpressure at saturation', () => {
    test('past the high-water mark a redirect records its click but answers only once the flush has drained the buffer', async () => {
      const c = await setup({}, engine);
      const { t } = c;
      const link = await createLink(c, { slug: 'busy', destination: 'https://example.com/busy' });
      const buffer = new ClickBuffer(100, 4);
      const flusher = new ClickFlusher(buffer, inlineSink(t), captureLog());
      const redirect = createRedirect({ ...t.deps, clicks: { ...t.deps.clicks, buffer } });
      const server = { requestIP: () => ({ address: '203.0.113.9' }) };

      // Under the mark: answered at once.
      for (let i = 0; i < 3; i++) {
        const res = redirect(clickRequest('/busy'), server, 'busy', null);
        expect(res).toBeInstanceOf(Response);
        expect((res as Response).status).toBe(302);
      }
      expect(buffer.saturated).toBe(false);
      // The fourth click reaches the mark: it is in the buffer, its answer waits.
      let answered: Response | null = null;
      const waiting = redirect(clickRequest('/busy'), server, 'busy', null);
      expect(waiting).toBeInstanceOf(Promise);
      void (waiting as Promise<Response>).then((r) => (answered = r));
      expect(buffer.length).toBe(4);
      expect(buffer.saturated).toBe(true);
      await Bun.sleep(30);
      expect(answered).toBeNull();

      expect(await flusher.flush()).toBe(true);
      const res = await waiting;
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('https://example.com/busy');
      expect(buffer.length).toBe(0);
      expect(await linkCounts(t, link.id)).toEqual({ clicks: 4, bots: 0, uniques: 1 });
      await disposeTestApp(t);
    });

    test('a started flusher flushes as soon as the mark is reached, without waiting for its tick', async () => {
      const c = await setup({}, engine);
      const { t } = c;
      const link = await createLink(c, { slug: 'tick', destination: 'https://example.com/tick' });
      const buffer = new ClickBuffer(100, 3);
      const flusher = new ClickFlusher(buffer, inlineSink(t), captureLog());
      flusher.start(60_000);
      const redirect = createRedirect({ ...t.deps, clicks: { ...t.deps.clicks, buffer } });
      const server = { requestIP: () => ({ address: '203.0.113.9' }) };
      const answers = await Promise.all([0, 1, 2].map(() => redirect(clickRequest('/tick'), server, 'tick', null)));
      expect(answers.map((r) => r.status)).toEqual([302, 302, 302]);
      // Taken out by the flush the mark started; its write is done once stop() has waited for it.
      expect(buffer.length).toBe(0);
      expect(await flusher.stop()).toBe(true);
      expect(await linkCounts(t, link.id)).toMatchObject({ clicks: 3 });
      await disposeTestApp(t);
    });
  });

  describe('the flusher writes in batches', () => {
    test('20,000 buffered clicks: one flush writes them all in several batches and records the longest', async () => {
      const c = await setup({}, engine);
      const { t } = c;
      const link = await createLink(c, { slug: 'bulk' });
      const first = await clicks(t, 'bulk', 20_000);
      const { buffer, flusher } = t.deps.clicks;
      expect(buffer.length).toBe(20_000);
      expect(flusher.stats).toEqual({ written: 0, skipped: 0, batches: 0, longestBatchMs: 0, longestStepMs: 0 });
      await flushOk(t);
      expect(flusher.stats.written).toBe(20_000);
      expect(flusher.stats.skipped).toBe(0);
      expect(flusher.stats.batches).toBeGreaterThan(1);
      expect(flusher.stats.longestBatchMs).toBeGreaterThan(0);
      const firstTimes = await storedTimes(t);
      expect({ n: firstTimes.length, d: new Set(firstTimes).size }).toEqual({ n: 20_000, d: 20_000 });

      // A redirect served while a flush yields lands in that same flush.
      const second = await clicks(t, 'bulk', 6000, T0 + 1_000_000);
      const flushing = flusher.flush();
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(buffer.length).toBeLessThan(6000); // the flush is under way
      t.clock.set(T0 + 10_000_000);
      expect((await t.app.handle(clickRequest('/bulk', { ip: '10.9.9.9', ua: UA.safariIpad }))).status).toBe(302);
      const next = flusher.flush(); // waits for the running one, never overlaps it
      expect(await flushing).toBe(true);
      expect(buffer.length).toBe(0);
      expect(flusher.stats.written).toBe(26_001);
      expect(await next).toBe(true);
      expect(flusher.stats.written).toBe(26_001);
      const written = await storedTimes(t);
      expect(written.length).toBe(26_001);
      expect(written.every((time, i) => i === 0 || time > written[i - 1]!)).toBe(true); // in click order, once each
      expect(await linkCounts(t, link.id)).toMatchObject({
        clicks: first.humans + second.humans + 1,
        bots: first.bots + second.bots,
      });
      await disposeTestApp(t);
    });

    test('stop() waits for a running flush, writes everything left and clears the timer', async () => {
      const c = await setup({}, engine);
      const { t } = c;
      const link = await createLink(c, { slug: 'stop' });
      const { buffer, flusher } = t.deps.clicks;

      // The timer flushes on its own, also after ticks that found nothing to write...
      flusher.start(10);
      await Bun.sleep(60);
      expect(await storedCount(t)).toBe(0);
      await clicks(t, 'stop', 50);
      // Written once a tick's flush has taken them out and its (on PostgreSQL asynchronous) write is done.
      await waitUntil(async () => (await storedCount(t)) >= 50, 'the timer to write the 50 clicks');
      expect(buffer.length).toBe(0);
      expect(await storedCount(t)).toBe(50);

      // ...stop() lets a flush in progress finish and writes what is left.
      await clicks(t, 'stop', 6000, T0 + 100_000);
      let flushed = false;
      const flushing = flusher.flush().then((ok) => {
        flushed = ok;
      });
      expect(await flusher.stop()).toBe(true);
      expect(flushed).toBe(true); // stop() waited for it
      await flushing;
      expect(buffer.length).toBe(0);
      expect(await storedCount(t)).toBe(6050);
      const order = await storedTimes(t);
      expect(order.every((time, i) => i === 0 || time > order[i - 1]!)).toBe(true); // never two writers at once
      const counted = await linkCounts(t, link.id);
      expect(counted.clicks + counted.bots).toBe(6050);

      // No timer any more: new clicks stay buffered until someone flushes.
      await clicks(t, 'stop', 3, T0 + 10_000_000);
      await Bun.sleep(100);
      expect(buffer.length).toBe(3);
      expect(await flusher.stop()).toBe(true); // stopping twice is harmless and still flushes
      expect(buffer.length).toBe(0);
      await disposeTestApp(t);
    });
  });
  describe('deleted links and variants', () => {
    test('bot hits buffered for a link deleted through the API are dropped without error', async () => {
      const c = await setup({}, engine);
      const { t } = c;
      const gone = await createLink(c, { slug: 'gone' });
      const keep = await createLink(c, { slug: 'keep' });
      for (let i = 0; i < 5; i++) {
        expect(await click(t, '/gone', { ip: '192.0.2.1', ua: UA.googlebot })).toBe(302);
        expect(await click(t, '/gone', { ip: '192.0.2.2', ua: UA.chromeWin, method: 'HEAD' })).toBe(302);
        expect(await click(t, '/keep', { ip: `192.0.2.${10 + i}` })).toBe(302);
      }
      const res = await api(t, 'DELETE', `/links/${gone.id}`, { key: c.key });
      expect(res.status).toBe(200);
      expect(await click(t, '/gone', { ua: UA.googlebot })).toBe(404);
      expect(t.deps.clicks.buffer.length).toBe(5);
      await flushOk(t);
      expect(await clicksPerLink(t)).toEqual({ [keep.id]: 5 });
      expect(await storedLinkBuckets(t, gone.id)).toBe(0);
      expectOnlyLinkCounted(t, keep.id);
      expect(await linkCounts(t, keep.id)).toEqual({ clicks: 5, bots: 0, uniques: 5 });
      expect((await statistics(c, keep.id)).workspace).toEqual({ clicks: 5, uniques: 5, bots: 0 });
      await disposeTestApp(t);
    });

    test('a buffered human click blocks the API delete', async () => {
      const c = await setup({}, engine);
      const { t } = c;
      const link = await createLink(c, { slug: 'human' });
      expect(await click(t, '/human', { ip: '192.0.2.1', ua: UA.googlebot })).toBe(302);
      expect(await click(t, '/human', { ip: '192.0.2.1', ua: UA.safariIphone })).toBe(302);
      const res = await api(t, 'DELETE', `/links/${link.id}`, { key: c.key });
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('delete_requires_dashboard');
      await flushOk(t);
      expect(await linkCounts(t, link.id)).toEqual({ clicks: 1, bots: 1, uniques: 1 });
      await disposeTestApp(t);
    });

    test('clicks of a link whose row vanished before the flush are skipped, the rest of the chunk is written', async () => {
      const c = await setup({}, engine);
      const { t } = c;
      const vanished = await createLink(c, { slug: 'vanished' });
      const keep = await createLink(c, { slug: 'keep' });
      for (let i = 0; i < 4; i++) {
        expect(await click(t, '/vanished', { ip: `192.0.2.${i}`, ua: i % 2 ? UA.googlebot : UA.chromeWin })).toBe(302);
        expect(await click(t, '/keep', { ip: `192.0.2.${i}`, ua: UA.chromeWin })).toBe(302);
      }
      // As the dashboard would: the row and its history go at once, behind the buffer's back.
      await storedRows(t, 'DELETE FROM links WHERE id = ?', vanished.id);
      await flushOk(t);
      expect(t.deps.clicks.flusher.stats).toMatchObject({ written: 4, skipped: 4 });
      expect(await clicksPerLink(t)).toEqual({ [keep.id]: 4 });
      expect(await storedLinkBuckets(t, vanished.id)).toBe(0);
      expectOnlyLinkCounted(t, keep.id);
      expect(await linkCounts(t, keep.id)).toEqual({ clicks: 4, bots: 0, uniques: 4 });
      expect((await statistics(c, keep.id)).workspace).toEqual({ clicks: 4, uniques: 4, bots: 0 });
      await disposeTestApp(t);
    });

    test('a variant deleted while its clicks are buffered: they are still written with its id', async () => {
      const c = await setup({}, engine);
      const { t } = c;
      const link = await createLink(c, { slug: 'vd', params: { color: 'blue' } });
      const variant = await createVariant(c, link.id, { code: 'v1', params: { color: 'red' } });
      for (let i = 0; i < 3; i++) expect(await click(t, '/vd/v1', { ip: `192.0.2.${i}` })).toBe(302);
      expect(await click(t, '/vd/v1', { ip: '192.0.2.99', ua: UA.googlebot })).toBe(302);
      const res = await api(t, 'DELETE', `/links/${link.id}/variants/${variant.id}`, { key: c.key });
      expect(res.status).toBe(200);
      // After the delete the code is unknown: the bare link's target, the code still recorded.
      expect(await click(t, '/vd/v1', { ip: '192.0.2.50' })).toBe(302);
      await flushOk(t);

      expect(await storedRows(t, 'SELECT id FROM variants WHERE id = ?', variant.id)).toEqual([]);
      const raw = (await storedClicks(t)).filter((r) => r.link_id === link.id);
      expect(raw.map((r) => [r.variant_id, r.variant_code, r.bot, JSON.parse(r.params as string).color])).toEqual([
        [variant.id, 'v1', 0, 'red'],
        [variant.id, 'v1', 0, 'red'],
        [variant.id, 'v1', 0, 'red'],
        [variant.id, 'v1', 1, 'red'],
        [null, 'v1', 0, 'blue'],
      ]);
      // By the variant id at click time ('' once the code matched nothing), in every bucket
      // (SQLite's decoded; PostgreSQL's store counts the same: store-contract.test.ts).
      for (const scope of t.deps.stores.engine === 'sqlite' ? [link.id, WORKSPACE] : []) {
        for (const grain of ['hour', 'day'] as const) {
          const variantRows = readBuckets(t, { scope, grain })
            .rows.filter((r) => r.dim === 'variant')
            .map(({ bot, key, value, clicks }) => ({ bot, key, value, clicks }));
          expect({ scope, grain, variantRows }).toEqual({
            scope,
            grain,
            variantRows: [
              { bot: 0, key: '', value: 'v1', clicks: 1 },
              { bot: 0, key: variant.id, value: 'v1', clicks: 3 },
              { bot: 1, key: variant.id, value: 'v1', clicks: 1 },
            ],
          });
        }
      }
      if (t.deps.stores.engine === 'sqlite') expectBucketsMatchRawClicks(t);
      expect(await linkCounts(t, link.id)).toEqual({ clicks: 4, bots: 1, uniques: 4 });
      const after = await api(t, 'GET', `/links/${link.id}`, { key: c.key });
      expect(after.body.variants).toEqual([]);
      expect(after.body.clickCount).toBe(4);
      await disposeTestApp(t);
    });
  });

  describe('privacy', () => {
    const ADDRESS = '203.0.113.7';

    /** Every (table, column) whose text (or bytes, read as text) contains `needle`, on either engine. */
    async function columnsContaining(t: TestApp, needle: string): Promise<string[]> {
      const hits = new Set<string>();
      for (const { table, row } of await allStoredRows(t)) {
        for (const [column, value] of Object.entries(row)) {
          const text = value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : String(value);
          if (text.includes(needle)) hits.add(`${table}.${column}`);
        }
      }
      return [...hits].sort();
    }

    test(`nothing of the raw address ${ADDRESS} reaches the database`, async () => {
      const c = await setup({}, engine);
      const { t } = c;
      const link = await createLink(c, { slug: 'private', destination: 'https://example.com/private-landing' });
      await createVariant(c, link.id, { code: 'v' });
      const shots: [string, Parameters<typeof click>[2]][] = [
        ['/private', { ip: ADDRESS, ua: UA.chromeWin }],
        ['/private/v', { ip: ADDRESS, ua: UA.safariIphone, referer: 'https://www.google.com/', lang: 'en-GB' }],
        ['/private/unknown', { ip: ADDRESS, ua: UA.googlebot }],
        ['/private', { ip: ADDRESS, ua: UA.chromeWin, method: 'HEAD' }],
        ['/private', { ip: ADDRESS, ua: null }],
        ['/private', { ip: `${ADDRESS}, 10.0.0.1`, ua: UA.firefoxLinux }],
        ['/private', { ip: `::ffff:${ADDRESS}`, ua: UA.edgeMac }],
      ];
      for (const [path, o] of shots) expect(await click(t, path, o)).toBe(302);
      t.clock.set(T0 + 86_400_000 + 1000); // the next day too
      expect(await click(t, '/private', { ip: ADDRESS, ua: UA.chromeWin })).toBe(302);
      await flushOk(t);
      expect(await storedCount(t)).toBe(shots.length + 1);
      expect((await storedClicks(t)).filter((r) => r.first_of_day === 1).length).toBeGreaterThan(0);

      // The scan finds what is stored (the destination), and nothing of the address.
      expect(await columnsContaining(t, 'https://example.com/private-landing')).toEqual(
        expect.arrayContaining(['links.destination', 'click_targets.destination']),
      );
      expect(await columnsContaining(t, ADDRESS)).toEqual([]);
      expect(await columnsContaining(t, '203.0.113')).toEqual([]);
      // Nor anywhere in SQLite's files (free pages and the WAL included).
      for (const suffix of t.deps.stores.engine === 'sqlite' ? ['', '-wal'] : []) {
        const file = `${t.deps.config.dbPath}${suffix}`;
        if (existsSync(file)) expect(readFileSync(file).includes(ADDRESS)).toBe(false);
      }
      await disposeTestApp(t);
    });
  });
});

// SQLite's own steps: its value ids and its fold are apart from the batch's writes.
describe('SQLite: a failed flush keeps the clicks and retries them', () => {
  test('a transaction failing half-way forgets the breakdown values it added; the retry writes buckets equal to the raw clicks', async () => {
    const c = await setup();
    const { t } = c;
    const link = await createLink(c, { slug: 'halfway', params: { utm_source: 'known' } });
    expect(await click(t, '/halfway', { ip: '8.8.8.8' })).toBe(302);
    await flushOk(t);
    const sqlite = t.deps.db.$client;
    const valuesBefore = rows(t, 'SELECT id, dim, key, value FROM rollup_values ORDER BY id');
    // The third click's row fails, after the first two added their new values.
    sqlite.run(
      "CREATE TRIGGER fail_insert BEFORE INSERT ON click_tail WHEN NEW.flags & 1 = 1 BEGIN SELECT RAISE(ABORT, 'simulated write failure'); END",
    );
    expect(
      await click(t, '/halfway/new-code', {
        ip: '5.39.0.1',
        ua: UA.firefoxLinux,
        referer: 'https://example.org/a',
        lang: 'fr',
      }),
    ).toBe(302);
    expect(await click(t, '/halfway', { ip: '133.242.0.1', ua: UA.safariIpad, lang: 'ja' })).toBe(302);
    expect(await click(t, '/halfway', { ip: '77.88.55.55', ua: UA.curl })).toBe(302);
    expect(await t.deps.clicks.flusher.flush()).toBe(false);
    expect(t.deps.clicks.buffer.length).toBe(3);
    expect(t.errors).toHaveLength(1);
    expect(t.errors[0]).toContain('click flush failed; 3 clicks kept in memory and retried');
    expect(one(t, 'SELECT count(*) AS n FROM raw_clicks').n).toBe(1);
    expect(rows(t, 'SELECT id, dim, key, value FROM rollup_values ORDER BY id')).toEqual(valuesBefore);
    expect(await linkCounts(t, link.id)).toEqual({ clicks: 1, bots: 0, uniques: 1 });

    // Meanwhile another connection adds a value: it takes the id the failed transaction had used.
    const other = new Database(t.deps.config.dbPath);
    other.run("INSERT INTO rollup_values (dim, key, value) VALUES ('param', 'from', 'elsewhere')");
    other.close();
    expect(one(t, "SELECT id FROM rollup_values WHERE dim = 'param' AND key = 'from'").id).toBe(
      valuesBefore.at(-1).id + 1,
    );
    sqlite.run('DROP TRIGGER fail_insert');
    await flushOk(t);
    expect(one(t, 'SELECT count(*) AS n FROM raw_clicks').n).toBe(4);
    expect(await linkCounts(t, link.id)).toEqual({ clicks: 3, bots: 1, uniques: 3 });
    const buckets = expectBucketsMatchRawClicks(t); // every id in the buckets names the value it counts
    expect(buckets.rows.some((r) => r.dim === 'variant' && r.value === 'new-code')).toBe(true);
    expect(buckets.rows.some((r) => r.dim === 'param' && r.key === 'from')).toBe(false);
    expect(t.errors).toHaveLength(1);
    t.errors.length = 0;
    await disposeTestApp(t);
  });

  test('a fold that fails keeps the sums: the clicks are written, counted at the next flush that folds', async () => {
    const c = await setup();
    const { t } = c;
    const link = await createLink(c, { slug: 'unfolded' });
    expect(await click(t, '/unfolded', { ip: '8.8.8.8' })).toBe(302);
    await flushOk(t);
    const sqlite = t.deps.db.$client;
    for (const op of ['INSERT', 'UPDATE']) {
      sqlite.run(
        `CREATE TRIGGER fail_${op} BEFORE ${op} ON rollups BEGIN SELECT RAISE(ABORT, 'simulated write failure'); END`,
      );
    }
    expect(await click(t, '/unfolded', { ip: '5.39.0.1', ua: UA.firefoxLinux, lang: 'fr' })).toBe(302);
    expect(await click(t, '/unfolded', { ip: '77.88.55.55', ua: UA.curl })).toBe(302);
    expect(await t.deps.clicks.flusher.flush()).toBe(false);
    expect(await t.deps.clicks.flusher.flush()).toBe(false); // still failing: no second error
    expect(t.deps.clicks.buffer.length).toBe(0);
    expect(t.errors).toHaveLength(1);
    expect(t.errors[0]).toContain('click fold failed; the written clicks are counted at the next flush');
    // Written once, not counted yet (the fold's transaction rolled back whole).
    expect(one(t, 'SELECT count(*) AS n FROM raw_clicks').n).toBe(3);
    expect(await linkCounts(t, link.id)).toEqual({ clicks: 1, bots: 0, uniques: 1 });
    expect(one(t, "SELECT value FROM click_state WHERE name = 'folded_through'").value).toBe(1);

    for (const op of ['INSERT', 'UPDATE']) sqlite.run(`DROP TRIGGER fail_${op}`);
    await flushOk(t);
    expect(one(t, 'SELECT count(*) AS n FROM raw_clicks').n).toBe(3);
    expect(await linkCounts(t, link.id)).toEqual({ clicks: 2, bots: 1, uniques: 2 });
    expect(one(t, "SELECT value FROM click_state WHERE name = 'folded_through'").value).toBe(3);
    expectBucketsMatchRawClicks(t);
    t.errors.length = 0;
    await disposeTestApp(t);
  });
});

describe('SQLite: deleted links and variants', () => {
  test('a link deleted between flushes leaves the workspace buckets the writer keeps decoded: the next flush reads them again', async () => {
    const c = await setup();
    const { t } = c;
    const gone = await createLink(c, { slug: 'gone' });
    const stay = await createLink(c, { slug: 'stay' });
    for (let i = 0; i < 3; i++) expect(await click(t, '/gone', { ip: `192.0.2.${i}`, ua: UA.googlebot })).toBe(302);
    for (let i = 0; i < 2; i++) expect(await click(t, '/stay', { ip: `192.0.2.${i}`, ua: UA.chromeWin })).toBe(302);
    await flushOk(t); // the writer now holds this hour's and day's workspace buckets decoded
    expect(await deleteLink(t.deps, OPERATOR, gone.id)).toEqual({ id: gone.id, deleted: true }); // bot hits only: allowed
    for (let i = 0; i < 2; i++)
      expect(await click(t, '/stay', { ip: `198.51.100.${i}`, ua: UA.safariIphone })).toBe(302);
    // A bot hit lands in the workspace's bot buckets, the ones the delete changed.
    expect(await click(t, '/stay', { ip: '198.51.100.9', ua: UA.googlebot })).toBe(302);
    await flushOk(t);
    const buckets = expectBucketsMatchRawClicks(t);
    expect(
      buckets.totals.filter((b) => b.scope === WORKSPACE).map((b) => [b.grain, b.bot, b.clicks, b.uniques]),
    ).toEqual([
      ['day', 0, 4, 4],
      ['day', 1, 1, 0],
      ['hour', 0, 4, 4],
      ['hour', 1, 1, 0],
    ]);
    expect(
      buckets.rows.filter((r) => r.scope === WORKSPACE && r.dim === 'link').map((r) => [r.value, r.clicks]),
    ).toEqual([
      [stay.id, 4],
      [stay.id, 1],
      [stay.id, 4],
      [stay.id, 1],
    ]);
    await disposeTestApp(t);
  });
});

// The buffer alone: no engine below it.
describe('backpressure at saturation', () => {
  test('when the writer cannot drain (writes failing) a waiting redirect is answered after MAX_WAIT_MS anyway', async () => {
    const buffer = new ClickBuffer(100, 2);
    for (let i = 0; i < 2; i++) buffer.push(botRecord());
    const started = performance.now();
    await buffer.drained();
    expect(performance.now() - started).toBeGreaterThanOrEqual(MAX_WAIT_MS - 20);
    expect(buffer.waiting).toBe(0);
  });

  test('waiting answers go in arrival order, as many as the buffer has room for under the mark, and newcomers queue behind them', async () => {
    const c = new ClickBuffer(100, 4);
    let highWater = 0;
    c.onHighWater = () => highWater++;
    for (let i = 0; i < 5; i++) c.push(botRecord());
    expect(highWater).toBe(1);
    const order: number[] = [];
    for (let i = 1; i <= 3; i++) void c.drained().then(() => order.push(i));
    c.take(2); // 3 left: room for one under the mark
    await waitUntil(() => order.length >= 1, 'the first waiting answer to go');
    expect(order).toEqual([1]);
    // Under the mark, but two are still waiting: a new answer must not overtake them.
    expect(c.length).toBe(3);
    expect(c.saturated).toBe(true);
    void c.drained().then(() => order.push(4));
    c.take(3); // empty: room for all
    await waitUntil(() => order.length >= 4, 'every waiting answer to go');
    expect(order).toEqual([1, 2, 3, 4]);
    expect(c.waiting).toBe(0);
    expect(c.saturated).toBe(false);
  });

  test('at the mark, waiting answers go at the pace the writer takes clicks out, not all at once', async () => {
    const c = new ClickBuffer(1000, 10);
    for (let i = 0; i < 10; i++) c.push(botRecord());
    // The writer takes 5 clicks every 100 ms: 0.05 clicks per ms.
    c.take(5);
    await Bun.sleep(100);
    c.take(5);
    for (let i = 0; i < 10; i++) c.push(botRecord());
    expect(c.length).toBe(10);
    let released = 0;
    for (let i = 0; i < 20; i++) void c.drained().then(() => released++);
    // The pace lets them go a few at a time (~3 in 60 ms), never all 20 at once.
    await waitUntil(() => released >= 1, 'the pace to let a first answer go');
    expect(released).toBeLessThan(20);
    // Emptied: room for 10 more at once, besides whatever the pace lets go meanwhile.
    const before = released;
    c.take(10);
    await waitUntil(() => released >= Math.min(20, before + 10), 'ten answers to go at once');
    expect(released).toBeGreaterThanOrEqual(Math.min(20, before + 10));
  });
});
