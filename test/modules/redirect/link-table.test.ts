/**
 * The slug index's packed storage against a plain Map model: lookups by slug and id through
 * slot, hash-table and arena growth, renames, swaps, removals and slot reuse; blocks that
 * buffered clicks hold stay as they were.
 */
import { describe, expect, test } from 'bun:test';
import {
  blockId,
  blockKey,
  blockLocation,
  blockParamsJson,
  blockSerial,
} from '../../../src/modules/clicks/capture/target-block';
import {
  HAS_PASSWORD,
  HAS_PREVIEW,
  HAS_RULES,
  type LinkFacts,
  LinkTable,
  STATUS_NAMES,
  type VariantFacts,
} from '../../../src/modules/redirect/link-table';
import { prng } from '../../helpers/random';

const NO_VARIANTS: VariantFacts[] = [];

function facts(n: number, over: Partial<LinkFacts> = {}): LinkFacts {
  return {
    id: `lnk_${String(n).padStart(16, '0')}`,
    slug: `s${n}`,
    domainId: 1,
    status: 'active',
    expiresAt: null,
    clickLimit: null,
    fallbackUrl: null,
    redirectStatus: 302,
    forwardQuery: false,
    passwordHash: null,
    rules: [],
    preview: null,
    location: `https://example.com/${n}`,
    paramsJson: '{}',
    ...over,
  };
}

function read(table: LinkTable, slot: number) {
  const at = table.blockAt[slot]!;
  return {
    id: blockId(table.arena, at),
    slug: blockKey(table.arena, at),
    domainId: table.domainId[slot],
    status: STATUS_NAMES[table.status[slot]!],
    expiresAt: Number.isNaN(table.expiresAt[slot]!) ? null : table.expiresAt[slot],
    clickLimit: Number.isNaN(table.clickLimit[slot]!) ? null : table.clickLimit[slot],
    location: blockLocation(table.arena, at),
    paramsJson: blockParamsJson(table.arena, at),
    fallbackUrl: table.fallbackUrl.get(slot) ?? null,
    redirectStatus: table.redirectStatus[slot],
    forwardQuery: table.forwardQuery[slot] === 1,
    ...extrasOf(table, slot),
  };
}

/** The rarely set facts, read through the extras byte as the redirect reads them. */
function extrasOf(table: LinkTable, slot: number) {
  const extras = table.extras[slot]!;
  const has = (bit: number) => (extras & bit) !== 0;
  // A bit must say exactly whether its map holds the slot.
  expect([has(HAS_PASSWORD), has(HAS_RULES), has(HAS_PREVIEW)]).toEqual([
    table.passwordHash.has(slot),
    table.rules.has(slot),
    table.preview.has(slot),
  ]);
  return {
    passwordHash: has(HAS_PASSWORD) ? table.passwordHash.get(slot)! : null,
    rules: has(HAS_RULES) ? table.rules.get(slot)!.source : [],
    preview: has(HAS_PREVIEW) ? table.preview.get(slot)! : null,
  };
}

