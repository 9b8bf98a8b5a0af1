/**
 * Domains across nodes on one PostgreSQL database: a domain added, changed or deleted through
 * one node reaches the other's memory (the change feed: DOMAINS_CHANGED in the writing
 * transaction), so its routing, short URLs and /tls/ask follow.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { openPostgres } from '../../../src/db/postgres/client';
import { api, makeKey, type TestApp } from '../../helpers/app';
import { type Nodes, startNodes } from '../../helpers/nodes';
import { waitUntil } from '../../helpers/wait';

let nodes: Nodes;
let a: TestApp;
let b: TestApp;
let key: string;

beforeAll(async () => {
  nodes = await startNodes(2);
  [a, b] = nodes.nodes as [TestApp, TestApp];
  key = (await makeKey(a, 'write', { superuser: true })).key;
});
afterAll(() => nodes.close());

const ask = async (t: TestApp, host: string) =>
  (await t.app.handle(new Request(`https://app.sl.test/tls/ask?domain=${host}`))).status;

test('a domain added, changed and deleted through node A is in node B’s memory', async () => {
  expect(await ask(b, 'multi.example')).toBe(404);
  const added = await api(a, 'POST', '/domains', { key, body: { origin: 'https://multi.example' } });
  expect(added.status).toBe(201);
  await waitUntil(() => b.deps.domains.byHost('multi.example') !== undefined, 'the domain on node B');
  expect(b.deps.domains.byHost('multi.example')!.origin).toBe('https://multi.example');
  expect(await ask(b, 'multi.example')).toBe(200);

  const changed = await api(a, 'PATCH', '/domains/multi.example', {
    key,
    body: { notFoundUrl: 'https://example.com/404', assetLinks: [{ a: 1 }] },
  });
  expect(changed.status).toBe(200);
  await waitUntil(
    () => b.deps.domains.byHost('multi.example')?.notFoundUrl === 'https://example.com/404',
    'the change on node B',
  );
  expect(b.deps.domains.byHost('multi.example')!.assetLinks).toBe('[{"a":1}]');
  // Node B answers the API from the database as well.
  expect((await api(b, 'GET', '/domains/multi.example', { key })).body.notFoundUrl).toBe('https://example.com/404');

  expect((await api(a, 'DELETE', '/domains/multi.example', { key })).status).toBe(200);
  await waitUntil(() => b.deps.domains.byHost('multi.example') === undefined, 'the deletion on node B');
  expect(await ask(b, 'multi.example')).toBe(404);
  expect((await api(b, 'GET', '/domains/multi.example', { key })).status).toBe(404);
});

test('lastSeenAt written by two nodes keeps the later time', async () => {
  expect((await api(a, 'POST', '/domains', { key, body: { origin: 'https://seen2.example' } })).status).toBe(201);
  await waitUntil(() => b.deps.domains.byHost('seen2.example') !== undefined, 'the domain on node B');
  const id = a.deps.domains.byHost('seen2.example')!.id;
  a.deps.domains.noteSeen(id, 2_000_000_000_000);
  b.deps.domains.noteSeen(id, 1_900_000_000_000);
  await a.deps.domainSeen.flush();
  await b.deps.domainSeen.flush();
  for (const t of [a, b])
    expect((await api(t, 'GET', '/domains/seen2.example', { key })).body.lastSeenAt).toBe(2_000_000_000_000);
});

test('a link added while a domain is being deleted: the delete waits for it and answers 409', async () => {
  expect((await api(a, 'POST', '/domains', { key, body: { origin: 'https://race.example' } })).status).toBe(201);
  const domainId = a.deps.domains.byHost('race.example')!.id;
  const link = await api(a, 'POST', '/links', { key, body: { destination: 'https://example.com/race' } });
  expect(link.status).toBe(201);
  const sql = openPostgres(nodes.url, 2);
  try {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inserted!: () => void;
    const linkWritten = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    // Another writer adds a link on the domain and has not committed yet.
    const writer = sql.begin(async (tx) => {
      await tx`CREATE TEMP TABLE racing ON COMMIT DROP AS SELECT * FROM links WHERE id = ${link.body.id}`;
      await tx`UPDATE racing SET id = 'lnk_racing', slug = 'racing', domain_id = ${domainId}`;
      await tx`INSERT INTO links SELECT * FROM racing`;
      inserted();
      await held;
    });
    await linkWritten;
    const deleting = api(a, 'DELETE', '/domains/race.example', { key });
    // The delete reaches the lock the uncommitted link holds on the domain, and waits there.
    const waiting = async () =>
      Number(
        (
          await sql`SELECT count(*) AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock'`
        )[0].n,
      ) > 0;
    await waitUntil(waiting, 'the delete waiting for the link being added');
    release();
    await writer;
    const res = await deleting;
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'conflict', field: 'host' });
    expect((await api(b, 'GET', '/domains/race.example', { key })).body.linkCount).toBe(1);
  } finally {
    await sql.close();
  }
});
