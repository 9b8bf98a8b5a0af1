/**
 * The fold on PostgreSQL (clicks/postgres/fold.ts): a batch commits its raw clicks and one delta
 * row; the counters and buckets take it at the next fold, of this writer or any other, exactly
 * once. Engine-internal: SQLite's fold has its own tests (its refold after a kill included).
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { openPostgres } from '../../../src/db/postgres/client';
import { fixedClock } from '../../../src/lib/clock';
import { noGeo } from '../../../src/modules/clicks/enrich/geo';
import { addDelta, encodeDelta } from '../../../src/modules/clicks/postgres/deltas';
import { PostgresClickWriter } from '../../../src/modules/clicks/postgres/store';
import { PendingSums } from '../../../src/modules/rollups/public';
import { type EngineStore, engineStore, wire } from './engine-store';

const T = Date.UTC(2026, 10, 21, 12, 30);
const HOUR_START = Date.UTC(2026, 10, 21, 12);
const DAY_START = Date.UTC(2026, 10, 21);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** A writer that folds only when asked. */
const NO_AUTO_FOLD = { foldMaxClicks: Number.POSITIVE_INFINITY, foldMaxMs: Number.POSITIVE_INFINITY };

let store: EngineStore | null = null;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  await store?.close();
  store = null;
});

/** A PostgreSQL store on a fresh database, closed after the test. */
async function opened(...args: Parameters<typeof engineStore>): Promise<EngineStore> {
  store = await engineStore(...args);
  return store;
}

/** Another writer on the same database: another node, or the next start after a kill. */
function secondWriter(s: EngineStore): PostgresClickWriter {
  const sql = openPostgres(s.url!, 2);
  closers.push(() => sql.close());
  return new PostgresClickWriter(sql, noGeo, ['sl.test'], fixedClock(T), NO_AUTO_FOLD);
}

