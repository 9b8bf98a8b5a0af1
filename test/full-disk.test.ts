/**
 * A full disk under the real server (docs/operations.md, "Health and logs"): the database lives
 * on a small tmpfs this test mounts (CI runs as root; mounting needs it), which a filler file
 * then fills. Redirects keep answering with their clicks held in memory, API writes answer 503
 * storage_unavailable, /healthz says degraded; once the filler is gone every click is written.
 */
import { afterAll, expect, test } from 'bun:test';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { superuserWriteKey } from './helpers/cli';
import { fill, poll, smallDisk, unmountSmallDisks } from './helpers/full-disk';
import { BUN, cleanEnv, freePort, type RunningProcess, start, waitHealthy } from './helpers/proc';

let server: RunningProcess | null = null;
afterAll(() => server?.kill());
afterAll(unmountSmallDisks);

test('the real server on a full disk: redirects answered and held, writes 503, healthz degraded, all written when space returns', async () => {
  const mountPoint = await smallDisk('6m');
  const db = join(mountPoint, 'slink.db');
  const key = await superuserWriteKey(db);
  const port = freePort();
  server = start([BUN, 'run', 'src/index.ts', 'serve'], port, {
    env: cleanEnv({
      SLINK_DB: db,
      SLINK_PORT: String(port),
      SLINK_HOSTNAME: '127.0.0.1',
      SLINK_FLUSH_MS: '100',
      SLINK_TRUST_PROXY: '1',
    }),
  });
  await waitHealthy(server);
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const newLink = (body: object) =>
    fetch(`${server!.base}/api/v1/links`, { method: 'POST', headers: auth, body: JSON.stringify(body) });
  const created = await newLink({ destination: 'https://example.com/full' });
  expect(created.status).toBe(201);
  const link = (await created.json()) as { id: string; slug: string };

  const filler = fill(mountPoint);
  const CLICKS = 300;
  for (let i = 0; i < CLICKS; i++) {
    const res = await fetch(`${server.base}/${link.slug}`, {
      redirect: 'manual',
      headers: {
        'user-agent': `Mozilla/5.0 (X11; Linux x86_64; rv:${100 + (i % 50)}.0) Gecko/20100101 Firefox/125.0`,
        'x-forwarded-for': `198.51.${i >> 8}.${i & 255}`,
        referer: `https://ref${i}.example/page/${i}`,
      },
    });
    expect(res.status).toBe(302);
  }
  const degraded = await poll(
    '/healthz while the disk is full',
    async () => {
      const res = await fetch(`${server!.base}/healthz`);
      return { status: res.status, body: await res.json() };
    },
    (h) => h.status === 503,
  );
  expect(degraded.body).toEqual({
    status: 'degraded',
    reason: expect.stringContaining('full'),
    node: expect.any(String),
  });
  const refused = await newLink({
    destination: 'https://example.com/refused',
    params: Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, 'v'.repeat(1000)])),
  });
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('30');
  expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('storage_unavailable');

  rmSync(filler);
  await poll(
    '/healthz once space returns',
    async () => (await fetch(`${server!.base}/healthz`)).status,
    (status) => status === 200,
  );
  const counted = await poll(
    'the held clicks, once written',
    async () =>
      (
        (await (await fetch(`${server!.base}/api/v1/links/${link.id}`, { headers: auth })).json()) as {
          clickCount: number;
        }
      ).clickCount,
    (n) => n === CLICKS,
  );
  expect(counted).toBe(CLICKS);
  expect((await newLink({ destination: 'https://example.com/after' })).status).toBe(201);
  expect(await server.stop()).toBe(0);
  server = null;
}, 120_000);
