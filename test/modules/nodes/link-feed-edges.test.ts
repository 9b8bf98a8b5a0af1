/**
 * The edges of following the change feed (links/changes.ts, redirect/link-follower.ts), on two
 * nodes sharing one PostgreSQL: where a pruned change starts to count as missed, and a change
 * committed while a node reads every link again. B's own follower is stopped; each test drives a
 * follower of its own over B's index, deaf to notifications and without a poll, so every pass
 * runs when the test asks for it (`caughtUp`) and nothing else moves it.
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from 'bun:test';
import type { LinkChangeFeed } from '../../../src/modules/links/changes';
import { LinkFollower } from '../../../src/modules/redirect/link-follower';
import { api, makeKey, type TestApp } from '../../helpers/app';
import { type Nodes, startNodes } from '../../helpers/nodes';

let running: Nodes;
let a: TestApp;
let b: TestApp;
let key: string;

beforeAll(async () => {
  running = await startNodes(2);
  [a, b] = [running.nodes[0]!, running.nodes[1]!];
  await b.deps.follower!.stop();
  key = (await makeKey(a, 'write', { superuser: true })).key;
});
afterAll(async () => {
  await running.close();
});

/** B's feed as it is, except that it never wakes anyone: passes run only when the test asks. */
function deafFeed(): LinkChangeFeed {
  const real = b.deps.stores.changes!;
  return {
    head: () => real.head(),
    since: (seq, limit) => real.since(seq, limit),
    prune: (keptMs) => real.prune(keptMs),
    listen: async () => async () => {},
  };
}

function follower(): LinkFollower {
  return new LinkFollower(deafFeed(), b.deps.linkIndex, b.deps.log, async () => {}, 3_600_000);
}

async function visit(t: TestApp, path: string): Promise<string | null> {
  const res = await t.app.handle(new Request(`https://sl.test${path}`, { headers: { 'user-agent': 'Mozilla/5.0' } }));
  await res.arrayBuffer();
  return res.status === 302 ? res.headers.get('location') : `status ${res.status}`;
}

async function create(slug: string): Promise<string> {
  const made = await api(a, 'POST', '/links', { key, body: { destination: `https://example.com/${slug}`, slug } });
  expect(made.status).toBe(201);
  return made.body.id as string;
}

/** Changes a link's destination through node A: one change in the feed. */
async function retarget(id: string, destination: string): Promise<void> {
  expect((await api(a, 'PATCH', `/links/${id}`, { key, body: { destination } })).status).toBe(200);
}

const head = () => b.deps.stores.changes!.head();

describe('a change pruned before a node read it', () => {
  test("the change right after a node's own pruned: the node reads every link again", async () => {
    const f = follower();
    await f.begin();
    const x = await create('edge-x');
    const y = await create('edge-y');
    await f.caughtUp();
    expect(await visit(b, '/edge-x')).toBe('https://example.com/edge-x');
    const n = await head();

    await retarget(x, 'https://example.com/x2');
    await retarget(y, 'https://example.com/y2');
    expect(await head(), 'each write is one change, numbered one after the other').toBe(n + 2);
    // Every change but the newest goes: the one after the node's (n + 1) among them.
    expect(await b.deps.stores.changes!.prune(-60_000)).toBeGreaterThan(0);

    await f.caughtUp();
    expect(
      f.stats.resyncs,
      'a node at change N whose change N+1 was pruned missed it: it must read every link again',
    ).toBe(1);
    expect(await visit(b, '/edge-x'), 'the link changed by the pruned change is answered as it is now').toBe(
      'https://example.com/x2',
    );
    expect(await visit(b, '/edge-y')).toBe('https://example.com/y2');
    await f.stop();
  });

  test("a node's own change pruned, the next kept: no gap, the change is read alone", async () => {
    const f = follower();
    await f.begin();
    const z = await create('edge-z');
    await f.caughtUp();
    expect(await visit(b, '/edge-z')).toBe('https://example.com/edge-z');
    const n = await head();
    const applied = f.stats.changes;

    await retarget(z, 'https://example.com/z2');
    expect(await head(), 'one write is one change').toBe(n + 1);
    // Every change up to the node's own (n) goes; n + 1, the newest, stays.
    expect(await b.deps.stores.changes!.prune(-60_000)).toBeGreaterThan(0);

    await f.caughtUp();
    expect(
      f.stats.resyncs,
      'a node at change N with only changes up to N pruned missed nothing: it must not read every link again',
    ).toBe(0);
    expect(f.stats.changes, 'the kept change after it is read from the feed').toBe(applied + 1);
    expect(await visit(b, '/edge-z')).toBe('https://example.com/z2');
    await f.stop();
  });
});

describe('a change committed while a node reads every link again', () => {
  /**
   * Runs a follower's first pass (it knows no position yet: it reads every link again) with a
   * write through A committed at `when`: just before the feed's head is read, or between the
   * first and the second of the two reads (whichever order the follower reads them in).
   */
  async function resyncWithWrite(slug: string, when: 'before head' | 'between the reads'): Promise<void> {
    const id = await create(slug);
    const f = follower();
    const feed = b.deps.stores.changes!;
    const index = b.deps.linkIndex;
    const realHead = feed.head.bind(feed);
    const realResync = index.resync.bind(index);
    let first: 'head' | 'links' | null = null;
    let committed = false;
    const commit = async () => {
      committed = true;
      await retarget(id, `https://example.com/${slug}-2`);
    };
    const reached = async (read: 'head' | 'links') => {
      if (committed) return;
      if (when === 'before head' && read === 'head') await commit();
      else if (when === 'between the reads' && first !== null && first !== read) await commit();
      first ??= read;
    };
    const headSpy = spyOn(feed, 'head').mockImplementation(async () => {
      await reached('head');
      return realHead();
    });
    const resyncSpy = spyOn(index, 'resync').mockImplementation(async (pageSize?: number) => {
      await reached('links');
      return realResync(pageSize);
    });
    try {
      await f.caughtUp();
      expect(committed, 'the write was made during the re-read').toBe(true);
      expect(f.stats.resyncs).toBe(1);
    } finally {
      headSpy.mockRestore();
      resyncSpy.mockRestore();
    }
    // The re-read saw the change, or the next pass reads it from the feed.
    await f.caughtUp();
    expect(
      await visit(b, `/${slug}`),
      'a change committed during a full re-read is applied (the head is read before the links)',
    ).toBe(`https://example.com/${slug}-2`);
    await f.stop();
  }

  test('committed just before the head is read', async () => {
    await resyncWithWrite('race-before', 'before head');
  });

  test('committed after the head is read, before the links are', async () => {
    await resyncWithWrite('race-between', 'between the reads');
  });
});
