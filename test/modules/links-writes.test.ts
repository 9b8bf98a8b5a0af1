/**
 * The LinkWriter (links/writer.ts), the one way to write links, tags and variants: the slug index
 * is refreshed for every link a write touched once the write has committed and before the write
 * resolves, and a write that failed never reaches it. On both engines.
 */
import { afterEach, beforeEach, expect, spyOn, test } from 'bun:test';
import { newLinkRow } from '../../src/modules/links/service';
import { deleteLinks, insertLinks, updateLinks } from '../../src/modules/links/writer';
import { disposeTestApp, makeTestApp, type TestApp } from '../helpers/app';
import { forEachEngine } from '../helpers/engines';

forEachEngine((engine) => {
  let t: TestApp;

  beforeEach(async () => {
    t = await makeTestApp({}, { engine });
  });
  afterEach(() => disposeTestApp(t));

  function row(slug: string) {
    const fields = {
      destination: `https://example.com/${slug}`,
      domainId: t.deps.domains.default.id,
      title: null,
      params: {},
      projectId: null,
    };
    return newLinkRow(t.deps, { slug, ...fields, expiresAt: null, clickLimit: null });
  }

  /** Records, at each refresh of the index, whether the database already held the links refreshed. */
  function watchRefreshes(): boolean[] {
    const committed: boolean[] = [];
    const refreshMany = t.deps.linkIndex.refreshMany.bind(t.deps.linkIndex);
    spyOn(t.deps.linkIndex, 'refreshMany').mockImplementation(async (ids, pageSize) => {
      const wanted = [...ids];
      const found = await t.deps.stores.links.findMany(wanted);
      committed.push(found.length === wanted.length);
      return refreshMany(wanted, pageSize);
    });
    return committed;
  }

  test('the links a write touched are in the index once it resolves, refreshed once, after the commit', async () => {
    const refreshes = watchRefreshes();
    const a = row('alpha');
    const b = row('beta');
    const writing = insertLinks(t.deps, [
      { row: a, tags: ['x'] },
      { row: b, tags: [] },
    ]);
    // Not before the write is done: nothing of it is in memory yet.
    expect(t.deps.linkIndex.find('alpha')).toBe(-1);
    await writing;
    expect(refreshes).toEqual([true]);
    expect((await t.deps.linkIndex.get('alpha'))?.id).toBe(a.id);
    expect((await t.deps.linkIndex.get('beta'))?.base.location).toBe('https://example.com/beta');
  });

  test('a write that fails (a slug taken) changes neither the database nor the index', async () => {
    const [a, b] = [row('alpha'), row('beta')];
    await insertLinks(t.deps, [
      { row: a, tags: [] },
      { row: b, tags: [] },
    ]);
    const refreshes = watchRefreshes();
    // One transaction: the first rename would succeed, the second meets the unique slug.
    await expect(
      updateLinks(t.deps, [
        { id: a.id, changes: { slug: 'renamed' } },
        { id: b.id, changes: { slug: 'renamed' } },
      ]),
    ).rejects.toThrow();
    expect(refreshes).toEqual([]);
    expect((await t.deps.stores.links.find(a.id))?.slug).toBe('alpha');
    expect((await t.deps.linkIndex.get('alpha'))?.id).toBe(a.id);
    expect(await t.deps.linkIndex.get('renamed')).toBeUndefined();
  });

  test('a deleted link is forgotten; slugs swapped within one write both answer', async () => {
    const [a, b, c] = [row('one'), row('two'), row('three')];
    await insertLinks(
      t.deps,
      [a, b, c].map((r) => ({ row: r, tags: [] })),
    );
    await updateLinks(t.deps, [
      { id: a.id, changes: { slug: 'tmp' } },
      { id: b.id, changes: { slug: 'one' } },
      { id: a.id, changes: { slug: 'two' } },
    ]);
    await deleteLinks(t.deps, [c.id]);
    expect((await t.deps.linkIndex.get('one'))?.id).toBe(b.id);
    expect((await t.deps.linkIndex.get('two'))?.id).toBe(a.id);
    expect(await t.deps.linkIndex.get('tmp')).toBeUndefined();
    expect(await t.deps.linkIndex.get('three')).toBeUndefined();
    expect(t.deps.linkIndex.getById(c.id)).toBeUndefined();
    expect(await t.deps.stores.links.find(c.id)).toBeNull();
  });
});
