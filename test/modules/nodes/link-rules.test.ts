/**
 * Link rules across nodes: rules written through one node are applied by the other's redirect
 * (the change feed carries the link; the other node compiles its rules into its slug index).
 */
import { afterEach, expect, test } from 'bun:test';
import { api, makeKey, type TestApp } from '../../helpers/app';
import { type Nodes, startNodes } from '../../helpers/nodes';

let running: Nodes | null = null;
afterEach(async () => {
  await running?.close();
  running = null;
});

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1';

async function visit(t: TestApp, path: string): Promise<string | null> {
  const res = await t.app.handle(new Request(`https://sl.test${path}`, { headers: { 'user-agent': IPHONE } }));
  await res.arrayBuffer();
  return res.headers.get('location');
}

/** Polls `check` until it holds; fails after `ms` (a missing change, not a slow one: the bound is 1 s). */
async function eventually(check: () => Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error('the change never arrived');
    await Bun.sleep(10);
  }
}

test('a rule written through one node is applied by the other', async () => {
  running = await startNodes(2);
  const [a, b] = running.nodes as [TestApp, TestApp];
  const { key } = await makeKey(a, 'write', { superuser: true });
  const created = await api(a, 'POST', '/links', { key, body: { destination: 'https://example.com/l', slug: 'nr' } });
  expect(created.status).toBe(201);
  await eventually(async () => (await visit(b, '/nr')) === 'https://example.com/l');
  const patched = await api(a, 'PATCH', `/links/${created.body.id}`, {
    key,
    body: { rules: [{ when: { device: ['mobile'] }, destination: 'https://example.com/m' }] },
  });
  expect(patched.status).toBe(200);
  await eventually(async () => (await visit(b, '/nr')) === 'https://example.com/m');
  expect(await visit(b, '/nr')).toBe('https://example.com/m');
  const tested = await api(b, 'POST', `/links/${created.body.id}/rules/test`, { key, body: { userAgent: IPHONE } });
  expect({ status: tested.status, body: tested.body }).toEqual({
    status: 200,
    body: { outcome: 'redirect', rule: 0, location: 'https://example.com/m' },
  });
});
