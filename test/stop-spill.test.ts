/**
 * A stop while the database will not take clicks (a full disk, here a trigger that fails every
 * click insert): the final flush retries until its deadline, then the clicks go to the spill
 * file beside the database, replayed by the next start; the exit status says whether any click
 * was lost. In-process through startServer (the deadline shortened through its options) and
 * spawned (the exit status), the deadline shortened by test/fixtures/serve-short-stop.ts.
 */
import { Database } from 'bun:sqlite';
import { afterEach, describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { loadConfig } from '../src/config';
import { startServer } from '../src/server';
import { createLinkAt, freshDb, superuserWriteKey } from './helpers/cli';
import { poll } from './helpers/full-disk';
import {
  BUN,
  cleanEnv,
  freePort,
  lines,
  ROOT,
  type RunningProcess,
  start,
  waitForLog,
  waitHealthy,
} from './helpers/proc';
import { queryRaw } from './helpers/raw-clicks';

let spawned: RunningProcess | undefined;
afterEach(() => spawned?.kill());

const HUMAN = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

async function clickCount(base: string, key: string, linkId: string): Promise<number> {
  const res = await fetch(`${base}/api/v1/links/${linkId}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { clickCount: number }).clickCount;
}

/** n redirects by a browser (every one a human click). */
async function click(base: string, slug: string, n: number): Promise<void> {
  const answers = await Promise.all(
    Array.from({ length: n }, () => fetch(`${base}/${slug}`, { redirect: 'manual', headers: { 'user-agent': HUMAN } })),
  );
  for (const res of answers) expect(res.status).toBe(302);
}

/** Every click insert fails from now on, as on a full disk (the writer keeps its clicks and retries). */
function failWrites(db: string): void {
  const conn = new Database(db);
  conn.exec('PRAGMA busy_timeout = 5000');
  conn.exec("CREATE TRIGGER fail_clicks BEFORE INSERT ON click_tail BEGIN SELECT RAISE(ABORT, 'disk full'); END");
  conn.close();
}

function healWrites(db: string): void {
  const conn = new Database(db);
  conn.exec('PRAGMA busy_timeout = 5000');
  conn.exec('DROP TRIGGER fail_clicks');
  conn.close();
}

function rawClicks(db: string, linkId: string): number {
  const conn = new Database(db, { readonly: true });
  try {
    return (queryRaw(conn, 'SELECT count(*) AS n FROM raw_clicks WHERE link_id = ?').get(linkId) as { n: number }).n;
  } finally {
    conn.close();
  }
}

/** The clicks in the spill file (not the lines carrying a day's salt). */
function spillLines(db: string): { linkId: string; bot: boolean }[] {
  return readFileSync(`${db}.spill`, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as { linkId?: string; bot: boolean })
    .filter((line): line is { linkId: string; bot: boolean } => line.linkId !== undefined);
}

async function inProcess(db: string, deadlineMs: number) {
  const lines: string[] = [];
  const config = loadConfig({
    SLINK_DB: db,
    SLINK_PORT: '0',
    SLINK_HOSTNAME: '127.0.0.1',
    SLINK_FLUSH_MS: '60000',
    SLINK_GEO_DB: '',
  });
  const server = await startServer(
    config,
    { info: (m) => lines.push(m), error: (m) => lines.push(`ERROR ${m}`) },
    { stopFlushDeadlineMs: deadlineMs, stopFlushRetryMs: 100 },
  );
  return { server, lines, base: `http://127.0.0.1:${server.port}` };
}

describe('a stop while clicks cannot be written', () => {
  test('at the deadline the buffered clicks go to the spill file; the next start replays them and deletes it', async () => {
    const db = freshDb();
    const key = await superuserWriteKey(db);
    const first = await inProcess(db, 1000);
    const linkId = await createLinkAt(first.base, key, 'spilled');
    await click(first.base, 'spilled', 40);
    failWrites(db);

    const started = performance.now();
    expect(await first.server.stop()).toEqual({ spilled: 40, lost: 0 });
    // Retried until the deadline, not given up at the first failure.
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    expect(first.lines).toContain(
      `ERROR final click flush failed: 40 clicks saved to ${db}.spill, written to the database at the next start`,
    );
    const saved = spillLines(db);
    expect(saved).toHaveLength(40);
    expect(saved.every((c) => c.linkId === linkId && c.bot === false)).toBe(true);
    expect(rawClicks(db, linkId)).toBe(0);

    healWrites(db);
    const second = await inProcess(db, 1000);
    try {
      expect(second.lines).toContain('replayed 40 clicks saved at the last stop');
      expect(existsSync(`${db}.spill`)).toBe(false);
      expect(await clickCount(second.base, key, linkId)).toBe(40);
      expect(rawClicks(db, linkId)).toBe(40);
    } finally {
      expect(await second.server.stop()).toEqual({ spilled: 0, lost: 0 });
    }
    expect(second.lines.filter((l) => l.startsWith('ERROR'))).toEqual([]);
  }, 60_000);

  test('a replay that fails keeps the file and the server still starts', async () => {
    const db = freshDb();
    const key = await superuserWriteKey(db);
    const first = await inProcess(db, 300);
    const linkId = await createLinkAt(first.base, key, 'kept');
    await click(first.base, 'kept', 10);
    failWrites(db);
    expect(await first.server.stop()).toEqual({ spilled: 10, lost: 0 });

    // Still failing at the next start: the replay fails, the file stays, the server serves.
    const second = await inProcess(db, 300);
    expect(second.lines.some((l) => l.startsWith('ERROR replaying the clicks saved at the last stop failed'))).toBe(
      true,
    );
    expect((await fetch(`${second.base}/kept`, { redirect: 'manual' })).status).toBe(302);
    // The redirect just made cannot be written either: it joins the file.
    expect(await second.server.stop()).toEqual({ spilled: 1, lost: 0 });
    expect(spillLines(db)).toHaveLength(11);

    healWrites(db);
    const third = await inProcess(db, 300);
    expect(third.lines).toContain('replayed 11 clicks saved at the last stop');
    expect(await clickCount(third.base, key, linkId)).toBe(10);
    await third.server.stop();
    expect(existsSync(`${db}.spill`)).toBe(false);
  }, 60_000);

  test('writes that recover before the deadline put every click in the database and no spill file', async () => {
    const db = freshDb();
    const key = await superuserWriteKey(db);
    const server = await inProcess(db, 10_000);
    const linkId = await createLinkAt(server.base, key, 'recovered');
    await click(server.base, 'recovered', 30);
    failWrites(db);
    const stopping = server.server.stop();
    // Healed once the stop's flush has failed (read from the log), not after a guessed pause.
    await poll(
      'a failed flush at the stop',
      async () => server.lines.some((l) => l.startsWith('ERROR click flush failed')),
      (failed) => failed,
    );
    healWrites(db);
    expect(await stopping).toEqual({ spilled: 0, lost: 0 });
    expect(existsSync(`${db}.spill`)).toBe(false);
    expect(rawClicks(db, linkId)).toBe(30);
    expect(server.lines).toContain('slink stopped (30 clicks written this run)');
  }, 60_000);
});

describe('the exit status of a spawned server', () => {
  function serve(db: string, port: number): RunningProcess {
    return start([BUN, 'run', 'test/fixtures/serve-short-stop.ts', '1000'], port, {
      env: cleanEnv({
        SLINK_DB: db,
        SLINK_PORT: String(port),
        SLINK_HOSTNAME: '127.0.0.1',
        SLINK_FLUSH_MS: '60000',
      }),
    });
  }

  test('SIGTERM with writes failing: the clicks spilled, exit 0', async () => {
    const db = freshDb();
    const key = await superuserWriteKey(db);
    spawned = serve(db, freePort());
    await waitHealthy(spawned);
    const linkId = await createLinkAt(spawned.base, key, 'spawned');
    await click(spawned.base, 'spawned', 25);
    failWrites(db);
    expect(await spawned.stop(20_000)).toBe(0);
    expect(await spawned.stderr).toContain(`25 clicks saved to ${db}.spill`);
    expect(spillLines(db)).toHaveLength(25);
    expect(rawClicks(db, linkId)).toBe(0);

    // The real entry point's next start replays them.
    healWrites(db);
    const port = freePort();
    spawned = start([BUN, 'run', 'src/index.ts', 'serve'], port, {
      env: cleanEnv({ SLINK_DB: db, SLINK_PORT: String(port), SLINK_HOSTNAME: '127.0.0.1' }),
    });
    await waitHealthy(spawned);
    await waitForLog(spawned, /replayed 25 clicks saved at the last stop/);
    expect(existsSync(`${db}.spill`)).toBe(false);
    expect(await clickCount(spawned.base, key, linkId)).toBe(25);
    expect(await spawned.stop()).toBe(0);
    expect(await spawned.stderr).toBe('');
    expect(rawClicks(db, linkId)).toBe(25);
  }, 60_000);

  test('SIGTERM with writes failing and the spill file impossible: exit 1, the loss logged', async () => {
    const db = freshDb();
    const key = await superuserWriteKey(db);
    spawned = serve(db, freePort());
    await waitHealthy(spawned);
    await createLinkAt(spawned.base, key, 'lost');
    await click(spawned.base, 'lost', 25);
    failWrites(db);
    // A directory where the spill file should be: nothing can be written there.
    mkdirSync(`${db}.spill`);
    expect(await spawned.stop(20_000)).toBe(1);
    const stderr = await spawned.stderr;
    // One line each (docs/operations.md, "Health and logs"): the error's name, code, message and
    // where it was thrown, in our code, not a stack trace.
    const at = (file: string) => `\\(at \\S+ \\(${ROOT}/src/modules/clicks/${file}:\\d+:\\d+\\)\\)`;
    const time = '\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\S+';
    expect(lines(stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${time} click flush failed; 25 clicks kept in memory and retried: SQLiteError SQLITE_CONSTRAINT_TRIGGER: disk full ${at('sqlite/[\\w-]+\\.ts')}$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^${time} final click flush failed and ${db}\\.spill could not be written: 25 clicks lost: Error: EISDIR: illegal operation on a directory, read ${at('capture/spill\\.ts')}$`,
        ),
      ),
      expect.stringMatching(new RegExp(`^${time} exiting with status 1: 25 clicks lost$`)),
    ]);
  }, 60_000);
});
