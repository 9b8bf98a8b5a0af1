/**
 * A database that cannot be written (docs/behaviour.md "Errors", docs/operations.md "Health and
 * logs"): API writes answer 503 storage_unavailable with Retry-After, redirects keep answering
 * with their clicks kept in the buffer, /healthz says degraded with the reason; once space
 * returns the next flush writes every buffered click and everything answers as before.
 *
 * The full disk is stood in for by `PRAGMA max_page_count` on the app's one connection (the
 * inline click writer uses it too): SQLite then answers SQLITE_FULL, as it does on a full
 * file system, whenever a write needs a new page. Mounting a small tmpfs would need root, which
 * the test suite does not assume. Writes are made to need pages: the link's params spill to
 * overflow pages, and a few hundred clicks need more room than the pages have left.
 */
import { afterEach, expect, test } from 'bun:test';
import { api, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../helpers/app';
import { expectError } from '../helpers/schema';

let t: TestApp | null = null;
afterEach(async () => {
  if (t) await disposeTestApp(t);
  t = null;
});

const CLICKS = 300;
/** ~8 KB of params: more than a page, so the link's row needs overflow pages. */
const bigParams = () => Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, 'v'.repeat(1000)]));

function pragma(t: TestApp, sql: string): number {
  return Object.values(t.deps.db.$client.query(`PRAGMA ${sql}`).get() as Record<string, number>)[0]!;
}

/** No free page left and no new one allowed: the next write that needs a page fails SQLITE_FULL. */
function fillDisk(t: TestApp): void {
  t.deps.db.$client.exec('VACUUM');
  expect(pragma(t, 'freelist_count')).toBe(0);
  pragma(t, `max_page_count = ${pragma(t, 'page_count')}`);
}

function freeDisk(t: TestApp): void {
  pragma(t, 'max_page_count = 1073741823');
}

async function redirect(t: TestApp, slug: string, i: number): Promise<number> {
  const res = await t.app.handle(
    new Request(`https://sl.test/${slug}`, {
      headers: {
        'user-agent': `Mozilla/5.0 (X11; Linux x86_64; rv:${100 + (i % 50)}.0) Gecko/20100101 Firefox/125.0`,
        'x-forwarded-for': `198.51.${i >> 8}.${i & 255}`,
        referer: `https://ref${i}.example/page/${i}`,
      },
    }),
  );
  await res.arrayBuffer();
  return res.status;
}

test('a full database: 503 storage_unavailable on writes, redirects buffered, healthz degraded, all back once space returns', async () => {
  t = await makeTestApp({ SLINK_RATE_LIMIT: '1000000', SLINK_TRUST_PROXY: '1' });
  const { key } = await makeKey(t, 'write', { superuser: true });
  const created = await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/landing' } });
  expect(created.status).toBe(201);
  const { id, slug } = created.body as { id: string; slug: string };
  expect(await api(t, 'GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });

  fillDisk(t);

  const refused = await api(t, 'POST', '/links', {
    key,
    body: { destination: 'https://example.com/other', params: bigParams() },
  });
  expectError(refused, 503, 'storage_unavailable', null);
  expect(refused.headers.get('retry-after')).toBe('30');
  // Logged once, as a storage failure in one line (no stack trace), not as an unhandled error.
  expect(t.errors).toEqual(['storage unavailable on POST /api/v1/links: database or disk full']);
  t.errors.length = 0;

  for (let i = 0; i < CLICKS; i++) expect(await redirect(t, slug, i)).toBe(302);
  expect(t.deps.clicks.buffer.length).toBe(CLICKS);

  expect(await t.deps.clicks.flusher.flush()).toBe(false);
  expect(t.deps.clicks.buffer.length).toBe(CLICKS);
  expect(t.errors).toHaveLength(1);
  expect(t.errors[0]).toStartWith('click flush failed;');
  t.errors.length = 0;
  expect(await api(t, 'GET', '/healthz')).toMatchObject({
    status: 503,
    body: { status: 'degraded', reason: 'click writes failing: database or disk full' },
  });
  // Redirects still answer while writes fail.
  expect(await redirect(t, slug, CLICKS)).toBe(302);

  freeDisk(t);

  expect(await t.deps.clicks.flusher.flush()).toBe(true);
  expect(t.deps.clicks.buffer.length).toBe(0);
  const link = await api(t, 'GET', `/links/${id}`, { key });
  expect(link.status).toBe(200);
  expect(link.body.clickCount).toBe(CLICKS + 1);
  expect(await api(t, 'GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
  const again = await api(t, 'POST', '/links', {
    key,
    body: { destination: 'https://example.com/other', params: bigParams() },
  });
  expect(again.status).toBe(201);
});

test('a read-only database: healthz degraded by the write probe, reads answer, API writes 503 storage_unavailable', async () => {
  t = await makeTestApp({ SLINK_RATE_LIMIT: '1000000' });
  const { key } = await makeKey(t, 'write', { superuser: true });
  // query_only makes SQLite refuse writes with SQLITE_READONLY, as it does for a read-only file.
  t.deps.db.$client.exec('PRAGMA query_only = 1');
  expect(await api(t, 'GET', '/healthz')).toMatchObject({
    status: 503,
    body: { status: 'degraded', reason: 'database refuses writes: database read-only' },
  });
  // Reads answer: the key's first use would record lastUsedAt, skipped while writes fail.
  expect((await api(t, 'GET', '/links', { key })).status).toBe(200);
  const refused = await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/x' } });
  expectError(refused, 503, 'storage_unavailable', null);
  expect(refused.headers.get('retry-after')).toBe('30');
  expect(t.errors).toEqual(['storage unavailable on POST /api/v1/links: database read-only']);
  t.errors.length = 0;

  t.deps.db.$client.exec('PRAGMA query_only = 0');
  expect(await api(t, 'GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
  expect((await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/x' } })).status).toBe(201);
});

test("/healthz's write probe leaves the connection's busy timeout as it found it", async () => {
  t = await makeTestApp();
  const timeout = () => (t!.deps.db.$client.query('PRAGMA busy_timeout').get() as { timeout: number }).timeout;
  const before = timeout();
  expect(before).toBeGreaterThan(0);
  expect(await api(t, 'GET', '/healthz')).toMatchObject({ status: 200, body: { status: 'ok' } });
  // Left at 0, a later API write meeting the click writer's lock would fail at once (a 500).
  expect(timeout()).toBe(before);
});
