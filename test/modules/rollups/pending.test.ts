/**
 * The writer's pending sums in typed arrays: what they hold equals a plain recount of the
 * clicks added, across links, hours, bots and growth of every table; and a clear leaves
 * nothing behind for the next fold.
 */
import { expect, test } from 'bun:test';
import { PendingSums } from '../../../src/modules/rollups/pending';
import type { RollupClick } from '../../../src/modules/rollups/rollups';
import { prng } from '../../helpers/random';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 22);

function click(linkId: string, time: number, bot: boolean, variantId: string | null = null): RollupClick {
  return {
    linkId,
    time,
    bot,
    code: variantId ? 'v' : null,
    variantId,
    rule: null,
    params: {},
    country: null,
    city: null,
    device: null,
    os: null,
    browser: null,
    referrer: null,
    trafficType: null,
    language: null,
  };
}

/** Everything the sums hold, as plain data. */
function snapshot(p: PendingSums) {
  const links: Record<string, unknown> = {};
  for (const slot of p.linksInOrder()) {
    const hours: Record<string, unknown> = {};
    p.forEachHour(slot, (h) => {
      const counts: Record<number, number> = {};
      for (let i = 0; i < h.size; i++) counts[h.ids[i]!] = h.counts[i]!;
      // Sorted: the fold merges them into packed bytes in one pass.
      expect([...h.ids.subarray(0, h.size)]).toEqual([...h.ids.subarray(0, h.size)].sort((a, b) => a - b));
      hours[`${h.start}|${h.bot}`] = { clicks: h.clicks, uniques: h.uniques, counts };
    });
    links[p.linkId(slot)] = { value: p.linkValue(slot), ...p.counters(slot), hours };
  }
  return { clicks: p.clicks, links, variants: Object.fromEntries(p.variants) };
}

/** The same, recounted with plain objects. */
function recount(added: { c: RollupClick; unique: boolean; ids: number[]; value: number }[]) {
  const links: Record<string, any> = {};
  const variants: Record<string, number> = {};
  for (const { c, unique, ids, value } of added) {
    links[c.linkId] ??= { value, humans: 0, uniques: 0, bots: 0, last: null, hours: {} };
    const link = links[c.linkId];
    const key = `${Math.floor(c.time / HOUR) * HOUR}|${c.bot}`;
    link.hours[key] ??= { clicks: 0, uniques: 0, counts: {} };
    const hour = link.hours[key];
    hour.clicks++;
    if (unique) hour.uniques++;
    for (const id of ids) hour.counts[id] = (hour.counts[id] ?? 0) + 1;
    if (c.bot) link.bots++;
    else {
      link.humans++;
      if (unique) link.uniques++;
      link.last = link.last === null ? c.time : Math.max(link.last, c.time);
      if (c.variantId) variants[c.variantId] = (variants[c.variantId] ?? 0) + 1;
    }
  }
  return { clicks: added.length, links, variants };
}

test('sums equal a plain recount through every table growing, and a clear starts afresh', () => {
  const random = prng(5);
  const pending = new PendingSums();
  for (const round of [0, 1]) {
    const added: { c: RollupClick; unique: boolean; ids: number[]; value: number }[] = [];
    // 3,000 links (value ids 2..3001, the link slots and the value index grow), three hours,
    // bots, up to 30 values per hour (the entry table rehashes several times).
    for (let i = 0; i < 20_000; i++) {
      const link = Math.floor(random() * 3000);
      const bot = random() < 0.2;
      const c = click(
        `lnk_${round}_${link}`,
        T0 + Math.floor(random() * 3) * HOUR + Math.floor(random() * HOUR),
        bot,
        !bot && link % 7 === 0 ? `var_${link}` : null,
      );
      const ids = [...new Set(Array.from({ length: 8 }, () => 5000 + Math.floor(random() * 30)))];
      const unique = !bot && random() < 0.5;
      pending.add(c, unique, ids, 2 + link);
      added.push({ c, unique, ids, value: 2 + link });
    }
    expect(snapshot(pending)).toEqual(recount(added));
    pending.clear();
    expect(snapshot(pending)).toEqual({ clicks: 0, links: {}, variants: {} });
  }
});

test('links come in link id order, and a link with no human click has no newest click', () => {
  const pending = new PendingSums();
  pending.add(click('lnk_b', T0, false), true, [9], 3);
  pending.add(click('lnk_c', T0, true), false, [9], 1);
  pending.add(click('lnk_a', T0 + 5, false), false, [9], 2);
  pending.add(click('lnk_a', T0 + 2, false), false, [9], 2);
  expect(pending.linksInOrder().map((s) => pending.linkId(s))).toEqual(['lnk_a', 'lnk_b', 'lnk_c']);
  expect(pending.linkIds().sort()).toEqual(['lnk_a', 'lnk_b', 'lnk_c']);
  const bySlot = Object.fromEntries(pending.linksInOrder().map((s) => [pending.linkId(s), pending.counters(s)]));
  expect(bySlot).toEqual({
    lnk_a: { humans: 2, uniques: 0, bots: 0, last: T0 + 5 },
    lnk_b: { humans: 1, uniques: 1, bots: 0, last: T0 },
    lnk_c: { humans: 0, uniques: 0, bots: 1, last: null },
  });
});
