/**
 * The slug index's packed storage against a plain Map model: lookups by slug and id through
 * slot, hash-table and arena growth, renames, swaps, removals and slot reuse; blocks that
 * buffered clicks hold stay as they were.
 */
import { describe, expect, test } from 'bun:test';
import {
  blockLinkId,
  blockLocation,
  blockParamsJson,
  blockSerial,
  blockSlug,
} from '../../../src/modules/clicks/target-block';
import { type LinkFacts, LinkTable, STATUS_NAMES } from '../../../src/modules/redirect/link-table';
import { prng } from '../../helpers/random';

const NO_VARIANTS = new Map();

function facts(n: number, over: Partial<LinkFacts> = {}): LinkFacts {
  return {
    id: `lnk_${String(n).padStart(16, '0')}`,
    slug: `s${n}`,
    status: 'active',
    expiresAt: null,
    clickLimit: null,
    location: `https://example.com/${n}`,
    paramsJson: '{}',
    ...over,
  };
}

function read(table: LinkTable, slot: number) {
  const at = table.blockAt[slot]!;
  return {
    id: blockLinkId(table.arena, at),
    slug: blockSlug(table.arena, at),
    status: STATUS_NAMES[table.status[slot]!],
    expiresAt: Number.isNaN(table.expiresAt[slot]!) ? null : table.expiresAt[slot],
    clickLimit: Number.isNaN(table.clickLimit[slot]!) ? null : table.clickLimit[slot],
    location: blockLocation(table.arena, at),
    paramsJson: blockParamsJson(table.arena, at),
  };
}

