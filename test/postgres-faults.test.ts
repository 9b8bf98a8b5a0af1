/**
 * Faults on PostgreSQL, against the real server process and a real PostgreSQL the test stops
 * and starts: the database gone for a while (OUTAGE_MS) while redirects run (they keep answering from memory,
 * their clicks wait in the buffer, /healthz is 503 degraded, API writes are 503
 * storage_unavailable, every click is written once it is back, no crash); SIGTERM while it is
 * unreachable (the spill file, replayed at the next start); kill -9 under load (at most the
 * batch in flight lost; the counters equal the raw clicks after the restart).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../src/config';
import { openPostgres } from '../src/db/postgres/client';
import { startServer } from '../src/server';
import { ok, slink, tempDir } from './helpers/cli';
import { freshPostgresUrl, startPostgres, stopPostgres } from './helpers/postgres';
import { BUN, cleanEnv, freePort, type RunningProcess, start, waitForLog, waitHealthy } from './helpers/proc';
import { pgRawClicks } from './helpers/stored-clicks';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
/**
 * How long the database stays down while redirects run: 60 of the server's 50 ms flushes, each
 * failing (the log's "click flush recovered" says they did). No timer of the server is counted
 * in tens of seconds while it runs (the 30 s connection wait is the start's), so a longer outage
 * proves nothing more.
 */
const OUTAGE_MS = 3000;
const servers: RunningProcess[] = [];
let stopped = false;
afterAll(async () => {
  for (const s of servers) s.kill();
  if (stopped) await startPostgres();
});

function serve(url: string, db: string): RunningProcess {
  const port = freePort();
  const server = start([BUN, 'run', 'src/index.ts', 'serve'], port, {
    env: cleanEnv({
      SLINK_DATABASE_URL: url,
      SLINK_DB: db,
      SLINK_PORT: String(port),
      SLINK_HOSTNAME: '127.0.0.1',
      SLINK_FLUSH_MS: '50',
    }),
  });
  servers.push(server);
  return server;
}

async function setUp() {
  const url = await freshPostgresUrl();
  const db = join(tempDir(), 'slink.db');
  const env = { SLINK_DATABASE_URL: url };
  await ok(
    slink(db, ['user', 'add', 'ops@example.com', '--superuser', '--password', 'correct horse battery'], { env }),
  );
  const key = (await ok(slink(db, ['key', 'create', '--user', 'ops@example.com', '--scope', 'write'], { env }))).trim();
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  return { url, db, headers };
}

async function createLink(
  server: RunningProcess,
  headers: Record<string, string>,
): Promise<{ id: string; slug: string }> {
  const res = await fetch(`${server.base}/api/v1/links`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ destination: 'https://example.com/faults' }),
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; slug: string };
}

