/**
 * SQLite's one click writer and an import in another process: history an import queues
 * beside a running `slink serve` on the same file (as `slink import` does: its own connection,
 * no click writer) is taken by the server's writer while it keeps writing redirects' clicks, and
 * counted exactly; history queued while no server runs waits, durable, and the next start
 * takes it. One engine: PostgreSQL has no single writer (any node writes its history itself).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { join } from 'node:path';
import { openHistory, withStores } from '../../../src/compose/deps';
import { loadConfig } from '../../../src/config';
import { openDatabase } from '../../../src/db/client';
import { systemClock } from '../../../src/lib/clock';
import { importsQueued } from '../../../src/modules/clicks/public';
import type { HistoryWriter, SourceVisit } from '../../../src/modules/imports/public';
import { startShlinkFake } from '../../fakes/shlink';
import { createLinkAt, inspect, slink, superuserWriteKey, tempDir } from '../../helpers/cli';
import { freshPostgresUrl } from '../../helpers/postgres';
import { BUN, cleanEnv, freePort, ROOT, type RunningProcess, start, waitHealthy } from '../../helpers/proc';
import { waitUntil } from '../../helpers/wait';
import { UA } from '../clicks/support';

const START = Date.UTC(2026, 0, 1);

let dir: string;
let db: string;
let key: string;
let port: number;
let server: RunningProcess | null = null;

function serve(): Promise<Response> {
  server = start([BUN, `${ROOT}/src/index.ts`, 'serve'], port, {
    cwd: dir,
    env: cleanEnv({
      SLINK_DB: db,
      SLINK_PORT: String(port),
      SLINK_HOSTNAME: '127.0.0.1',
      SLINK_SHORT_HOST: `http://127.0.0.1:${port}`,
      SLINK_FLUSH_MS: '100',
      // The Shlink fake listens on this machine: a private address the sources refuse by default.
      SLINK_UPSTREAM_ALLOW_PRIVATE: '1',
    }),
  });
  return waitHealthy(server, 30_000);
}

async function stop(): Promise<void> {
  expect(await server!.stop()).toBe(0);
  server = null;
}

/** An import as `slink import` runs it: its own connection to the file, no click writer. */
async function importing<T>(fn: (history: HistoryWriter) => Promise<T>): Promise<T> {
  const database = openDatabase(db);
  try {
    const config = loadConfig({ SLINK_DB: db, SLINK_SHORT_HOST: `http://127.0.0.1:${port}` });
    const base = withStores({ db: database, config, clock: systemClock, log: { info() {}, error() {} } });
    const history = openHistory(base);
    const out = await fn(history);
    await history.flush?.();
    return out;
  } finally {
    database.$client.close();
  }
}

