/**
 * Password-protected links across two nodes on one PostgreSQL database: the wrong answers of one
 * address are counted together whichever node they reach (the 11th is refused on either), the
 * windows store no raw address, and an unlock cookie one node set is accepted by the other.
 * A link written through one node is made known to the other with `linkIndex.refresh`, as the
 * cross-node change feed would.
 */
import { afterEach, expect, test } from 'bun:test';
import { LINK_PASSWORD_LIMIT } from '../../../src/modules/redirect/password/throttle';
import { apiExpecting, makeKey } from '../../helpers/app';
import { type Nodes, startNodes } from '../../helpers/nodes';
import { storedRows } from '../../helpers/stored';
import { UA } from '../clicks/support';

const SECRET = 'open sesame 42';
const IP = '203.0.113.77';
let cluster: Nodes | null = null;

afterEach(async () => {
  await cluster?.close();
  cluster = null;
});

function post(node: Nodes['nodes'][number], path: string, password: string, cookie?: string) {
  const headers: Record<string, string> = {
    'user-agent': UA.chromeWin,
    'x-forwarded-for': IP,
    'content-type': 'application/x-www-form-urlencoded',
  };
  if (cookie) headers.cookie = cookie;
  return node.app.handle(
    new Request(`https://sl.test${path}`, {
      method: 'POST',
      headers,
      body: `password=${encodeURIComponent(password)}`,
    }),
  );
}

test('wrong answers count across nodes; the windows keep no raw address; either node takes the other’s cookie', async () => {
  cluster = await startNodes(2, { SLINK_TRUST_PROXY: '1' });
  const [a, b] = cluster.nodes as [Nodes['nodes'][number], Nodes['nodes'][number]];
  const { key } = await makeKey(a, 'write', { superuser: true });
  const link = await apiExpecting(a, key, 'POST', '/links', {
    destination: 'https://example.com/landing',
    slug: 'secret',
    password: SECRET,
  });
  await b.deps.linkIndex.refresh(link.id);

  // Set by A, accepted by B.
  const unlocked = await post(a, '/secret', SECRET);
  expect(unlocked.status).toBe(302);
  const cookie = unlocked.headers.get('set-cookie')!.split(';')[0]!;
  const viaB = await b.app.handle(
    new Request('https://sl.test/secret', { headers: { 'user-agent': UA.chromeWin, 'x-forwarded-for': IP, cookie } }),
  );
  expect({ status: viaB.status, location: viaB.headers.get('location') }).toEqual({
    status: 302,
    location: 'https://example.com/landing',
  });

  // Wrong answers alternate between the nodes: ten in all are answered 401, the next is refused on both.
  const statuses: number[] = [];
  for (let i = 0; i < LINK_PASSWORD_LIMIT; i++)
    statuses.push((await post(i % 2 ? b : a, '/secret', `wrong ${i}`)).status);
  expect(statuses).toEqual(Array(LINK_PASSWORD_LIMIT).fill(401));
  for (const node of [a, b]) {
    const res = await post(node, '/secret', SECRET);
    expect({ status: res.status, retryAfter: res.headers.get('retry-after') }).toEqual({
      status: 429,
      retryAfter: '900',
    });
  }
  const windows = await storedRows(a, 'SELECT key, failures FROM sign_in_failures');
  expect(windows.map((w) => w.failures)).toEqual([LINK_PASSWORD_LIMIT]);
  expect(JSON.stringify(windows)).not.toContain(IP);
  expect(JSON.stringify(windows)).not.toContain(link.id);
  expect(windows[0]!.key).toMatch(/^[0-9a-f]{64}$/);

  // The window ends for both.
  cluster.advance(15 * 60_000);
  expect((await post(b, '/secret', SECRET)).status).toBe(302);
});
