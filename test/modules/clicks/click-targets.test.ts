/**
 * The writer's target ids: by the redirect's target serial when the click's code is its
 * target's own, by the four strings otherwise, and always the same row as the strings name.
 */
import { describe, expect, test } from 'bun:test';
import { TargetIds } from '../../../src/modules/clicks/sqlite/click-targets';
import { disposeTestApp } from '../../helpers/app';
import { createLink, setup } from './support';

function rows(sqlite: import('bun:sqlite').Database) {
  return sqlite
    .query<{ id: number; variant_id: string; code: string | null; destination: string }, []>(
      'SELECT id, variant_id, code, destination FROM click_targets ORDER BY id',
    )
    .all();
}

describe('TargetIds', () => {
  test('a serial names one target; an unknown code or no serial goes by the strings', async () => {
    const c = await setup();
    const link = await createLink(c, { slug: 'tg' });
    const sqlite = c.t.deps.db.$client;
    const ids = new TargetIds(sqlite);
    const dest = 'https://example.com/';
    const first = ids.idOf(5, {
      linkId: link.id,
      variantId: null,
      code: null,
      destination: dest,
      params: '{}',
      rule: null,
    });
    // Same serial: the same row, even from a fresh writer (found by its strings, then cached).
    expect(
      ids.idOf(5, { linkId: link.id, variantId: null, code: null, destination: dest, params: '{}', rule: null }),
    ).toBe(first);
    expect(
      new TargetIds(sqlite).idOf(9, {
        linkId: link.id,
        variantId: null,
        code: null,
        destination: dest,
        params: '{}',
        rule: null,
      }),
    ).toBe(first);
    // The same serial with a code that matched no variant is another target: the code is kept.
    const unknownCode = ids.idOf(5, {
      linkId: link.id,
      variantId: null,
      code: 'zz',
      destination: dest,
      params: '{}',
      rule: null,
    });
    expect(unknownCode).not.toBe(first);
    // No serial (a replayed spill): by the strings.
    expect(
      ids.idOf(0, { linkId: link.id, variantId: null, code: null, destination: dest, params: '{}', rule: null }),
    ).toBe(first);
    expect(
      ids.idOf(0, { linkId: link.id, variantId: null, code: 'zz', destination: dest, params: '{}', rule: null }),
    ).toBe(unknownCode);
    expect(rows(sqlite)).toEqual([
      { id: first, variant_id: '', code: null, destination: dest },
      { id: unknownCode, variant_id: '', code: 'zz', destination: dest },
    ]);
    await disposeTestApp(c.t);
  });

  test('a rolled back insert is forgotten, by serial too', async () => {
    const c = await setup();
    const link = await createLink(c, { slug: 'tr' });
    const sqlite = c.t.deps.db.$client;
    const ids = new TargetIds(sqlite);
    let inside = 0;
    expect(() =>
      sqlite.transaction(() => {
        inside = ids.idOf(3, {
          linkId: link.id,
          variantId: null,
          code: null,
          destination: 'https://a.example/',
          params: '{}',
          rule: null,
        });
        throw new Error('rolled back');
      })(),
    ).toThrow('rolled back');
    ids.rollback();
    expect(rows(sqlite)).toEqual([]);
    const after = ids.idOf(3, {
      linkId: link.id,
      variantId: null,
      code: null,
      destination: 'https://a.example/',
      params: '{}',
      rule: null,
    });
    ids.commit();
    expect(rows(sqlite)).toEqual([{ id: after, variant_id: '', code: null, destination: 'https://a.example/' }]);
    expect(inside).toBeGreaterThan(0);
    await disposeTestApp(c.t);
  });
});