describe('LinkTable', () => {
  test('every field round-trips; a UTF-8 params JSON too; nulls and statuses', () => {
    const table = new LinkTable();
    const params = JSON.stringify({ utm_campaign: 'été 🌞', ref: 'a"b' });
    const a = table.put(facts(1, { paramsJson: params, expiresAt: 1_800_000_000_000, clickLimit: 5 }), NO_VARIANTS, 3);
    const b = table.put(facts(2, { status: 'paused' }), NO_VARIANTS, 0);
    const c = table.put(facts(3, { status: 'archived' }), NO_VARIANTS, 0);
    const d = table.put(
      facts(4, { fallbackUrl: 'https://example.com/over', redirectStatus: 308, forwardQuery: true }),
      NO_VARIANTS,
      0,
    );
    expect(read(table, d)).toEqual({
      ...facts(4),
      fallbackUrl: 'https://example.com/over',
      redirectStatus: 308,
      forwardQuery: true,
    });
    const extras = {
      passwordHash: '$argon2id$v=19$m=65536,t=2,p=1$salt$hash',
      rules: [{ when: { country: ['DE'] }, destination: 'https://example.de/' }],
      preview: { title: 'Card', description: 'Text', image: 'https://example.com/i.png' },
    };
    const e = table.put(facts(5, extras), NO_VARIANTS, 0);
    expect(read(table, e)).toEqual({ ...facts(5), ...extras });
    expect(table.extras[e]).toBe(HAS_PASSWORD | HAS_RULES | HAS_PREVIEW);
    // Changed to none: the bits and the maps forget them.
    table.put(facts(5), NO_VARIANTS, 0);
    expect(read(table, e)).toEqual(facts(5));
    expect(table.extras[e]).toBe(0);
    table.remove(e);
    expect(read(table, a)).toEqual({ ...facts(1), paramsJson: params, expiresAt: 1_800_000_000_000, clickLimit: 5 });
    expect(read(table, b)).toEqual(facts(2, { status: 'paused' }));
    expect(read(table, c)).toEqual(facts(3, { status: 'archived' }));
    expect(table.humanClicks[a]).toBe(3);
    expect(table.find(1, 's1')).toBe(a);
    expect(table.find(1, 'S1')).toBe(-1);
    expect(table.find(1, 's')).toBe(-1);
    expect(table.findId(facts(2).id)).toBe(b);
    expect(table.size).toBe(4);
  });

  test('a location or slug that is not ASCII is refused, not garbled', () => {
    const table = new LinkTable();
    expect(() => table.put(facts(1, { location: 'https://example.com/é' }), NO_VARIANTS, 0)).toThrow(/not ASCII/);
    expect(() => table.put(facts(1, { slug: 'é' }), NO_VARIANTS, 0)).toThrow(/not ASCII/);
    expect(table.size).toBe(0);
    expect(table.find(1, 's1')).toBe(-1);
  });

  test('a changed link keeps its slot and counters; the block a click kept still reads as it was', () => {
    const table = new LinkTable();
    const slot = table.put(facts(1), NO_VARIANTS, 10);
    table.humanClicks[slot]! += 2;
    table.unsorted[slot] = 4;
    const kept = { arena: table.arena, at: table.blockAt[slot]! };
    const serial = blockSerial(kept.arena, kept.at);
    expect(table.put(facts(1, { slug: 'renamed', location: 'https://example.com/new' }), NO_VARIANTS, 0)).toBe(slot);
    expect(table.find(1, 's1')).toBe(-1);
    expect(table.find(1, 'renamed')).toBe(slot);
    expect([table.humanClicks[slot], table.unsorted[slot]]).toEqual([12, 4]);
    expect(table.location(slot)).toBe('https://example.com/new');
    expect(blockSerial(table.arena, table.blockAt[slot]!)).not.toBe(serial);
    // Enough new links to replace the arena several times over: the kept block is untouched.
    for (let n = 2; n < 5000; n++)
      table.put(facts(n, { location: `https://example.com/${'x'.repeat(200)}/${n}` }), NO_VARIANTS, 0);
    expect(table.arena).not.toBe(kept.arena);
    expect(blockLocation(kept.arena, kept.at)).toBe('https://example.com/1');
    expect(blockKey(kept.arena, kept.at)).toBe('s1');
    expect(blockSerial(kept.arena, kept.at)).toBe(serial);
    expect(table.location(slot)).toBe('https://example.com/new');
  });

  test('a known link read again with more stored human clicks counts them (other nodes stored them); fewer change nothing', () => {
    const table = new LinkTable();
    const slot = table.put(facts(1, { clickLimit: 100 }), NO_VARIANTS, 10);
    table.humanClicks[slot]! += 5;
    expect(table.put(facts(1, { clickLimit: 100 }), NO_VARIANTS, 12)).toBe(slot);
    expect(table.humanClicks[slot]).toBe(15);
    expect(table.put(facts(1, { clickLimit: 150 }), NO_VARIANTS, 40)).toBe(slot);
    expect(table.humanClicks[slot]).toBe(40);
    expect(read(table, slot).clickLimit).toBe(150);
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
      expect([table.find(1, 'two'), table.find(1, 'one')]).toEqual([one, two]);
    }
  });

  test('a slug is keyed by its domain: the same slug on two domains is two entries, each found on its own', () => {
    const table = new LinkTable();
    const one = table.put(facts(1, { slug: 'same', domainId: 1 }), NO_VARIANTS, 0);
    const two = table.put(facts(2, { slug: 'same', domainId: 2, location: 'https://example.com/two' }), NO_VARIANTS, 0);
    expect(one).not.toBe(two);
    expect([table.find(1, 'same'), table.find(2, 'same'), table.find(3, 'same')]).toEqual([one, two, -1]);
    expect([table.location(one), table.location(two)]).toEqual(['https://example.com/1', 'https://example.com/two']);
    // Moved to another domain: it answers there, and no more where it was.
    expect(table.put(facts(1, { slug: 'same', domainId: 3 }), NO_VARIANTS, 0)).toBe(one);
    expect([table.find(1, 'same'), table.find(2, 'same'), table.find(3, 'same')]).toEqual([-1, two, one]);
    expect(table.domainId[one]).toBe(3);
    table.remove(two);
    expect([table.find(2, 'same'), table.find(3, 'same')]).toEqual([-1, one]);
  });

  test('20 domains of the same slugs against a Map model: moves, renames and removals', () => {
    const table = new LinkTable();
    const random = prng(7);
    const model = new Map<number, LinkFacts>();
    for (let step = 0; step < 20_000; step++) {
      const n = Math.floor(random() * 2000);
      const f = facts(n, { slug: `k${Math.floor(random() * 300)}`, domainId: 1 + Math.floor(random() * 20) });
      const owner = [...model.values()].find((m) => m.slug === f.slug && m.domainId === f.domainId);
      if (random() < 0.1 && model.has(n)) {
        table.remove(table.findId(f.id));
        model.delete(n);
      } else if (owner === undefined || owner.id === f.id) {
        table.put(f, NO_VARIANTS, 0);
        model.set(n, f);
      }
    }
    expect(table.size).toBe(model.size);
    const keys = new Map([...model.values()].map((f) => [`${f.domainId}/${f.slug}`, f.id]));
    for (let domainId = 0; domainId <= 21; domainId++)
      for (let k = 0; k < 300; k++) {
        const slot = table.find(domainId, `k${k}`);
        const id = keys.get(`${domainId}/k${k}`);
        expect(slot < 0 ? undefined : table.linkId(slot)).toBe(id);
      }
  });

  test('variants follow their link in its entry, found by code; replaced and gone with it', () => {
    const table = new LinkTable();
    const variant = (code: string, n: number): VariantFacts => ({
      code,
      variantId: `var_${n}`,
      location: `https://example.com/1?v=${n}`,
      paramsJson: JSON.stringify({ v: String(n), é: 'ü' }),
    });
    const slot = table.put(facts(1), [variant('tw', 1), variant('fb', 2)], 0);
    const next = table.put(facts(2), [variant('tw', 3)], 0);
    const at = table.variantAt(slot, 'fb');
    expect(at).toBeGreaterThan(table.blockAt[slot]!);
    expect([blockKey(table.arena, at), blockId(table.arena, at), blockLocation(table.arena, at)]).toEqual([
      'fb',
      'var_2',
      'https://example.com/1?v=2',
    ]);
    expect(blockParamsJson(table.arena, at)).toBe('{"v":"2","é":"ü"}');
    expect(blockId(table.arena, table.variantAt(slot, 'tw'))).toBe('var_1');
    expect(blockId(table.arena, table.variantAt(next, 'tw'))).toBe('var_3');
    expect(table.variantAt(slot, 'TW')).toBe(-1);
    expect(table.variantAt(next, 'fb')).toBe(-1);
    // Each target has its own serial.
    const serials = [table.blockAt[slot]!, ...table.variantBlocks(slot)].map((b) => blockSerial(table.arena, b));
    expect(new Set(serials).size).toBe(3);
    // Replaced: the old entry stays readable for clicks that kept it.
    const kept = { arena: table.arena, at };
    table.put(facts(1), [variant('tw', 4)], 0);
    expect(table.variantAt(slot, 'fb')).toBe(-1);
    expect(blockId(table.arena, table.variantAt(slot, 'tw'))).toBe('var_4');
    expect(blockId(kept.arena, kept.at)).toBe('var_2');
    table.put(facts(1), NO_VARIANTS, 0);
    expect(table.variantAt(slot, 'tw')).toBe(-1);
    table.put(facts(1), [variant('tw', 5)], 0);
    table.remove(slot);
    const reused = table.put(facts(3), NO_VARIANTS, 0);
    expect(reused).toBe(slot);
    expect(table.variantAt(reused, 'tw')).toBe(-1);
    expect(table.location(next)).toBe('https://example.com/2');
  });

  test('matches a Map model through 30,000 random puts, renames and removals', () => {
    const random = prng(20261124);
    const table = new LinkTable();
    const model = new Map<number, LinkFacts>();
    const variantsOf = new Map<number, VariantFacts[]>();
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
        const f = facts(n, {
          slug,
          location: `https://example.com/${n}/${'p'.repeat(Math.floor(random() * 300))}`,
          // The redirect options vary too: a reused slot must never keep another link's.
          fallbackUrl: random() < 0.3 ? `https://example.com/over/${step}` : null,
          redirectStatus: [301, 302, 307, 308][Math.floor(random() * 4)]!,
          forwardQuery: random() < 0.5,
          // And the link rules' facts: a reused slot must never keep another link's password.
          passwordHash: random() < 0.3 ? `$argon2id$hash-${step}` : null,
          rules: random() < 0.3 ? [{ when: { device: ['mobile'] }, destination: `https://example.com/r/${step}` }] : [],
          preview: random() < 0.3 ? { title: `Preview ${step}` } : null,
        });
        const before = model.get(n);
        if (before) slugOwner.delete(before.slug);
        const variants = Array.from({ length: Math.floor(random() * 3) }, (_, k) => ({
          code: `c${k}`,
          variantId: `var_${step}_${k}`,
          location: `${f.location}?v=${k}`,
          paramsJson: k === 0 ? '{}' : `{"v":"${k}"}`,
        }));
        table.put(f, variants, n);
        model.set(n, f);
        variantsOf.set(n, variants);
        slugOwner.set(slug, n);
      }
    }
    expect(table.size).toBe(model.size);
    for (const [n, f] of model) {
      const slot = table.find(1, f.slug);
      expect(slot).toBeGreaterThanOrEqual(0);
      expect(table.findId(f.id)).toBe(slot);
      expect(read(table, slot)).toEqual(f);
      // A reused slot starts from its new link's stored count, not the removed link's.
      expect(table.humanClicks[slot]).toBe(n);
      const variants = table.variantBlocks(slot).map((at) => ({
        code: blockKey(table.arena, at),
        variantId: blockId(table.arena, at),
        location: blockLocation(table.arena, at),
        paramsJson: blockParamsJson(table.arena, at),
      }));
      expect(variants).toEqual(variantsOf.get(n)!);
      for (const v of variants) expect(blockId(table.arena, table.variantAt(slot, v.code))).toBe(v.variantId);
    }
    for (let n = 0; n < 3000; n++) if (!model.has(n)) expect(table.findId(facts(n).id)).toBe(-1);
    // Old slugs of renamed or removed links are gone.
    for (let step = 0; step < 30_000; step += 97)
      if (!slugOwner.has(`x${step}`)) expect(table.find(1, `x${step}`)).toBe(-1);
  });

  test('a full arena is replaced by one a quarter larger than its live entries, not doubled', () => {
    const table = new LinkTable();
    let live = 0;
    for (let n = 0; n < 20_000; n++) {
      const f = facts(n);
      live += 24 + f.slug.length + f.id.length + f.location.length;
      table.put(f, NO_VARIANTS, 0);
    }
    // Rewriting links (the same size) keeps the live bytes and fills the room, move after move.
    for (let move = 0; move < 3; move++) {
      const before = table.arena;
      let writes = 0;
      for (let n = 0; table.arena === before; n = (n + 1) % 20_000, writes++) table.put(facts(n), NO_VARIANTS, 0);
      if (move > 0) expect(writes).toBeGreaterThan(20_000 / 5);
      expect(table.arena.byteLength).toBeGreaterThan(live);
      expect(table.arena.byteLength).toBeLessThanOrEqual(Math.ceil(live * 1.25) + 1024);
    }
    for (let n = 0; n < 20_000; n += 997)
      expect(table.location(table.find(1, `s${n}`))).toBe(`https://example.com/${n}`);
  });

  test('100,000 links: a few bytes over their strings each', () => {
    const table = new LinkTable();
    let strings = 0;
    for (let n = 0; n < 100_000; n++) {
      const f = facts(n);
      strings += f.slug.length + f.id.length + f.location.length;
      table.put(f, NO_VARIANTS, 0);
    }
    expect(table.find(1, 's99999')).toBeGreaterThanOrEqual(0);
    // Per link: a 24-byte block header (8 of it the ids its clicks carry to PostgreSQL's writer),
    // ~65 bytes of arrays (its domain id's 4 among them) and hash tables.
    expect(table.bytes / 100_000).toBeLessThan(strings / 100_000 + 113);
  });
});