async function getJson(path: string): Promise<any> {
  const res = await fetch(`${server!.base}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  return res.json();
}

/** `n` visits a minute apart from START, every fifth one a bot by its agent. */
function visits(n: number, from = 0): SourceVisit[] {
  return Array.from({ length: n }, (_, k) => ({
    sourceId: null,
    at: START + (from + k) * 60_000,
    referrer: 'https://news.ycombinator.com/item?id=1',
    userAgent: (from + k) % 5 === 0 ? UA.googlebot : UA.chromeWin,
    country: 'DE',
    city: 'Berlin',
    bot: null,
    device: null,
    os: null,
    browser: null,
  }));
}

beforeAll(async () => {
  dir = tempDir();
  db = join(dir, 'slink.db');
  key = await superuserWriteKey(db);
  port = freePort();
  await serve();
});

afterAll(async () => {
  server?.kill();
});

test('history queued beside a running server is taken by its writer, between its own clicks', async () => {
  const id = await createLinkAt(server!.base, key, 'moved');
  const daily = await createLinkAt(server!.base, key, 'moved-daily');
  const redirect = async () => {
    const res = await fetch(`${server!.base}/moved`, {
      redirect: 'manual',
      headers: { 'user-agent': UA.safariIphone },
    });
    expect(res.status).toBe(302);
    await res.arrayBuffer();
  };
  await redirect();
  // 12,000 visits in batches, with the server's own clicks between them.
  const written = await importing(async (history) => {
    let n = 0;
    for (let b = 0; b < 12; b++) {
      n += await history.visits(id, 'shlink', visits(1000, b * 1000));
      await redirect();
    }
    n += await history.days(daily, 'bitly', [
      { day: '2026-01-01', clicks: 40 },
      { day: '2026-01-02', clicks: 2 },
    ]);
    return n;
  });
  expect(written).toBe(12_042);
  const humans = 12_000 - 12_000 / 5 + 13;
  await waitUntil(
    async () => (await getJson(`/links/${id}`)).clickCount === humans,
    `clickCount ${humans}`,
    60_000,
    50,
  );
  const link = await getJson(`/links/${id}`);
  expect({ clickCount: link.clickCount, botCount: link.botCount, uniqueCount: link.uniqueCount }).toEqual({
    clickCount: humans,
    botCount: 2400,
    // The redirect's own visitor is a unique; imported visits add none.
    uniqueCount: 1,
  });
  expect(link.imported).toMatchObject({ source: 'shlink', history: 'visits', clicks: 12_000 });
  const stats = await getJson(`/links/${id}/stats?from=2026-01-01&to=2026-01-31&bots=1`);
  expect(stats.totals).toMatchObject({ clicks: 12_000, uniques: 0, bots: 2400 });
  const page = await getJson(`/links/${id}/clicks?from=2026-01-01&to=2026-01-31&bots=1&limit=200`);
  expect(page.items.length).toBe(200);
  expect(page.items[0]).toMatchObject({
    timestamp: START + 11_999 * 60_000,
    country: 'DE',
    city: 'Berlin',
    referrer: 'news.ycombinator.com',
    bot: false,
  });
  await waitUntil(async () => (await getJson(`/links/${daily}`)).clickCount === 42, 'the daily counts', 60_000, 50);
  expect(inspect(db, importsQueued)).toBe(0);
});

test('an import the server runs (POST /imports) has its own writer count the history by the time it is done', async () => {
  const fake = startShlinkFake({ generated: { links: 30, visitsPerLink: 40 } });
  try {
    const started = await fetch(`${server!.base}/api/v1/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ source: 'shlink', url: fake.url, token: fake.apiKey }),
    });
    expect(started.status).toBe(202);
    const { id } = (await started.json()) as { id: string };
    let run: any;
    await waitUntil(
      async () => {
        run = await getJson(`/imports/${id}`);
        return run.status !== 'running';
      },
      'the import to end',
      60_000,
      50,
    );
    expect({ status: run.status, clicks: run.clicks }).toEqual({ status: 'done', clicks: { imported: 1200 } });
    // Counted when the run says done: no wait on the writer's timer.
    const links = (await getJson('/links?limit=100')).items as {
      slug: string;
      clickCount: number;
      imported: unknown;
    }[];
    // The links this run made (those of the test before were imported into by hand).
    const imported = links.filter((l) => l.imported !== null && !l.slug.startsWith('moved'));
    expect(imported.length).toBe(30);
    expect(imported.reduce((n, l) => n + l.clickCount, 0)).toBe(1200);
    expect(inspect(db, importsQueued)).toBe(0);
  } finally {
    fake.stop();
  }
});

test('history queued while no server runs waits, and the next start takes it', async () => {
  const id = await createLinkAt(server!.base, key, 'later');
  await stop();
  expect(await importing((history) => history.visits(id, 'shlink', visits(500)))).toBe(500);
  expect(inspect(db, importsQueued)).toBe(1);
  // PostgreSQL has no such queue: a copy now would leave the history behind, so it is refused.
  const copy = await slink(db, ['copy-to', await freshPostgresUrl()]);
  expect({ code: copy.code, stderr: copy.stderr }).toEqual({
    code: 1,
    stderr: `slink: imported history still waits for the click writer (1 rows in click_imports): start the server on ${db} once, so it counts them, then copy\n`,
  });
  await serve();
  await waitUntil(async () => (await getJson(`/links/${id}`)).clickCount === 400, 'clickCount 400', 60_000, 50);
  expect(inspect(db, importsQueued)).toBe(0);
  const stats = await getJson(`/links/${id}/stats?from=2026-01-01&to=2026-01-31`);
  expect(stats.totals).toMatchObject({ clicks: 400, uniques: 0, bots: 100 });
  await stop();
});
