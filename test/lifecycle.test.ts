/**
 * The click pipeline across process boundaries (nothing lost), on SQLite and on PostgreSQL: a
 * spawned server given SIGTERM (directly and through `bun run start`) or SIGINT with clicks still
 * buffered writes every one of them, counted in counters and statistics (and the visits sent to a
 * fallback URL, counted with them), and a stop cuts a long
 * export off; after kill -9 the database (passing integrity_check, on SQLite) holds every click
 * older than the last flush interval, and the next start counts every one of them. The stop of
 * `bun src/index.ts serve` on PostgreSQL is in postgres-serve.test.ts, its faults (the server
 * gone, SIGTERM while it is, kill -9 under load) in postgres-faults.test.ts.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import type { DatabaseAddress, Engine } from '../src/db/address';
import { createLinkAt, freshDb, inspect, superuserWriteKey } from './helpers/cli';
import { databaseEnv, forEachEngine } from './helpers/engines';
import { poll } from './helpers/full-disk';
import { BUN, cleanEnv, freePort, type RunningProcess, run, start, waitHealthy } from './helpers/proc';
import { storedClickTotals, storedRows } from './helpers/stored';
import { insertStoredClicks } from './helpers/stored-clicks';

let server: RunningProcess | undefined;
afterEach(() => server?.kill());

const HUMAN = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

interface Served {
  engine: Engine;
  /** SLINK_DB (the database on SQLite; the spill file's folder on PostgreSQL), and SLINK_DATABASE_URL on PostgreSQL. */
  env: Record<string, string>;
  address: DatabaseAddress;
  /** A superuser's write key, made with the CLI. */
  key: string;
}

/** A fresh database of `engine` with a superuser and a write key. */
async function database(engine: Engine): Promise<Served> {
  const db = freshDb();
  const extra = await databaseEnv(engine);
  const key = await superuserWriteKey(db, extra);
  const address: DatabaseAddress =
    engine === 'sqlite' ? { engine, path: db } : { engine, url: extra.SLINK_DATABASE_URL! };
  return { engine, env: { SLINK_DB: db, ...extra }, address, key };
}