describe('PostgreSQL fold', () => {
  test('a batch is counted at the fold, not before; a writer that never folds leaves it to the next', async () => {
    const s = await opened('postgres', T, NO_AUTO_FOLD);
    await s.link('lnk_a', 'a');
    const outcome = await s.writer.writeBatch([
      wire({ linkId: 'lnk_a', time: T }),
      wire({ linkId: 'lnk_a', time: T + 1000, address: '8.8.8.8' }),
    ]);
    expect(outcome).toMatchObject({ written: 2, skipped: 0 });
    // Written (the raw clicks are there), not counted yet.
    expect(await s.rawClicks()).toBe(2);
    expect(await s.counters('lnk_a')).toEqual({ clicks: 0, uniques: 0, bots: 0, last: null });
    expect(await s.bucket('lnk_a', 'hour', HOUR_START)).toBeNull();
    // The first writer is gone without folding (killed): another one counts its batch, once.
    const next = secondWriter(s);
    expect(await next.fold()).toBe(2);
    expect(await next.fold()).toBe(0);
    expect(await s.writer.fold()).toBe(0);
    expect(await s.counters('lnk_a')).toEqual({ clicks: 2, uniques: 2, bots: 0, last: T + 1000 });
    expect(await s.bucket('lnk_a', 'hour', HOUR_START)).toMatchObject({ clicks: 2, uniques: 2 });
    expect(await s.bucket(null, 'day', DAY_START)).toMatchObject({ clicks: 2, uniques: 2 });
  });

  test('two writers folding at once count every batch once', async () => {
    const s = await opened('postgres', T, NO_AUTO_FOLD);
    await s.link('lnk_a', 'a');
    await s.link('lnk_b', 'b');
    const other = secondWriter(s);
    for (let i = 0; i < 20; i++) {
      const writer = i % 2 === 0 ? s.writer : other;
      await writer.writeBatch([
        wire({ linkId: 'lnk_a', time: T + i, address: `10.0.${i}.1` }),
        wire({ linkId: 'lnk_b', time: T + i, address: `10.0.${i}.2` }),
      ]);
    }
    const counted = await Promise.all([s.writer.fold(), other.fold(), s.writer.fold(), other.fold()]);
    expect(counted.reduce((a, b) => a + Number(b), 0)).toBe(40);
    for (const id of ['lnk_a', 'lnk_b']) expect((await s.counters(id)).clicks).toBe(20);
    expect(await s.bucket(null, 'hour', HOUR_START)).toMatchObject({ clicks: 40 });
    expect((await s.bucket(null, 'hour', HOUR_START))!.counts['link  lnk_a']).toBe(20);
  });

  test('a link deleted between its batch and the fold is not counted, in its buckets or the workspace', async () => {
    const s = await opened('postgres', T, NO_AUTO_FOLD);
    await s.link('lnk_a', 'a');
    await s.link('lnk_b', 'b');
    await s.writer.writeBatch([wire({ linkId: 'lnk_a', time: T }), wire({ linkId: 'lnk_b', time: T })]);
    await s.deleteLinkWithClicks('lnk_a');
    expect(await s.writer.fold()).toBe(2);
    expect(await s.rawClicks()).toBe(1);
    expect(await s.bucket('lnk_a', 'hour', HOUR_START)).toBeNull();
    const w = await s.bucket(null, 'hour', HOUR_START);
    expect(w).toMatchObject({ clicks: 1, uniques: 1 });
    expect(w!.counts['link  lnk_a']).toBeUndefined();
    expect(w!.counts['link  lnk_b']).toBe(1);
  });

  test("a writer's cached workspace bucket is read again after another node's deletion and fold, even at the same totals", async () => {
    const s = await opened('postgres', T, NO_AUTO_FOLD);
    for (const id of ['lnk_x', 'lnk_y', 'lnk_z']) await s.link(id, id.slice(4));
    // This writer folds X: it keeps the workspace bucket {X: 1} decoded.
    await s.writer.writeBatch([wire({ linkId: 'lnk_x', time: T })]);
    expect(await s.writer.fold()).toBe(1);
    // Another node deletes X and folds one click of Y by the same visitor: the bucket is back at
    // 1 click and 1 unique, holding Y instead of X.
    await s.deleteLinkWithClicks('lnk_x');
    const other = secondWriter(s);
    await other.writeBatch([wire({ linkId: 'lnk_y', time: T })]);
    expect(await other.fold()).toBe(1);
    expect(await s.bucket(null, 'hour', HOUR_START)).toMatchObject({ clicks: 1, uniques: 1 });
    // This writer's next fold must add Z to what is stored, not to what it cached.
    await s.writer.writeBatch([wire({ linkId: 'lnk_z', time: T, address: '8.8.8.8' })]);
    expect(await s.writer.fold()).toBe(1);
    const w = await s.bucket(null, 'hour', HOUR_START);
    expect(w).toMatchObject({ clicks: 2, uniques: 2 });
    expect(w!.counts['link  lnk_x']).toBeUndefined();
    expect(w!.counts['link  lnk_y']).toBe(1);
    expect(w!.counts['link  lnk_z']).toBe(1);
  });

  test("a link's days are rolled up from its hours once the day is over; a late click joins its day; a deletion takes out what was read", async () => {
    const s = await opened('postgres', T, NO_AUTO_FOLD);
    await s.link('lnk_a', 'a');
    await s.link('lnk_b', 'b');
    const sql = openPostgres(s.url!, 2);
    closers.push(() => sql.close());
    const clock = fixedClock(T);
    const writer = new PostgresClickWriter(sql, noGeo, ['sl.test'], clock, NO_AUTO_FOLD);
    const markOf = async (linkId: string) => {
      const [r] = await sql`SELECT m.days_before AS d FROM rollup_marks m
        JOIN rollup_values v ON v.id = m.scope AND v.dim = 'link' WHERE v.value = ${linkId}`;
      return r === undefined ? null : Number(r.d);
    };
    const NEXT_DAY = DAY_START + DAY;
    // Day one is open: the link's clicks are in its hour buckets only (the workspace has both).
    await writer.writeBatch([
      wire({ linkId: 'lnk_a', time: T }),
      wire({ linkId: 'lnk_a', time: T + 1, address: '8.8.8.8' }),
    ]);
    expect(await writer.fold()).toBe(2);
    expect(await s.bucket('lnk_a', 'hour', HOUR_START)).toMatchObject({ clicks: 2, uniques: 2 });
    expect(await s.bucket('lnk_a', 'day', DAY_START)).toBeNull();
    expect(await s.bucket(null, 'day', DAY_START)).toMatchObject({ clicks: 2, uniques: 2 });
    // Nothing to roll up yet (every hour is today's): no mark is written.
    expect(await markOf('lnk_a')).toBeNull();

    // The first fold of day two rolls day one up whole and moves the mark.
    clock.set(NEXT_DAY + HOUR);
    await writer.writeBatch([
      wire({ linkId: 'lnk_a', time: NEXT_DAY + HOUR }),
      wire({ linkId: 'lnk_b', time: NEXT_DAY + HOUR }),
    ]);
    expect(await writer.fold()).toBe(2);
    expect(await s.bucket('lnk_a', 'day', DAY_START)).toMatchObject({ clicks: 2, uniques: 2 });
    expect(await s.bucket('lnk_a', 'day', NEXT_DAY)).toBeNull();
    expect(await markOf('lnk_a')).toBe(NEXT_DAY);
    expect(await markOf('lnk_b')).toBeNull();

    // A late click of day one (a batch folded a day late) goes to its day bucket as well as its hour.
    await writer.writeBatch([wire({ linkId: 'lnk_a', time: T + 2, address: '9.9.9.9' })]);
    expect(await writer.fold()).toBe(1);
    expect(await s.bucket('lnk_a', 'hour', HOUR_START)).toMatchObject({ clicks: 3, uniques: 3 });
    expect(await s.bucket('lnk_a', 'day', DAY_START)).toMatchObject({ clicks: 3, uniques: 3 });
    expect(await s.bucket(null, 'day', DAY_START)).toMatchObject({ clicks: 3, uniques: 3 });

    // Deleting the link takes day one out of the workspace from its day bucket and day two from
    // its hours: the workspace keeps exactly the other link's clicks.
    await s.deleteLinkWithClicks('lnk_a');
    expect(await s.bucket(null, 'day', DAY_START)).toBeNull();
    expect(await s.bucket(null, 'hour', HOUR_START)).toBeNull();
    const day2 = await s.bucket(null, 'day', NEXT_DAY);
    expect(day2).toMatchObject({ clicks: 1, uniques: 1 });
    expect(day2!.counts['link  lnk_a']).toBeUndefined();
    expect(day2!.counts['link  lnk_b']).toBe(1);
    expect(await markOf('lnk_a')).toBeNull();
  });

  test('a long drain folds on its own once FOLD_MAX_CLICKS clicks wait', async () => {
    const s = await opened('postgres', T, { foldMaxClicks: 3, foldMaxMs: Number.POSITIVE_INFINITY });
    await s.link('lnk_a', 'a');
    await s.writer.writeBatch([wire({ linkId: 'lnk_a', time: T }), wire({ linkId: 'lnk_a', time: T + 1 })]);
    expect((await s.counters('lnk_a')).clicks).toBe(0);
    await s.writer.writeBatch([wire({ linkId: 'lnk_a', time: T + 2 })]);
    expect((await s.counters('lnk_a')).clicks).toBe(3);
  });
});

