/**
 * Starting on a full disk (docs/operations.md, "A full disk"), the real entry point on a small
 * tmpfs that a filler file fills. A database that exists starts degraded: redirects answered
 * from the links it reads, their clicks held, API writes 503 storage_unavailable, /healthz
 * degraded; the start's own writes (the fold of unfolded clicks, the spill replay) wait, and
 * once space returns everything is written and counted, click limits included. What cannot wait
 * (creating the database, pending migrations, a missing -shm file) stops with one `disk full` line.
 */
import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { openConnection } from '../src/db/client';
import { systemClock } from '../src/lib/clock';
import { noGeo } from '../src/modules/clicks/enrich/geo';
import { SqliteClickWriter } from '../src/modules/clicks/sqlite/store';
import { buildOldReleaseDb } from './fixtures/old-release-db';
import { superuserWriteKey } from './helpers/cli';
import { fill, poll, smallDisk, unmountSmallDisks } from './helpers/full-disk';
import { BUN, cleanEnv, freePort, type RunningProcess, run, start, waitForLog, waitHealthy } from './helpers/proc';

let server: RunningProcess | null = null;
afterAll(unmountSmallDisks);
afterEach(() => {
  server?.kill();
  server = null;
});

const HUMAN = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
const DEGRADED = {
  status: 'degraded',
  reason: 'click writes failing: database or disk full',
  node: expect.any(String),
};

function serve(db: string, script = 'src/index.ts', args: string[] = ['serve']): RunningProcess {
  const port = freePort();
  return start([BUN, 'run', script, ...args], port, {
    env: cleanEnv({ SLINK_DB: db, SLINK_PORT: String(port), SLINK_HOSTNAME: '127.0.0.1', SLINK_FLUSH_MS: '100' }),
  });
}

