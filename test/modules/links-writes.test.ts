/**
 * writeLinks, the one way to write links, tags and variants: the slug index is refreshed for
 * every link a write touched, after COMMIT and never before, and a rolled-back write never
 * reaches it.
 */
import { afterEach, beforeEach, expect, spyOn, test } from 'bun:test';
import { findLinkRow } from '../../src/modules/links/repo';
import { newLinkRow } from '../../src/modules/links/service';
import { deleteLinkRow, insertLinks, updateLinkRow, writeLinks } from '../../src/modules/links/writes';
import { disposeTestApp, makeTestApp, type TestApp } from '../helpers/app';

let t: TestApp;

beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(() => disposeTestApp(t));

function row(slug: string) {
  const fields = { destination: `https://example.com/${slug}`, title: null, params: {}, projectId: null };
  return newLinkRow(t.deps, { slug, ...fields, expiresAt: null, clickLimit: null });
}

/** Records whether SQLite was still inside the transaction each time the index was refreshed. */
function watchRefreshes(): boolean[] {
  const inTransaction: boolean[] = [];
  const refreshMany = t.deps.linkIndex.refreshMany.bind(t.deps.linkIndex);
  spyOn(t.deps.linkIndex, 'refreshMany').mockImplementation((ids, pageSize) => {
    inTransaction.push(t.deps.db.$client.inTransaction);
    refreshMany(ids, pageSize);
  });
  return inTransaction;
}

test('the links a write touched are in the index after it, refreshed once, after COMMIT', () => {
  const refreshes = watchRefreshes();
  const a = row('alpha');
  const b = row('beta');
  writeLinks(t.deps, (w) => {
    insertLinks(w, [
      { row: a, tags: ['x'] },
      { row: b, tags: [] },
    ]);
    // Not before COMMIT: nothing of this write is in memory yet.
    expect(t.deps.linkIndex.get('alpha')).toBeUndefined();
  });
  expect(refreshes).toEqual([false]);
  expect(t.deps.linkIndex.get('alpha')?.id).toBe(a.id);
  expect(t.deps.linkIndex.get('beta')?.base.location).toBe('https://example.com/beta');
});

test('a rolled-back write changes neither SQLite nor the index', () => {
  const a = row('alpha');
  writeLinks(t.deps, (w) => insertLinks(w, [{ row: a, tags: [] }]));
  const refreshes = watchRefreshes();
  expect(() =>
    writeLinks(t.deps, (w) => {
      updateLinkRow(w, a.id, { slug: 'renamed' });
      throw new Error('boom');
    }),
  ).toThrow('boom');
  expect(refreshes).toEqual([]);
  expect(findLinkRow(t.deps.db, a.id)?.slug).toBe('alpha');
  expect(t.deps.linkIndex.get('alpha')?.id).toBe(a.id);
  expect(t.deps.linkIndex.get('renamed')).toBeUndefined();
});

test('a deleted link is forgotten; slugs swapped within one write both answer', () => {
  const [a, b, c] = [row('one'), row('two'), row('three')];
  writeLinks(t.deps, (w) =>
    insertLinks(
      w,
      [a, b, c].map((r) => ({ row: r, tags: [] })),
    ),
  );
  writeLinks(t.deps, (w) => {
    updateLinkRow(w, a.id, { slug: 'tmp' });
    updateLinkRow(w, b.id, { slug: 'one' });
    updateLinkRow(w, a.id, { slug: 'two' });
    deleteLinkRow(w, c.id);
  });
  expect(t.deps.linkIndex.get('one')?.id).toBe(b.id);
  expect(t.deps.linkIndex.get('two')?.id).toBe(a.id);
  expect(t.deps.linkIndex.get('tmp')).toBeUndefined();
  expect(t.deps.linkIndex.get('three')).toBeUndefined();
  expect(t.deps.linkIndex.getById(c.id)).toBeUndefined();
});

test('an async callback is refused and rolled back (bun:sqlite would commit at its first await)', () => {
  const a = row('alpha');
  expect(() =>
    // @ts-expect-error: the callback must be synchronous.
    writeLinks(t.deps, async (w) => insertLinks(w, [{ row: a, tags: [] }])),
  ).toThrow('synchronous');
  expect(findLinkRow(t.deps.db, a.id)).toBeUndefined();
  expect(t.deps.linkIndex.get('alpha')).toBeUndefined();
});

test('a write inside another transaction is refused: its COMMIT would not be the last', () => {
  const a = row('alpha');
  expect(() => t.deps.db.transaction(() => writeLinks(t.deps, (w) => insertLinks(w, [{ row: a, tags: [] }])))).toThrow(
    'inside another transaction',
  );
  expect(findLinkRow(t.deps.db, a.id)).toBeUndefined();
});

test('a write context kept past its transaction cannot write', () => {
  let kept: Parameters<Parameters<typeof writeLinks>[1]>[0] | undefined;
  writeLinks(t.deps, (w) => {
    kept = w;
  });
  expect(() => insertLinks(kept!, [{ row: row('late'), tags: [] }])).toThrow('after its transaction ended');
  expect(t.deps.linkIndex.get('late')).toBeUndefined();
});