describe('click deltas', () => {
  test('a delta adds to the sums exactly what its clicks add', () => {
    const clicks = [
      { linkId: 'lnk_a', time: T, bot: false, variantId: 'var_1' },
      { linkId: 'lnk_b', time: T + 3_600_000, bot: true, variantId: null },
      { linkId: 'lnk_a', time: T + 5, bot: false, variantId: null },
    ];
    const ids = [[3, 4, 5], [6], [3, 9]];
    const linkValues = [11, 12, 11];
    const first = new Set([0]);
    const direct = new PendingSums();
    for (const [i, c] of clicks.entries()) direct.add(c, first.has(i), ids[i]!, linkValues[i]!);
    const viaDelta = new PendingSums();
    // Only the rows given are in the delta: the second click's link was gone.
    const delta = encodeDelta(clicks as never, [0, 2], first, ids, linkValues);
    expect(addDelta(delta, viaDelta)).toBe(2);
    const expected = new PendingSums();
    for (const i of [0, 2]) expected.add(clicks[i]!, first.has(i), ids[i]!, linkValues[i]!);
    const view = (p: PendingSums) =>
      p.linksInOrder().map((slot) => {
        const hours: unknown[] = [];
        p.forEachHour(slot, (h) => {
          hours.push({ ...h, ids: [...h.ids.slice(0, h.size)], counts: [...h.counts.slice(0, h.size)] });
        });
        return { id: p.linkId(slot), value: p.linkValue(slot), ...p.counters(slot), hours };
      });
    expect(view(viaDelta)).toEqual(view(expected));
    expect([...viaDelta.variants]).toEqual([['var_1', 1]]);
    expect(view(direct)).not.toEqual(view(viaDelta));
  });
});
