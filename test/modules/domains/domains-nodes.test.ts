/**
 * Domains across nodes on one PostgreSQL database: a domain added, changed or deleted through
 * one node reaches the other's memory (the change feed: DOMAINS_CHANGED in the writing
 * transaction), so its routing, short URLs and /tls/ask follow.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
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