describe('LinkTable', () => {
  test('every field round-trips; a UTF-8 params JSON too; nulls and statuses', () => {
    const table = new LinkTable();
    const params = JSON.stringify({ utm_campaign: 'été 🌞', ref: 'a"b' });
    const a = table.put(facts(1, { paramsJson: params, expiresAt: 1_800_000_000_000, clickLimit: 5 }), NO_VARIANTS, 3);
    const b = table.put(facts(2, { status: 'paused' }), NO_VARIANTS, 0);
    const c = table.put(facts(3, { status: 'archived' }), NO_VARIANTS, 0);
    expect(read(table, a)).toEqual({ ...facts(1), paramsJson: params, expiresAt: 1_800_000_000_000, clickLimit: 5 });
    expect(read(table, b)).toEqual(facts(2, { status: 'paused' }));
    expect(read(table, c)).toEqual(facts(3, { status: 'archived' }));
    expect(table.humanClicks[a]).toBe(3);
    expect(table.find('s1')).toBe(a);
    expect(table.find('S1')).toBe(-1);
    expect(table.find('s')).toBe(-1);
    expect(table.findId(facts(2).id)).toBe(b);
    expect(table.size).toBe(3);
  });

  test('a location or slug that is not ASCII is refused, not garbled', () => {
    const table = new LinkTable();
    expect(() => table.put(facts(1, { location: 'https://example.com/é' }), NO_VARIANTS, 0)).toThrow(/not ASCII/);
    expect(() => table.put(facts(1, { slug: 'é' }), NO_VARIANTS, 0)).toThrow(/not ASCII/);
    expect(table.size).toBe(0);
    expect(table.find('s1')).toBe(-1);
  });

  test('a changed link keeps its slot and counters; the block a click kept still reads as it was', () => {
    const table = new LinkTable();
    const slot = table.put(facts(1), NO_VARIANTS, 10);
    table.humanClicks[slot]! += 2;
    table.unsorted[slot] = 4;
    const kept = { arena: table.arena, at: table.blockAt[slot]! };
    const serial = blockSerial(kept.arena, kept.at);
    expect(table.put(facts(1, { slug: 'renamed', location: 'https://example.com/new' }), NO_VARIANTS, 0)).toBe(slot);
    expect(table.find('s1')).toBe(-1);
    expect(table.find('renamed')).toBe(slot);
    expect([table.humanClicks[slot], table.unsorted[slot]]).toEqual([12, 4]);
    expect(table.location(slot)).toBe('https://example.com/new');
    expect(blockSerial(table.arena, table.blockAt[slot]!)).not.toBe(serial);
    // Enough new links to replace the arena several times over: the kept block is untouched.
    for (let n = 2; n < 5000; n++)
      table.put(facts(n, { location: `https://example.com/${'x'.repeat(200)}/${n}` }), NO_VARIANTS, 0);
    expect(table.arena).not.toBe(kept.arena);
    expect(blockLocation(kept.arena, kept.at)).toBe('https://example.com/1');
    expect(blockSlug(kept.arena, kept.at)).toBe('s1');
    expect(blockSerial(kept.arena, kept.at)).toBe(serial);
    expect(table.location(slot)).toBe('https://example.com/new');
  });

  test('two links swapping slugs in one write, refreshed in either order', () => {
    for (const order of [
      [0, 1],
      [1, 0],
    ]) {
      const table = new LinkTable();
      const one = table.put(facts(1, { slug: 'one' }), NO_VARIANTS, 0);
      const two = table.put(facts(2, { slug: 'two' }), NO_VARIANTS, 0);
      const swapped = [facts(1, { slug: 'two' }), facts(2, { slug: 'one' })];
      for (const i of order) table.put(swapped[i]!, NO_VARIANTS, 0);
      expect([table.find('two'), table.find('one')]).toEqual([one, two]);
    }
  });

  test('variants by slot and code; gone with the link', () => {
    const table = new LinkTable();
    const variant = { serial: 99, variantId: 'var_1', location: 'https://example.com/1?v=1', paramsJson: '{"v":"1"}' };
    const slot = table.put(facts(1), new Map([['tw', variant]]), 0);
    expect(table.variant(slot, 'tw')).toBe(variant);
    expect(table.variant(slot, 'TW')).toBeUndefined();
    table.put(facts(1), NO_VARIANTS, 0);
    expect(table.variant(slot, 'tw')).toBeUndefined();
    table.put(facts(1), new Map([['tw', variant]]), 0);
    table.remove(slot);
    const reused = table.put(facts(2), NO_VARIANTS, 0);
    expect(reused).toBe(slot);
    expect(table.variant(reused, 'tw')).toBeUndefined();
  });

  test('matches a Map model through 30,000 random puts, renames and removals', () => {
    const random = prng(20261124);
    const table = new LinkTable();
    const model = new Map<number, LinkFacts>();
    const slugOwner = new Map<string, number>();
    for (let step = 0; step < 30_000; step++) {
      const n = Math.floor(random() * 3000);
      const r = random();
      if (r < 0.2 && model.has(n)) {
        table.remove(table.findId(facts(n).id));
        slugOwner.delete(model.get(n)!.slug);
        model.delete(n);
      } else {
        // A fresh slug each time (slugs are unique in the database), sometimes a long location.
        const slug = `x${step}`;
        const f = facts(n, { slug, location: `https://example.com/${n}/${'p'.repeat(Math.floor(random() * 300))}` });
        const before = model.get(n);
        if (before) slugOwner.delete(before.slug);
        table.put(f, NO_VARIANTS, n);
        model.set(n, f);
        slugOwner.set(slug, n);
      }
      if (step % 5000 === 0) table.compact();
    }
    expect(table.size).toBe(model.size);
    for (const [n, f] of model) {
      const slot = table.find(f.slug);
      expect(slot).toBeGreaterThanOrEqual(0);
      expect(table.findId(f.id)).toBe(slot);
      expect(read(table, slot)).toEqual(f);
      // A reused slot starts from its new link's stored count, not the removed link's.
      expect(table.humanClicks[slot]).toBe(n);
    }
    for (let n = 0; n < 3000; n++) if (!model.has(n)) expect(table.findId(facts(n).id)).toBe(-1);
    // Old slugs of renamed or removed links are gone.
    for (let step = 0; step < 30_000; step += 97)
      if (!slugOwner.has(`x${step}`)) expect(table.find(`x${step}`)).toBe(-1);
  });

  test('100,000 links: a few bytes over their strings each', () => {
    const table = new LinkTable();
    let strings = 0;
    for (let n = 0; n < 100_000; n++) {
      const f = facts(n);
      strings += f.slug.length + f.id.length + f.location.length;
      table.put(f, NO_VARIANTS, 0);
    }
    table.compact();
    expect(table.find('s99999')).toBeGreaterThanOrEqual(0);
    // Per link: a 16-byte block header, ~60 bytes of arrays and hash tables.
    expect(table.bytes / 100_000).toBeLessThan(strings / 100_000 + 100);
  });
});
