/**
 * The click pipeline across process boundaries (nothing lost): a spawned server given
 * SIGTERM (directly and through `bun run start`) with clicks still buffered writes every one
 * of them, counted in counters and statistics; after kill -9 the database passes integrity_check
 * and holds every click older than the last flush interval, and the next start counts every one
 * of them.
 */
import { Database } from 'bun:sqlite';
import { afterEach, describe, expect, test } from 'bun:test';
import { createLinkAt, freshDb, inspect, superuserWriteKey } from './helpers/cli';
import { BUN, cleanEnv, freePort, type RunningProcess, run, start, waitHealthy } from './helpers/proc';
import { insertTailClicks, queryRaw } from './helpers/raw-clicks';

let server: RunningProcess | undefined;
afterEach(() => server?.kill());

const HUMAN = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

/** Starts `cmd` serving `db` on `port` with flushes `flushMs` apart (the default outlasts any test). */
function serve(cmd: readonly string[], db: string, port: number, flushMs = 60_000): RunningProcess {
  return start([...cmd], port, {
    env: cleanEnv({
      SLINK_DB: db,
      SLINK_PORT: String(port),
      SLINK_HOSTNAME: '127.0.0.1',
      SLINK_FLUSH_MS: String(flushMs),
    }),
  });
}

/** n redirects in parallel batches; every third one is a bot (curl). Returns [humans, bots]. */
async function click(base: string, slug: string, n: number): Promise<[number, number]> {
  let humans = 0;
  let bots = 0;
  for (let i = 0; i < n; i += 50) {
    const batch = Array.from({ length: Math.min(50, n - i) }, (_, j) => {
      const bot = (i + j) % 3 === 0;
      if (bot) bots++;
      else humans++;
      return fetch(`${base}/${slug}`, { redirect: 'manual', headers: { 'user-agent': bot ? 'curl/8.4.0' : HUMAN } });
    });
    for (const res of await Promise.all(batch)) {
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('https://example.com/landing');
    }
  }
  return [humans, bots];
}

function stored(path: string, linkId: string) {
  return inspect(path, (db) => ({
    integrity: db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()?.integrity_check,
    raw: (queryRaw(db, 'SELECT count(*) AS n FROM raw_clicks WHERE link_id = ?').get(linkId) as { n: number }).n,
    link: db
      .query<{ clicks: number; bots: number }, [string]>('SELECT clicks, bots FROM link_counters WHERE link_id = ?')
      .get(linkId)!,
  }));
}

/** Clicks counted in the hour buckets of the link and of the workspace (a link's are always whole; its days are rolled up later). */
function bucketTotals(path: string, linkId: string) {
  return inspect(path, (db) => {
    const sum = (scope: string) =>
      (
        queryRaw(db, "SELECT coalesce(sum(clicks), 0) AS n FROM named_buckets WHERE scope = ? AND grain = 'hour'").get(
          scope,
        ) as { n: number }
      ).n;
    return { link: sum(linkId), workspace: sum('') };
  });
}

describe('graceful stop writes every buffered click', () => {
  for (const [name, cmd] of [
    ['bun src/index.ts serve', [BUN, 'run', 'src/index.ts', 'serve']],
    ['bun run start', [BUN, 'run', 'start']],
  ] as const) {
    test(`${name}: SIGTERM with a minute of clicks still buffered loses none`, async () => {
      const db = freshDb();
      const key = await superuserWriteKey(db);
      const port = freePort();
      // A flush interval far longer than the test: every click is still in memory at SIGTERM.
      server = serve(cmd, db, port);
      await waitHealthy(server);
      const linkId = await createLinkAt(server.base, key, 'graceful');
      const [humans, bots] = await click(server.base, 'graceful', 300);
      expect(stored(db, linkId).raw).toBe(0);

      expect(await server.stop()).toBe(0);
      expect(await server.stdout).toContain('SIGTERM received');
      expect(await server.stdout).toContain('300 clicks written this run');
      expect(await server.stderr).toBe('');
      expect(stored(db, linkId)).toEqual({ integrity: 'ok', raw: 300, link: { clicks: humans, bots } });
      // Folded before the stop: the statistics count them too.
      expect(bucketTotals(db, linkId)).toEqual({ link: 300, workspace: 300 });
    }, 60_000);
  }

  test('SIGINT does the same', async () => {
    const db = freshDb();
    const key = await superuserWriteKey(db);
    const port = freePort();
    server = serve([BUN, 'run', 'src/index.ts', 'serve'], db, port);
    await waitHealthy(server);
    const linkId = await createLinkAt(server.base, key, 'interrupt');
    const [humans, bots] = await click(server.base, 'interrupt', 120);
    server.proc.kill('SIGINT');
    expect(await server.proc.exited).toBe(0);
    expect(stored(db, linkId)).toEqual({ integrity: 'ok', raw: 120, link: { clicks: humans, bots } });
  }, 60_000);
});

