/**
 * What the spill file holds and how it is replayed (docs/architecture.md, "Stops, crashes and
 * failing writes"), with the real entry point: the clicks as the click store keeps them (never
 * a client address or user agent), the salt of a day whose salt could not be stored, exactly the
 * clicks the next start replays when the file fits only in part, and first visits decided against
 * the clicks' own day when the replay runs days later, for this release's files and the older
 * release's (address and user agent included) alike.
 */
import { afterAll, afterEach, describe, expect, test } from 'bun:test';
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openConnection } from '../src/db/client';
import { fixedClock } from '../src/lib/clock';
import { DAY_MS } from '../src/lib/time';
import { noGeo } from '../src/modules/clicks/enrich/geo';
import { SqliteClickWriter } from '../src/modules/clicks/sqlite/store';
import { freshDb, superuserWriteKey } from './helpers/cli';
import { fill, poll, smallDisk, unmountSmallDisks } from './helpers/full-disk';
import { BUN, cleanEnv, freePort, type RunningProcess, start, waitForLog, waitHealthy } from './helpers/proc';

let server: RunningProcess | null = null;
afterAll(unmountSmallDisks);
afterEach(() => {
  server?.kill();
  server = null;
});

const DESKTOP = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';
const PHONE =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36';

/** `slink serve` with a 300 ms stop deadline, the main thread's clock `days` on (test/fixtures/serve-short-stop.ts). */
function serve(db: string, days = 0): RunningProcess {
  const port = freePort();
  return start([BUN, 'run', 'test/fixtures/serve-short-stop.ts', '300', String(days)], port, {
    env: cleanEnv({
      SLINK_DB: db,
      SLINK_PORT: String(port),
      SLINK_HOSTNAME: '127.0.0.1',
      SLINK_FLUSH_MS: '100',
      SLINK_TRUST_PROXY: '1',
    }),
  });
}

