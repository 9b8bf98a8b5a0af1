/**
 * `slink` on PostgreSQL as an operator runs it: SLINK_DATABASE_URL set, the real CLI and server
 * spawned against a real PostgreSQL server the tests start (helpers/postgres.ts). The CLI's
 * commands, `serve` with redirects whose clicks are written by the writer Worker, a stop and a
 * restart keeping every click, `backup` refused in favour of pg_dump, and an unreachable server
 * retried once a second until the start's deadline (30 s; shortened here through the server's
 * options), then one line and a non-zero exit; the URL's password is never printed.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { CONNECT_DEADLINE_MS, openPostgres } from '../src/db/postgres/client';
import { fails, ok, slink, tempDir } from './helpers/cli';
import { freshPostgresUrl } from './helpers/postgres';
import { BUN, cleanEnv, freePort, type RunningProcess, start, waitHealthy } from './helpers/proc';

const PASSWORD = 'correct horse battery';
const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';

/** The URL with a password the server's trust authentication ignores, so its redaction can be checked. */
async function urlWithPassword(): Promise<string> {
  const url = new URL(await freshPostgresUrl());
  url.password = 'pw-s3cret';
  return url.toString();
}

const servers: RunningProcess[] = [];
afterAll(() => {
  for (const s of servers) s.kill();
});

/** `bun src/index.ts serve`, or test/fixtures/serve-options.ts given `options` (the server's). */
function serve(url: string, db: string, flushMs = 50, options?: Record<string, number>): RunningProcess {
  const port = freePort();
  const env = cleanEnv({
    SLINK_DATABASE_URL: url,
    SLINK_DB: db,
    SLINK_PORT: String(port),
    SLINK_HOSTNAME: '127.0.0.1',
    SLINK_FLUSH_MS: String(flushMs),
    SLINK_NODE_ID: 'node-a',
  });
  const cmd = options
    ? [BUN, 'run', 'test/fixtures/serve-options.ts', JSON.stringify(options)]
    : [BUN, 'run', 'src/index.ts', 'serve'];
  const server = start(cmd, port, { env });
  servers.push(server);
  return server;
}