describe('a stop during a long export', () => {
  test('SIGTERM cuts the download off instead of waiting for it, and still writes every buffered click', async () => {
    const db = freshDb();
    const key = await superuserWriteKey(db);
    const port = freePort();
    server = serve([BUN, 'run', 'src/index.ts', 'serve'], db, port);
    await waitHealthy(server);
    const linkId = await createLinkAt(server.base, key, 'exported');
    // 300,000 stored clicks (written here as a fixture: far more CSV than socket buffers hold).
    const rowsStored = 300_000;
    const fixture = new Database(db);
    fixture.exec('PRAGMA busy_timeout = 5000');
    insertTailClicks(fixture, linkId, rowsStored, Date.now());
    fixture.close();

    const res = await fetch(`${server.base}/api/v1/links/${linkId}/export.csv?range=all`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toStartWith('id,linkId,slug,');
    // The client stops reading; clicks come in and stay buffered (a minute's flush interval).
    const [humans, bots] = await click(server.base, 'exported', 30);

    const started = performance.now();
    expect(await server.stop()).toBe(0);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(await server.stdout).toContain('30 clicks written this run');
    // What the client still gets is cut off: the download never completes.
    let received = first.value!.byteLength;
    let completed = true;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += value.byteLength;
      }
    } catch {
      completed = false;
    }
    expect(completed && received > rowsStored * 60).toBe(false);
    expect(stored(db, linkId)).toEqual({
      integrity: 'ok',
      raw: rowsStored + 30,
      link: { clicks: humans, bots },
    });
  }, 60_000);
});

describe('start-up checks', () => {
  test('a SLINK_GEO_DB that does not exist stops the start with one line naming it', async () => {
    const r = await run([BUN, 'run', 'src/index.ts', 'serve'], {
      env: cleanEnv({
        SLINK_DB: freshDb(),
        SLINK_PORT: String(freePort()),
        SLINK_HOSTNAME: '127.0.0.1',
        SLINK_GEO_DB: '/nonexistent/city.mmdb',
      }),
    });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('slink: SLINK_GEO_DB: no file at /nonexistent/city.mmdb\n');
  });
});

describe('kill -9', () => {
  test('leaves a database that passes integrity_check, missing at most the last interval', async () => {
    const db = freshDb();
    const key = await superuserWriteKey(db);
    const port = freePort();
    const flushMs = 200;
    server = serve([BUN, 'run', 'src/index.ts', 'serve'], db, port, flushMs);
    await waitHealthy(server);
    const linkId = await createLinkAt(server.base, key, 'crash');
    await click(server.base, 'crash', 200);
    // Visible within SLINK_FLUSH_MS plus one second (docs/behaviour.md, "Redirects").
    await Bun.sleep(flushMs + 1000);
    expect(stored(db, linkId).raw).toBe(200);
    // More clicks, then the process dies with whatever the last interval buffered.
    await click(server.base, 'crash', 100);
    server.proc.kill('SIGKILL');
    await server.proc.exited;
    const after = stored(db, linkId);
    expect(after.integrity).toBe('ok');
    expect(after.raw).toBeGreaterThanOrEqual(200);
    expect(after.raw).toBeLessThanOrEqual(300);
    // Counters are folded after the raw clicks are written: at most they lag behind.
    expect(after.link.clicks + after.link.bots).toBeLessThanOrEqual(after.raw);

    // The next start folds what the killed writer had not: counters and statistics equal the raw clicks.
    server = serve([BUN, 'run', 'src/index.ts', 'serve'], db, freePort(), flushMs);
    await waitHealthy(server);
    expect(await server.stop()).toBe(0);
    expect(await server.stderr).toBe('');
    const restarted = stored(db, linkId);
    expect(restarted.raw).toBe(after.raw);
    expect(restarted.link.clicks + restarted.link.bots).toBe(after.raw);
    expect(bucketTotals(db, linkId)).toEqual({ link: after.raw, workspace: after.raw });
  }, 60_000);
});
