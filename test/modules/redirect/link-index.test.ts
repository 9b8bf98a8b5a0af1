/**
 * The slug index loaded in the background (what the server does at start): redirects are
 * answered before every link is in memory, and a write during the load is never undone by it.
 */
import { afterEach, beforeEach, expect, test } from 'bun:test';
import { LinkIndex } from '../../../src/modules/redirect/link-index';
import { seedLinks } from '../../bench/seed-links';
import { api, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';

let t: TestApp;
let key: string;
let indexes: LinkIndex[] = [];

function newIndex(): LinkIndex {
  const index = new LinkIndex(t.deps.stores, t.deps.clicks.buffer);
  indexes.push(index);
  return index;
}

beforeEach(async () => {
  t = await makeTestApp();
  key = (await makeKey(t, 'write', { superuser: true })).key;
});
afterEach(() => {
  for (const index of indexes) index.stopLoading();
  indexes = [];
  return disposeTestApp(t);
});

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function makeLinks(n: number): Promise<{ id: string; slug: string }[]> {
  const made: { id: string; slug: string }[] = [];
  for (let i = 0; i < n; i++) {
    const r = await api(t, 'POST', '/links', {
      key,
      body: { destination: `https://example.com/${i}`, slug: `s${String(i).padStart(3, '0')}` },
    });
    expect(r.status).toBe(201);
    made.push({ id: r.body.id, slug: r.body.slug });
  }
  return made;
}

test('while loading, a slug not read yet is found in SQLite; an unknown one is not; at the end every link is in', async () => {
  const made = await makeLinks(25);
  // Pages go in id order: the link with the greatest id is the last one loaded.
  const lastId = [...made].sort((a, b) => (a.id < b.id ? -1 : 1)).at(-1)!;
  const n = made.indexOf(lastId);
  await api(t, 'POST', `/links/${lastId.id}/variants`, {
    key,
    body: { code: 'tw', params: { utm_source: 'twitter' } },
  });
  const index = newIndex();
  const loading = index.loadInBackground(10);
  // Nothing is read before the caller's next turn (the server answers first), then a page a turn.
  expect(index.loaded).toBe(false);
  expect(index.size).toBe(0);
  await nextTurn();
  expect(index.size).toBe(10);
  expect(index.getById(lastId.id)).toBeUndefined();
  const last = await index.get(lastId.slug);
  expect(last?.id).toBe(lastId.id);
  expect(last?.base.location).toBe(`https://example.com/${n}`);
  expect(last?.variants.get('tw')?.location).toBe(`https://example.com/${n}?utm_source=twitter`);
  const slot = index.find(lastId.slug);
  expect(await index.get('nope')).toBeUndefined();
  expect(index.size).toBe(11);

  expect(await loading).toBe(25);
  expect(index.loaded).toBe(true);
  // The entry read on the miss was kept in its slot, with its counters (buffered clicks count
  // against them): not read again (the same serials).
  expect(index.find(lastId.slug)).toBe(slot);
  expect(await index.get(lastId.slug)).toEqual(last!);
  for (const { id, slug } of made) expect((await index.get(slug))?.id).toBe(id);
  expect(await index.get('nope')).toBeUndefined();
});

test('a link renamed or deleted during the load is seen as it is now', async () => {
  const made = await makeLinks(30);
  const index = newIndex();
  const loading = index.loadInBackground(10);
  // s025 is not loaded yet: rename it through the service (which refreshes this index too).
  const renamed = await api(t, 'PATCH', `/links/${made[25]!.id}`, { key, body: { slug: 'renamed' } });
  expect(renamed.status).toBe(200);
  await index.refresh(made[25]!.id);
  const deleted = await api(t, 'DELETE', `/links/${made[28]!.id}`, { key });
  expect(deleted.status).toBe(200);
  index.remove(made[28]!.id);
  await loading;
  expect(index.size).toBe(29);
  expect((await index.get('renamed'))?.id).toBe(made[25]!.id);
  expect(await index.get('s025')).toBeUndefined();
  expect(await index.get('s028')).toBeUndefined();
});

test('while the load waits for `first` (where the change feed stands), a miss reads the database', async () => {
  const made = await makeLinks(3);
  const index = newIndex();
  let release!: () => void;
  const loading = index.loadInBackground(10, new Promise<void>((resolve) => (release = resolve)));
  // Incomplete from the call on: an unknown slug is not taken for a missing link.
  expect(index.loaded).toBe(false);
  await nextTurn();
  expect(index.size).toBe(0);
  expect((await index.get(made[1]!.slug))?.id).toBe(made[1]!.id);
  release();
  expect(await loading).toBe(3);
  expect(index.loaded).toBe(true);
});

test('the server answers a redirect for a link that the background load has not reached', async () => {
  const made = await makeLinks(3);
  const index = newIndex();
  void index.loadInBackground(1);
  await nextTurn();
  expect(index.size).toBe(1);
  const notYet = made.findIndex((m) => index.getById(m.id) === undefined);
  expect((await index.get(made[notYet]!.slug))?.base.location).toBe(`https://example.com/${notYet}`);
  expect(index.size).toBe(2);
});

test('the background load starts with small pages, doubling up to its page size', async () => {
  await seedLinks(t.deps, 400, (i) => ({ destination: `https://example.com/${i}` }));
  const index = newIndex();
  const loading = index.loadInBackground(120);
  const sizes: number[] = [];
  for (let turn = 0; turn < 5; turn++) {
    await nextTurn();
    sizes.push(index.size);
  }
  // 50, then 100, then 120 a page (the page size), until the 400 links are in.
  expect(sizes).toEqual([50, 150, 270, 390, 400]);
  expect(await loading).toBe(400);
});
