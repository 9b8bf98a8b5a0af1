/**
 * The WAL bound of docs/operations.md ("The write-ahead log") on a spawned server and its real
 * file, with API writes alone (no click arrives, so the click writer never commits): creates and
 * updates through HTTP write well past the documented size, and the -wal file never holds more
 * than WAL_BOUND_BYTES; once nothing is written for the idle period it is empty. Sizes are
 * asserted, not times: the waits below only give the server the time it takes.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, statSync } from 'node:fs';
import { CHECKPOINT_BYTES, IDLE_CHECKPOINT_MS, WAL_BOUND_BYTES } from '../../src/db/checkpoint';
import { freshDb, superuserWriteKey } from '../helpers/cli';
import { BUN, cleanEnv, freePort, type RunningProcess, start, waitHealthy } from '../helpers/proc';

const MB = 1024 * 1024;
/**
 * Creates and as many updates: each commit writes ~45 KB of WAL (a 20 KB params object, its
 * link row and indexes), so ~190 MB in all, past the bound with room to spare.
 */
const LINKS = 2_100;
const CONCURRENCY = 16;

describe('the -wal file of a server that only answers API writes', () => {
  let server: RunningProcess;
  let key: string;
  let db: string;
  const wal = () => (existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0);

  beforeAll(async () => {
    db = freshDb();
    key = await superuserWriteKey(db);
    const port = freePort();
    server = start([BUN, 'run', 'src/index.ts', 'serve'], port, {
      env: cleanEnv({
        SLINK_DB: db,
        SLINK_PORT: String(port),
        SLINK_HOSTNAME: '127.0.0.1',
        SLINK_RATE_LIMIT: '1000000',
      }),
    });
    await waitHealthy(server);
  }, 30_000);
  afterAll(() => server.kill());

  test(`${LINKS} creates and ${LINKS} updates: never more than ${WAL_BOUND_BYTES / MB} MB, then empty once idle`, async () => {
    expect(WAL_BOUND_BYTES).toBe(CHECKPOINT_BYTES + 32 * MB);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const params = (v: string) => Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, v.repeat(1000)]));
    let largest = 0;
    // Between responses too: the file is looked at every 20 ms while the writes run.
    const sampler = setInterval(() => {
      largest = Math.max(largest, wal());
    }, 20);
    let next = 0;
    try {
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < LINKS) {
            const i = next++;
            const made = await fetch(`${server.base}/api/v1/links`, {
              method: 'POST',
              headers,
              body: JSON.stringify({
                destination: `https://example.com/p/${i}`,
                title: `link ${i}`,
                params: params('a'),
              }),
            });
            expect(made.status).toBe(201);
            const { id } = (await made.json()) as { id: string };
            largest = Math.max(largest, wal());
            const changed = await fetch(`${server.base}/api/v1/links/${id}`, {
              method: 'PATCH',
              headers,
              body: JSON.stringify({ title: `changed ${i}`, params: params('b') }),
            });
            expect([changed.status, ((await changed.json()) as { title: string }).title]).toEqual([
              200,
              `changed ${i}`,
            ]);
            largest = Math.max(largest, wal());
          }
        }),
      );
    } finally {
      clearInterval(sampler);
    }
    // Never past the bound (and the writes did take it to where a checkpoint is due).
    expect(largest).toBeLessThanOrEqual(WAL_BOUND_BYTES);
    expect(largest).toBeGreaterThan(CHECKPOINT_BYTES / 2);
    expect(wal()).toBeLessThanOrEqual(WAL_BOUND_BYTES);
    // Idle: nothing is written any more, so the WAL is truncated to nothing after IDLE_CHECKPOINT_MS.
    for (let i = 0; i < 300 && wal() > 0; i++) await Bun.sleep(100);
    expect(wal()).toBe(0);
    // Every link is there, with its last change.
    const listed = await fetch(`${server.base}/api/v1/links?limit=1&sort=updated`, { headers });
    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { items: { title: string }[] }).items[0]!.title).toMatch(/^changed \d+$/);
    expect(IDLE_CHECKPOINT_MS).toBe(10_000);
    // The stop logs what the checkpoints did: at least one was due at the checkpoint size.
    expect(await server.stop()).toBe(0);
    const [, due] = (await server.stdout).match(/WAL checkpoints this run: (\d+) at 128 MB/) ?? [];
    expect(Number(due)).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