/** Starts `cmd` serving the database on `port` with flushes `flushMs` apart (the default outlasts any test). */
function serve(cmd: readonly string[], served: Served, port: number, flushMs = 60_000): RunningProcess {
  return start([...cmd], port, {
    env: cleanEnv({
      ...served.env,
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

/** A link that expired a day ago, with a fallback URL; returns its id. */
async function endedLinkAt(base: string, key: string): Promise<string> {
  const res = await fetch(`${base}/api/v1/links`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      destination: 'https://example.com/old',
      slug: 'ended',
      expiresAt: Date.now() - 86_400_000,
      fallbackUrl: 'https://example.com/sorry',
    }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** The visits a link's fallback answered, as stored. */
async function fallbackVisits(served: Served, linkId: string): Promise<number> {
  const [row] = await storedRows(
    served.address,
    'SELECT fallback_visits AS n FROM link_counters WHERE link_id = ?',
    linkId,
  );
  return Number(row?.n);
}

/** SQLite's own check of the file a server left (PostgreSQL keeps its files to itself). */
function integrity(served: Served): string | undefined {
  if (served.address.engine !== 'sqlite') return 'ok';
  return inspect(
    served.address.path,
    (db) => db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()?.integrity_check,
  );
}

forEachEngine((engine) => {
  describe('graceful stop writes every buffered click', () => {
    for (const [name, cmd] of [
      ['bun src/index.ts serve', [BUN, 'run', 'src/index.ts', 'serve']],
      ['bun run start', [BUN, 'run', 'start']],
    ] as const) {
      // On PostgreSQL, postgres-serve.test.ts stops `bun src/index.ts serve` the same way.
      if (engine === 'postgres' && name === 'bun src/index.ts serve') continue;
      test(`${name}: SIGTERM with a minute of clicks still buffered loses none`, async () => {
        const served = await database(engine);
        const port = freePort();
        // A flush interval far longer than the test: every click is still in memory at SIGTERM.
        server = serve(cmd, served, port);
        await waitHealthy(server);
        const linkId = await createLinkAt(server.base, served.key, 'graceful');
        const [humans, bots] = await click(server.base, 'graceful', 300);
        expect((await storedClickTotals(served.address, linkId)).raw).toBe(0);
        // And visits sent to an expired link's fallback: counted in memory too until the stop.
        const ended = await endedLinkAt(server.base, served.key);
        for (let i = 0; i < 4; i++) {
          const res = await fetch(`${server.base}/ended`, { redirect: 'manual', headers: { 'user-agent': HUMAN } });
          expect(res.headers.get('location')).toBe('https://example.com/sorry');
        }
        expect(await fallbackVisits(served, ended)).toBe(0);

        expect(await server.stop()).toBe(0);
        expect(await server.stdout).toContain('SIGTERM received');
        expect(await server.stdout).toContain('300 clicks written this run');
        expect(await server.stderr).toBe('');
        expect(integrity(served)).toBe('ok');
        expect(await fallbackVisits(served, ended)).toBe(4);
        // Folded before the stop: the statistics count them too.
        expect(await storedClickTotals(served.address, linkId)).toEqual({
          raw: 300,
          link: { clicks: humans, bots },
          hours: { link: 300, workspace: 300 },
        });
      }, 60_000);
    }

    test('SIGINT does the same', async () => {
      const served = await database(engine);
      const port = freePort();
      server = serve([BUN, 'run', 'src/index.ts', 'serve'], served, port);
      await waitHealthy(server);
      const linkId = await createLinkAt(server.base, served.key, 'interrupt');
      const [humans, bots] = await click(server.base, 'interrupt', 120);
      server.proc.kill('SIGINT');
      expect(await server.proc.exited).toBe(0);
      expect(integrity(served)).toBe('ok');
      expect(await storedClickTotals(served.address, linkId)).toEqual({
        raw: 120,
        link: { clicks: humans, bots },
        hours: { link: 120, workspace: 120 },
      });
    }, 60_000);
  });

  describe('a stop during a long export', () => {
    test('SIGTERM cuts the download off instead of waiting for it, and still writes every buffered click', async () => {
      const served = await database(engine);
      const port = freePort();
      server = serve([BUN, 'run', 'src/index.ts', 'serve'], served, port);
      await waitHealthy(server);
      const linkId = await createLinkAt(server.base, served.key, 'exported');
      // 300,000 stored clicks (written here as a fixture: far more CSV than socket buffers hold).
      const rowsStored = 300_000;
      await insertStoredClicks(served.address, linkId, rowsStored, Date.now());

      const res = await fetch(`${server.base}/api/v1/links/${linkId}/export.csv?range=all`, {
        headers: { authorization: `Bearer ${served.key}` },
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
      expect(integrity(served)).toBe('ok');
      // The fixture's rows are raw clicks no counter was told of: the counters hold the 30.
      expect(await storedClickTotals(served.address, linkId)).toEqual({
        raw: rowsStored + 30,
        link: { clicks: humans, bots },
        hours: { link: 30, workspace: 30 },
      });
    }, 60_000);
  });

  describe('kill -9', () => {
    test('leaves a sound database missing at most the last interval; the next start counts every click', async () => {
      const served = await database(engine);
      const port = freePort();
      const flushMs = 200;
      server = serve([BUN, 'run', 'src/index.ts', 'serve'], served, port, flushMs);
      await waitHealthy(server);
      const linkId = await createLinkAt(server.base, served.key, 'crash');
      await click(server.base, 'crash', 200);
      // Written by the flushes (within SLINK_FLUSH_MS plus a second on a quiet box: docs/behaviour.md,
      // "Redirects"), read until they are rather than after a fixed wait a loaded box can outlast.
      await poll(
        'the 200 clicks written',
        async () => (await storedClickTotals(served.address, linkId)).raw,
        (raw) => raw === 200,
      );
      // More clicks, then the process dies with whatever the last interval buffered.
      await click(server.base, 'crash', 100);
      server.proc.kill('SIGKILL');
      await server.proc.exited;
      expect(integrity(served)).toBe('ok');
      const after = await storedClickTotals(served.address, linkId);
      expect(after.raw).toBeGreaterThanOrEqual(200);
      expect(after.raw).toBeLessThanOrEqual(300);
      // Counters are folded after the raw clicks are written: at most they lag behind.
      expect(after.link.clicks + after.link.bots).toBeLessThanOrEqual(after.raw);

      // The next start folds what the killed writer had not: counters and statistics equal the raw clicks.
      server = serve([BUN, 'run', 'src/index.ts', 'serve'], served, freePort(), flushMs);
      await waitHealthy(server);
      expect(await server.stop()).toBe(0);
      expect(await server.stderr).toBe('');
      const restarted = await storedClickTotals(served.address, linkId);
      expect(restarted.raw).toBe(after.raw);
      expect(restarted.link.clicks + restarted.link.bots).toBe(after.raw);
      expect(restarted.hours).toEqual({ link: after.raw, workspace: after.raw });
    }, 60_000);
  });
});

// A setting checked before any database is opened: once.
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