async function health(base: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${base}/healthz`);
  return { status: res.status, body: await res.json() };
}

function api(base: string, key: string, path: string, body?: object): Promise<Response> {
  return fetch(`${base}/api/v1${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

async function link(base: string, key: string, id: string): Promise<{ clickCount: number; uniqueCount: number }> {
  const res = await api(base, key, `/links/${id}`);
  expect(res.status).toBe(200);
  return (await res.json()) as { clickCount: number; uniqueCount: number };
}

async function redirect(base: string, slug: string): Promise<number> {
  return (await fetch(`${base}/${slug}`, { redirect: 'manual', headers: { 'user-agent': HUMAN } })).status;
}

/** Runs a server on `db` to create links through the API, then stops it; returns the ids by slug. */
async function withLinks(db: string, key: string, links: object[]): Promise<string[]> {
  server = serve(db);
  await waitHealthy(server);
  const ids: string[] = [];
  for (const body of links) {
    const res = await api(server.base, key, '/links', body);
    expect(res.status).toBe(201);
    ids.push(((await res.json()) as { id: string }).id);
  }
  expect(await server.stop()).toBe(0);
  server = null;
  return ids;
}

describe('a start on a full disk, database in place', () => {
  test('starts degraded: redirects, clicks held, writes 503, reads 200; all written once space returns', async () => {
    const disk = await smallDisk('8m');
    const db = join(disk, 'slink.db');
    const key = await superuserWriteKey(db);
    const [id] = await withLinks(db, key, [{ destination: 'https://example.com/full', slug: 'full' }]);
    const filler = fill(disk);

    server = serve(db);
    await waitForLog(server, /slink listening on/);
    expect(await health(server.base)).toEqual({ status: 503, body: DEGRADED });
    const answer = await fetch(`${server.base}/full`, { redirect: 'manual', headers: { 'user-agent': HUMAN } });
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('https://example.com/full');
    for (let i = 0; i < 29; i++) expect(await redirect(server.base, 'full')).toBe(302);
    // Writes are refused as a running server refuses them on a full disk; reads answer.
    const refused = await api(server.base, key, '/links', { destination: 'https://example.com/refused' });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(await refused.json()).toEqual({
      error: {
        code: 'storage_unavailable',
        message: 'The database cannot be written right now; try again later',
        field: null,
      },
    });
    expect(await link(server.base, key, id!)).toMatchObject({ clickCount: 0 });
    expect(await health(server.base)).toEqual({ status: 503, body: DEGRADED });

    rmSync(filler);
    await poll(
      '/healthz once space returns',
      () => health(server!.base),
      (h) => h.status === 200,
    );
    expect(await health(server.base)).toEqual({ status: 200, body: { status: 'ok', node: expect.any(String) } });
    const after = await poll(
      'the held clicks, once written',
      () => link(server!.base, key, id!),
      (l) => l.clickCount === 30,
    );
    expect(after).toMatchObject({ clickCount: 30, uniqueCount: 1 });
    expect((await api(server.base, key, '/links', { destination: 'https://example.com/after' })).status).toBe(201);
    expect(await server.stop()).toBe(0);
    expect(server.output()).toContain('the database takes writes again: the click writer opens');
  }, 90_000);

  test('the fold of unfolded clicks and the spill replay wait for space, then count, click limits included', async () => {
    const disk = await smallDisk('8m');
    const db = join(disk, 'slink.db');
    const key = await superuserWriteKey(db);
    const [id] = await withLinks(db, key, [
      { destination: 'https://example.com/limited', slug: 'limited', clickLimit: 6 },
    ]);
    // 2 clicks a stop could not write (the spill file), then 3 written by a writer killed
    // before it folded them: 5 of the limit's 6, none of them in the link's counter yet.
    server = serve(db, 'test/fixtures/serve-short-stop.ts', ['300']);
    await waitHealthy(server);
    for (let i = 0; i < 2; i++) expect(await redirect(server.base, 'limited')).toBe(302);
    const writes = openConnection(db, 'standalone');
    writes.exec("CREATE TRIGGER fail_clicks BEFORE INSERT ON click_tail BEGIN SELECT RAISE(ABORT, 'refused'); END");
    expect(await server.stop(20_000)).toBe(0);
    writes.exec('DROP TRIGGER fail_clicks');
    const store = new SqliteClickWriter(writes, noGeo, [], systemClock, { foldMaxMs: Number.MAX_SAFE_INTEGER });
    const click = {
      time: Date.now(),
      linkId: id!,
      variantId: null,
      code: null,
      location: 'https://example.com/limited',
      paramsJson: '{}',
      address: '203.0.113.9',
      userAgent: HUMAN,
      referrer: null,
      acceptLanguage: null,
      bot: false,
    };
    expect(store.writeBatch([click, click, click]).written).toBe(3);
    writes.close();
    expect(existsSync(`${db}.spill`)).toBe(true);
    const filler = fill(disk);

    server = serve(db);
    await waitForLog(server, /slink listening on/);
    expect(await health(server.base)).toEqual({ status: 503, body: DEGRADED });
    // The counter says 0 until space returns; the limit must still count the 5 waiting.
    expect(await link(server.base, key, id!)).toMatchObject({ clickCount: 0 });
    expect(await redirect(server.base, 'limited')).toBe(302);

    rmSync(filler);
    await poll(
      '/healthz once space returns',
      () => health(server!.base),
      (h) => h.status === 200,
    );
    await poll(
      'every click counted',
      () => link(server!.base, key, id!),
      (l) => l.clickCount === 6,
    );
    expect(await redirect(server.base, 'limited')).toBe(410);
    expect(existsSync(`${db}.spill`)).toBe(false);
    expect(server.output()).toContain('3 clicks written before the last stop counted in the statistics');
    expect(server.output()).toContain('replayed 2 clicks saved at the last stop');
    expect(await server.stop()).toBe(0);
  }, 90_000);
});

describe('a start on a full disk that cannot wait: one `disk full` line, exit 1', () => {
  test('a new database: nothing is left behind', async () => {
    const disk = await smallDisk('1m');
    fill(disk);
    const db = join(disk, 'slink.db');
    for (const args of [['serve'], ['user', 'list']]) {
      const r = await run([BUN, 'run', 'src/index.ts', ...args], { env: cleanEnv({ SLINK_DB: db, SLINK_PORT: '0' }) });
      expect(r).toEqual({
        code: 1,
        stdout: '',
        stderr: `slink: disk full: the new database ${db} cannot be created; free space on the file system of ${db} and try again\n`,
      });
      expect(readdirSync(disk)).toEqual(['filler']);
    }
  }, 60_000);

  test('migrations to write', async () => {
    const disk = await smallDisk('8m');
    const db = join(disk, 'slink.db');
    buildOldReleaseDb(db, { clicks: 200 });
    // As a stop of this release leaves it: the -shm file in place (see the next test).
    openConnection(db, 'export').close();
    openConnection(db, 'standalone').close();
    fill(disk);
    const r = await run([BUN, 'run', 'src/index.ts', 'serve'], { env: cleanEnv({ SLINK_DB: db, SLINK_PORT: '0' }) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^slink: disk full: the \\d+ pending migrations of ${db} cannot be written; free space on the file system of ${db} and try again\\n$`,
      ),
    );
  }, 60_000);

  test('no -shm file beside the database and no room to make one', async () => {
    const disk = await smallDisk('8m');
    const db = join(disk, 'slink.db');
    await superuserWriteKey(db);
    // What a copy of the database alone, or a stop of an older release, leaves.
    rmSync(`${db}-shm`);
    fill(disk);
    const r = await run([BUN, 'run', 'src/index.ts', 'serve'], { env: cleanEnv({ SLINK_DB: db, SLINK_PORT: '0' }) });
    expect(r).toEqual({
      code: 1,
      stdout: '',
      stderr: `slink: disk full: ${db} cannot be opened: SQLite needs room beside it for ${db}-shm; free space on the file system of ${db} and try again\n`,
    });
  }, 60_000);
});