describe('slink on PostgreSQL', () => {
  test('the CLI, serve, clicks written by the Worker, a restart keeping them; no password printed', async () => {
    const url = await urlWithPassword();
    const db = join(tempDir(), 'slink.db');
    const env = { SLINK_DATABASE_URL: url };
    const accountId = (
      await ok(slink(db, ['user', 'add', 'pg@example.com', '--superuser', '--password', PASSWORD], { env }))
    ).trim();
    expect(accountId).toMatch(/^acc_/);
    const created = JSON.parse(
      await ok(slink(db, ['key', 'create', '--user', 'PG@example.com', '--scope', 'write', '--json'], { env })),
    ) as { key: string };
    expect(await ok(slink(db, ['migrate'], { env }))).toBe('database is up to date\n');
    const listed = JSON.parse(await ok(slink(db, ['user', 'list', '--json'], { env }))) as { email: string }[];
    expect(listed.map((a) => a.email)).toEqual(['pg@example.com']);

    let server = serve(url, db);
    expect(await (await waitHealthy(server)).json()).toEqual({ status: 'ok', node: 'node-a' });
    const auth = { authorization: `Bearer ${created.key}`, 'content-type': 'application/json' };
    const post = await fetch(`${server.base}/api/v1/links`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ destination: 'https://example.com/pg' }),
    });
    expect(post.status).toBe(201);
    const link = (await post.json()) as { id: string; slug: string };
    for (let i = 0; i < 25; i++) {
      const res = await fetch(`${server.base}/${link.slug}`, { redirect: 'manual', headers: { 'user-agent': CHROME } });
      expect({ status: res.status, location: res.headers.get('location') }).toEqual({
        status: 302,
        location: 'https://example.com/pg',
      });
    }
    // SIGTERM flushes what is buffered; nothing is lost.
    expect(await server.stop()).toBe(0);
    const firstLog = (await server.stdout) + (await server.stderr);
    expect(firstLog).toContain('node: node-a');
    expect(firstLog).not.toContain('pw-s3cret');
    // Every line names the node after its time.
    const lines = firstLog.split('\n').filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.filter((l) => !/^\d{4}-\d\d-\d\dT[\d:.]+Z node-a /.test(l))).toEqual([]);

    server = serve(url, db);
    await waitHealthy(server);
    const got = await fetch(`${server.base}/api/v1/links/${link.id}`, { headers: auth });
    expect(got.status).toBe(200);
    const body = (await got.json()) as { clickCount: number; uniqueCount: number; botCount: number };
    expect({ clickCount: body.clickCount, uniqueCount: body.uniqueCount, botCount: body.botCount }).toEqual({
      clickCount: 25,
      uniqueCount: 1,
      botCount: 0,
    });
    expect(await server.stop()).toBe(0);
  }, 120_000);

  test('backup says pg_dump is the tool and exits non-zero', async () => {
    const url = await urlWithPassword();
    const dir = tempDir();
    const line = await fails(
      slink(join(dir, 'slink.db'), ['backup', join(dir, 'copy.db')], { env: { SLINK_DATABASE_URL: url } }),
    );
    expect(line).toStartWith('slink: on PostgreSQL, back up with pg_dump');
    expect(line).not.toContain('pw-s3cret');
  }, 60_000);

  test('an unreachable server is retried until the deadline with a line each time, then one line and exit 1', async () => {
    // The production deadline (docs/operations.md); the test's is 5 s, the same code path.
    expect(CONNECT_DEADLINE_MS).toBe(30_000);
    const deadlineMs = 5000;
    const url = `postgres://slink:pw-s3cret@127.0.0.1:${freePort()}/slink`;
    const server = serve(url, join(tempDir(), 'slink.db'), 50, { connectDeadlineMs: deadlineMs });
    const code = await server.proc.exited;
    const out = await server.stdout;
    const err = await server.stderr;
    expect(code).toBe(1);
    const retries = out.split('\n').filter((l) => l.includes('not reachable yet'));
    // One attempt a second until the deadline (fewer when a loaded box makes an attempt slow).
    expect(retries.length).toBeGreaterThanOrEqual(2);
    expect(retries.length).toBeLessThanOrEqual(deadlineMs / 1000 + 1);
    expect(err.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        /^slink: PostgreSQL at postgres:\/\/slink:\*\*\*@127\.0\.0\.1:\d+\/slink cannot be reached: /,
      ),
    ]);
    expect(out + err).not.toContain('pw-s3cret');
  }, 60_000);

  test('SIGTERM with a minute of clicks still buffered loses none', async () => {
    const url = await freshPostgresUrl();
    const db = join(tempDir(), 'slink.db');
    const env = { SLINK_DATABASE_URL: url };
    await ok(slink(db, ['user', 'add', 'stop@example.com', '--superuser', '--password', PASSWORD], { env }));
    const key = (
      await ok(slink(db, ['key', 'create', '--user', 'stop@example.com', '--scope', 'write'], { env }))
    ).trim();
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    let server = serve(url, db, 60_000);
    await waitHealthy(server);
    const post = await fetch(`${server.base}/api/v1/links`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ destination: 'https://example.com/stop' }),
    });
    const link = (await post.json()) as { id: string; slug: string };
    let humans = 0;
    let bots = 0;
    for (let i = 0; i < 300; i += 50) {
      const batch = Array.from({ length: 50 }, (_, j) => {
        const bot = (i + j) % 3 === 0;
        if (bot) bots++;
        else humans++;
        return fetch(`${server.base}/${link.slug}`, {
          redirect: 'manual',
          headers: { 'user-agent': bot ? 'curl/8.4.0' : CHROME, 'x-forwarded-for': `198.51.100.${i + j}` },
        });
      });
      for (const res of await Promise.all(batch)) expect(res.status).toBe(302);
    }
    // Nothing was flushed yet (a minute apart): every click is in the buffer when the stop comes.
    const sql = openPostgres(url, 1);
    expect((await sql`SELECT count(*)::int AS n FROM click_tail`)[0].n).toBe(0);
    expect(await server.stop()).toBe(0);
    expect(await server.stdout).toContain('300 clicks written this run');
    expect((await sql`SELECT count(*)::int AS n FROM click_tail`)[0].n).toBe(300);
    await sql.close();

    server = serve(url, db);
    await waitHealthy(server);
    const after = (await (await fetch(`${server.base}/api/v1/links/${link.id}`, { headers })).json()) as {
      clickCount: number;
      botCount: number;
    };
    expect({ clickCount: after.clickCount, botCount: after.botCount }).toEqual({ clickCount: humans, botCount: bots });
    expect(await server.stop()).toBe(0);
  }, 120_000);
});