async function createLink(base: string, key: string, slug: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ destination: 'https://example.com/landing', slug }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function counts(base: string, key: string, id: string): Promise<{ clickCount: number; uniqueCount: number }> {
  const res = await fetch(`${base}/api/v1/links/${id}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  const { clickCount, uniqueCount } = (await res.json()) as { clickCount: number; uniqueCount: number };
  return { clickCount, uniqueCount };
}

async function click(base: string, slug: string, address: string, agent: string, referer?: string): Promise<void> {
  const headers: Record<string, string> = { 'user-agent': agent, 'x-forwarded-for': address };
  if (referer) headers.referer = referer;
  expect((await fetch(`${base}/${slug}`, { redirect: 'manual', headers })).status).toBe(302);
}

function failWrites(db: string): void {
  const conn = openConnection(db, 'standalone');
  conn.exec("CREATE TRIGGER fail_clicks BEFORE INSERT ON click_tail BEGIN SELECT RAISE(ABORT, 'refused'); END");
  conn.close();
}

function healWrites(db: string): void {
  const conn = openConnection(db, 'standalone');
  conn.exec('DROP TRIGGER fail_clicks');
  conn.close();
}

const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('a stop on a full disk, the spill file on a file system with room', () => {
  test('keeps what the click store keeps, never the address or the user agent; the next start replays it', async () => {
    const disk = await smallDisk('8m');
    const db = join(disk, 'slink.db');
    // The spill file is the database's neighbour; here it lives on another file system, with room.
    const spill = join(await smallDisk('1m'), 'slink.db.spill');
    symlinkSync(spill, `${db}.spill`);
    const key = await superuserWriteKey(db);
    server = serve(db);
    await waitHealthy(server);
    const id = await createLink(server.base, key, 'private');
    const filler = fill(disk);
    await click(server.base, 'private', '8.8.8.8', DESKTOP);
    await click(server.base, 'private', '8.8.8.8', DESKTOP);
    await click(server.base, 'private', '1.1.1.1', PHONE, 'https://www.google.com/search?q=slink');
    expect(await server.stop(20_000)).toBe(0);
    expect(await server.stderr).toContain(`final click flush failed: 3 clicks saved to ${db}.spill`);

    const text = readFileSync(spill, 'utf8');
    for (const secret of ['8.8.8.8', '1.1.1.1', DESKTOP, PHONE, 'address', 'userAgent', 'google.com/search'])
      expect(text).not.toContain(secret);
    const saved = lines(spill);
    // No click could be written today, so today's salt was never stored: the file carries it.
    expect(saved[0]).toEqual({ v: 2, saltDay: Math.floor(Date.now() / DAY_MS), salt: expect.any(String) });
    const common = { v: 2, linkId: id, variantId: null, code: null, destination: 'https://example.com/landing' };
    const desktop = { ...common, country: 'US', city: 'Mountain View', device: 'desktop', os: 'Linux' };
    expect(saved.slice(1)).toEqual(
      [
        { ...desktop, browser: 'Chrome', referrer: null, trafficType: 'direct', language: null },
        { ...desktop, browser: 'Chrome', referrer: null, trafficType: 'direct', language: null },
        {
          ...common,
          country: 'AU',
          city: 'Sydney',
          device: 'mobile',
          os: 'Android',
          browser: 'Chrome',
          referrer: 'google.com',
          trafficType: 'search',
          language: null,
        },
      ].map((facts) => ({
        ...facts,
        time: expect.any(Number),
        paramsJson: '{}',
        visitorHash: expect.stringMatching(/^[0-9a-f]{16}$/),
        bot: false,
      })),
    );
    expect(saved[1]!.visitorHash).toBe(saved[2]!.visitorHash);
    expect(saved[1]!.visitorHash).not.toBe(saved[3]!.visitorHash);

    rmSync(filler);
    server = serve(db);
    await waitHealthy(server);
    await waitForLog(server, /replayed 3 clicks saved at the last stop/);
    expect(await counts(server.base, key, id)).toEqual({ clickCount: 3, uniqueCount: 2 });
    const stats = await fetch(`${server.base}/api/v1/links/${id}/stats?range=all`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(stats.status).toBe(200);
    const { breakdowns } = (await stats.json()) as { breakdowns: Record<string, { value: string; clicks: number }[]> };
    expect(breakdowns.country).toEqual([
      { value: 'US', clicks: 2 },
      { value: 'AU', clicks: 1 },
    ]);
    expect(existsSync(`${db}.spill`)).toBe(false);
    // The salt the file carried is today's stored salt now: a visitor seen in the file is not new.
    await click(server.base, 'private', '8.8.8.8', DESKTOP);
    await poll(
      'the next click',
      () => counts(server!.base, key, id),
      (c) => c.clickCount === 4,
    );
    expect(await counts(server.base, key, id)).toEqual({ clickCount: 4, uniqueCount: 2 });
    expect(await server.stop()).toBe(0);
  }, 90_000);

  test('an opted-out click reaches the spill file counted, never profiled: no dimension, no visitor hash, no salt', async () => {
    const disk = await smallDisk('8m');
    const db = join(disk, 'slink.db');
    const spill = join(await smallDisk('1m'), 'slink.db.spill');
    symlinkSync(spill, `${db}.spill`);
    const key = await superuserWriteKey(db);
    server = serve(db);
    await waitHealthy(server);
    const id = await createLink(server.base, key, 'gpc');
    const filler = fill(disk);
    for (const agent of [DESKTOP, PHONE]) {
      const headers = {
        'user-agent': agent,
        'x-forwarded-for': '8.8.8.8',
        referer: 'https://www.google.com/search?q=slink',
        'accept-language': 'fr-FR',
        'sec-gpc': '1',
      };
      expect((await fetch(`${server.base}/gpc`, { redirect: 'manual', headers })).status).toBe(302);
    }
    expect(await server.stop(20_000)).toBe(0);
    expect(await server.stderr).toContain(`final click flush failed: 2 clicks saved to ${db}.spill`);

    const text = readFileSync(spill, 'utf8');
    for (const secret of ['8.8.8.8', DESKTOP, PHONE, 'google.com', 'fr-FR', 'US', 'Mountain View', 'Chrome'])
      expect(text).not.toContain(secret);
    const saved = lines(spill);
    // No visitor hash was computed, so no day salt was made: the file carries none.
    const click = {
      v: 2,
      time: expect.any(Number),
      linkId: id,
      variantId: null,
      code: null,
      destination: 'https://example.com/landing',
      paramsJson: '{}',
      country: null,
      city: null,
      device: null,
      os: null,
      browser: null,
      referrer: null,
      trafficType: 'direct',
      language: null,
      visitorHash: '',
      bot: false,
      optedOut: true,
    };
    expect(saved).toEqual([click, click]);

    rmSync(filler);
    server = serve(db);
    await waitHealthy(server);
    await waitForLog(server, /replayed 2 clicks saved at the last stop/);
    expect(await counts(server.base, key, id)).toEqual({ clickCount: 2, uniqueCount: 0 });
    const stats = await fetch(`${server.base}/api/v1/links/${id}/stats?range=all`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(stats.status).toBe(200);
    expect(((await stats.json()) as { totals: unknown }).totals).toEqual({
      clicks: 2,
      uniques: 0,
      bots: 0,
      optedOut: 2,
    });
    expect(await server.stop()).toBe(0);
  }, 90_000);

  test('a spill file that fits in part: the clicks logged as lost are exactly those the next start cannot replay', async () => {
    const disk = await smallDisk('8m');
    const db = join(disk, 'slink.db');
    const spill = join(await smallDisk('8k'), 'slink.db.spill');
    symlinkSync(spill, `${db}.spill`);
    const key = await superuserWriteKey(db);
    server = serve(db);
    await waitHealthy(server);
    const id = await createLink(server.base, key, 'partial');
    const filler = fill(disk);
    const CLICKS = 60;
    for (let i = 0; i < CLICKS; i++) await click(server.base, 'partial', `198.51.100.${i}`, DESKTOP);
    expect(await server.stop(20_000)).toBe(1);
    const stderr = await server.stderr;
    const saved = Number(stderr.match(/final click flush failed: (\d+) clicks saved to /)?.[1]);
    const lost = Number(stderr.match(/could not be written: (\d+) clicks lost/)?.[1]);
    expect({ saved: saved > 0, lost: lost > 0, total: saved + lost }).toEqual({
      saved: true,
      lost: true,
      total: CLICKS,
    });
    expect(stderr).toContain(`exiting with status 1: ${lost} clicks lost`);
    // Whole lines only: the line the disk cut short was taken back.
    expect(lines(spill).filter((line) => line.linkId === id)).toHaveLength(saved);

    rmSync(filler);
    server = serve(db);
    await waitHealthy(server);
    await waitForLog(server, new RegExp(`replayed ${saved} clicks saved at the last stop`));
    expect(await counts(server.base, key, id)).toEqual({ clickCount: saved, uniqueCount: saved });
    expect(await server.stop()).toBe(0);
    expect(await server.stderr).toBe('');
  }, 90_000);
});

describe('a replay days after the stop counts each visitor once per day', () => {
  test('this release’s spill file, replayed three days later', async () => {
    const db = freshDb();
    const key = await superuserWriteKey(db);
    server = serve(db);
    await waitHealthy(server);
    const id = await createLink(server.base, key, 'later');
    await click(server.base, 'later', '81.2.69.142', DESKTOP);
    await poll(
      'the first click',
      () => counts(server!.base, key, id),
      (c) => c.clickCount === 1,
    );
    failWrites(db);
    // The same visitor again (not a unique), and a new one.
    await click(server.base, 'later', '81.2.69.142', DESKTOP);
    await click(server.base, 'later', '1.1.1.1', PHONE);
    expect(await server.stop(20_000)).toBe(0);
    healWrites(db);

    server = serve(db, 3);
    await waitHealthy(server);
    await waitForLog(server, /replayed 2 clicks saved at the last stop/);
    expect(await counts(server.base, key, id)).toEqual({ clickCount: 3, uniqueCount: 2 });
    expect(await server.stop()).toBe(0);
  }, 60_000);

  test('the spill file of the release before (address and user agent in it) still replays on upgrade', async () => {
    const db = freshDb();
    const key = await superuserWriteKey(db);
    server = serve(db);
    await waitHealthy(server);
    const id = await createLink(server.base, key, 'upgrade');
    expect(await server.stop()).toBe(0);
    server = null;
    // Three days ago: the visitor's first click was written, then the stop spilled two more.
    const day = Date.now() - 3 * DAY_MS;
    const captured = (time: number, address: string, userAgent: string) => ({
      time,
      linkId: id,
      variantId: null,
      code: null,
      location: 'https://example.com/landing',
      paramsJson: '{}',
      address,
      userAgent,
      referrer: null,
      acceptLanguage: null,
      bot: false,
    });
    const conn = openConnection(db, 'standalone');
    const store = new SqliteClickWriter(conn, noGeo, [], fixedClock(day));
    store.writeBatch([captured(day, '81.2.69.142', DESKTOP)]);
    store.fold();
    conn.close();
    writeFileSync(
      `${db}.spill`,
      `${[captured(day + 1000, '81.2.69.142', DESKTOP), captured(day + 2000, '1.1.1.1', PHONE)].map((c) => JSON.stringify(c)).join('\n')}\n`,
    );

    const port = freePort();
    server = start([BUN, 'run', 'src/index.ts', 'serve'], port, {
      env: cleanEnv({ SLINK_DB: db, SLINK_PORT: String(port), SLINK_HOSTNAME: '127.0.0.1' }),
    });
    await waitHealthy(server);
    await waitForLog(server, /replayed 2 clicks saved at the last stop/);
    expect(existsSync(`${db}.spill`)).toBe(false);
    expect(await counts(server.base, key, id)).toEqual({ clickCount: 3, uniqueCount: 2 });
    expect(await server.stop()).toBe(0);
    expect(await server.stderr).toBe('');
  }, 60_000);
});