async function hits(server: RunningProcess, slug: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${server.base}/${slug}`, {
      redirect: 'manual',
      headers: { 'user-agent': CHROME, 'x-forwarded-for': `203.0.113.${i % 200}` },
    });
    expect({ status: res.status, location: res.headers.get('location') }).toEqual({
      status: 302,
      location: 'https://example.com/faults',
    });
  }
}

async function clickCount(server: RunningProcess, headers: Record<string, string>, id: string): Promise<number> {
  const res = await fetch(`${server.base}/api/v1/links/${id}`, { headers });
  expect(res.status).toBe(200);
  return ((await res.json()) as { clickCount: number }).clickCount;
}

/** Polls until the link's clickCount is `want` (the flush is asynchronous). */
async function waitForCount(server: RunningProcess, headers: Record<string, string>, id: string, want: number) {
  const deadline = Date.now() + 20_000;
  let got = -1;
  while (Date.now() < deadline) {
    got = await clickCount(server, headers, id);
    if (got === want) return;
    await Bun.sleep(100);
  }
  expect(got).toBe(want);
}

describe('PostgreSQL faults', () => {
  test('the database gone for a while: redirects answer, /healthz and writes say so, every click is written after', async () => {
    const { url, db, headers } = await setUp();
    const server = serve(url, db);
    await waitHealthy(server);
    const link = await createLink(server, headers);
    await hits(server, link.slug, 20);
    await waitForCount(server, headers, link.id, 20);

    await stopPostgres();
    stopped = true;
    const outageStarted = Date.now();
    await hits(server, link.slug, 100);
    const health = await fetch(`${server.base}/healthz`);
    expect(health.status).toBe(503);
    const healthBody = (await health.json()) as { status: string; reason: string };
    expect(healthBody.status).toBe('degraded');
    expect(healthBody.reason).toContain('database unreachable');
    const write = await fetch(`${server.base}/api/v1/links`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ destination: 'https://example.com/later' }),
    });
    expect(write.status).toBe(503);
    expect(((await write.json()) as { error: { code: string } }).error.code).toBe('storage_unavailable');
    // Redirects keep answering for the rest of the outage.
    let redirected = 120;
    while (Date.now() - outageStarted < OUTAGE_MS) {
      await hits(server, link.slug, 10);
      redirected += 10;
      await Bun.sleep(500);
    }
    await startPostgres();
    stopped = false;
    await waitHealthy(server, 30_000);
    expect(server.proc.exitCode).toBeNull();
    await waitForCount(server, headers, link.id, redirected);
    // The writer failed while the database was gone, and came back on its own.
    await waitForLog(server, /click flush recovered/);
    expect(await server.stop()).toBe(0);
  }, 120_000);

  test('SIGTERM while it is unreachable: the clicks go to the spill file; the next start writes them', async () => {
    const { url, db, headers } = await setUp();
    const lines: string[] = [];
    const config = loadConfig({
      SLINK_DATABASE_URL: url,
      SLINK_DB: db,
      SLINK_PORT: '0',
      SLINK_HOSTNAME: '127.0.0.1',
      SLINK_FLUSH_MS: '50',
      SLINK_GEO_DB: '',
    });
    const log = { info: (m: string) => lines.push(m), error: (m: string) => lines.push(`ERROR ${m}`) };
    const first = await startServer(config, log, { stopFlushDeadlineMs: 1000, stopFlushRetryMs: 100 });
    const at = { base: `http://127.0.0.1:${first.port}` } as RunningProcess;
    const link = await createLink(at, headers);
    await hits(at, link.slug, 30);
    await waitForCount(at, headers, link.id, 30);
    await stopPostgres();
    stopped = true;
    await hits(at, link.slug, 40);
    expect(await first.stop()).toEqual({ spilled: 40, lost: 0 });
    expect(lines).toContain(
      `ERROR final click flush failed: 40 clicks saved to ${db}.spill, written to the database at the next start`,
    );
    expect(existsSync(`${db}.spill`)).toBe(true);

    await startPostgres();
    stopped = false;
    const second = serve(url, db);
    await waitHealthy(second);
    expect(second.output()).toContain('replayed 40 clicks saved at the last stop');
    expect(existsSync(`${db}.spill`)).toBe(false);
    await waitForCount(second, headers, link.id, 70);
    expect(await second.stop()).toBe(0);
  }, 120_000);

  test('kill -9 under load: what was counted stays; the counters equal the raw clicks after the restart', async () => {
    const { url, db, headers } = await setUp();
    const server = serve(url, db);
    await waitHealthy(server);
    const link = await createLink(server, headers);
    let redirected = 0;
    const load = (async () => {
      for (;;) {
        try {
          const res = await fetch(`${server.base}/${link.slug}`, {
            redirect: 'manual',
            headers: { 'user-agent': CHROME },
          });
          if (res.status === 302) redirected++;
        } catch {
          return;
        }
      }
    })();
    while (redirected < 300) await Bun.sleep(20);
    const countedBefore = await clickCount(server, headers, link.id);
    server.proc.kill('SIGKILL');
    await server.proc.exited;
    await load;

    const again = serve(url, db);
    await waitHealthy(again);
    const after = await clickCount(again, headers, link.id);
    expect(after).toBeGreaterThanOrEqual(countedBefore);
    expect(after).toBeLessThanOrEqual(redirected);
    const sql = openPostgres(url, 1);
    try {
      const [value] = await sql`SELECT id FROM rollup_values WHERE dim = 'link' AND value = ${link.id}`;
      // In the tail and, had a seal run, in blocks.
      const raw = { humans: (await pgRawClicks(sql)).filter((c) => c.link === value.id && (c.flags & 1) === 0).length };
      const [counters] = await sql`SELECT clicks::int AS clicks FROM link_counters WHERE link_id = ${link.id}`;
      expect({ raw: raw.humans, counters: counters.clicks }).toEqual({ raw: after, counters: after });
    } finally {
      await sql.close();
    }
    expect(await again.stop()).toBe(0);
  }, 120_000);
});
