/**
 * Upgrading a database written by the release with the first click table
 * (test/fixtures/old-release-db.ts), through the real entry point: `slink migrate`, or `serve`
 * by itself, then the API over HTTP must give exactly what that release gave
 * (test/fixtures/old-release-expected.json): counters, the clicks list with its cursors, the CSV
 * export, link and workspace statistics. And a `slink migrate` killed (SIGKILL) half-way through
 * a larger database finishes at the next run.
 */
import type { Database } from 'bun:sqlite';
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildOldReleaseDb, FIXTURE_KEY, releaseCounters } from './fixtures/old-release-db';
import expected from './fixtures/old-release-expected.json' with { type: 'json' };
import { askFixture } from './fixtures/old-release-queries';
import { inspect } from './helpers/cli';
import { BUN, cleanEnv, freePort, type RunningProcess, run, start, waitForLog, waitHealthy } from './helpers/proc';
import { queryRaw } from './helpers/raw-clicks';

/** The file may be one a killed process left: a writable connection recovers its WAL. */
const inspectAfterKill = <T>(db: string, fn: (sqlite: Database) => T): T => inspect(db, fn, false);

const dir = mkdtempSync(join(tmpdir(), 'slink-upgrade-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function env(db: string, extra: Record<string, string> = {}) {
  return cleanEnv({
    SLINK_DB: db,
    // The hosts the expected answers were made with (short URLs in link bodies).
    SLINK_SHORT_HOST: 'https://sl.test',
    SLINK_APP_HOST: 'https://app.sl.test',
    SLINK_RATE_LIMIT: '1000000',
    ...extra,
  });
}

function migrate(db: string) {
  return run([BUN, 'run', 'src/index.ts', 'migrate'], { env: env(db), timeoutMs: 120_000 });
}

function serve(db: string): RunningProcess {
  const port = freePort();
  return start([BUN, 'run', 'src/index.ts'], port, {
    env: env(db, { SLINK_PORT: String(port), SLINK_HOSTNAME: '127.0.0.1' }),
  });
}

/** The fixture's questions asked of a running server with the fixture's key. */
function ask(server: RunningProcess) {
  return askFixture(async (path) => {
    const res = await fetch(`${server.base}/api/v1${path}`, { headers: { authorization: `Bearer ${FIXTURE_KEY}` } });
    const text = await res.text();
    if (res.status >= 500) {
      // A 5xx is a bug: say what the server logged about it.
      server.kill();
      throw new Error(`${path}: ${res.status} ${text}\nserver log:\n${server.output()}\n${await server.stderr}`);
    }
    return { status: res.status, text };
  });
}

const PROGRESS = /upgrading click storage: [\d,]+ of [\d,]+ clicks/;

describe('upgrading a database of the release with the clicks table', () => {
  test('slink migrate converts it with progress lines; the server then answers as that release did', async () => {
    const db = join(dir, 'migrated.db');
    buildOldReleaseDb(db);
    const first = await migrate(db);
    expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
    const lines = first.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('upgrading click storage: 0 of 3,000 clicks');
    expect(lines).toContain('upgrading click storage: 3,000 of 3,000 clicks');
    expect(lines.at(-2)).toMatch(/^click storage upgraded: 3,000 clicks in /);
    expect(lines.at(-1)).toBe('database upgraded');
    expect(await migrate(db)).toEqual({ code: 0, stdout: 'database is up to date\n', stderr: '' });

    const server = serve(db);
    try {
      await waitHealthy(server);
      expect(await ask(server)).toEqual(expected);
      // Converted already: the start has nothing to convert.
      expect(server.output()).not.toMatch(PROGRESS);
    } finally {
      await server.stop();
    }
  }, 120_000);

  test('serve converts it before it listens, logging progress, and answers as that release did', async () => {
    const db = join(dir, 'served.db');
    buildOldReleaseDb(db);
    const server = serve(db);
    try {
      await waitHealthy(server);
      const log = server.output();
      expect(log).toMatch(/ upgrading click storage: 0 of 3,000 clicks\n/);
      expect(log).toMatch(/ upgrading click storage: 3,000 of 3,000 clicks\n/);
      // Converted before listening: the progress comes before the line that says it listens.
      expect(log.indexOf('click storage upgraded')).toBeLessThan(log.indexOf('slink listening'));
      expect(await ask(server)).toEqual(expected);
    } finally {
      await server.stop();
    }
  }, 120_000);

  test('slink migrate killed half-way through 300,000 clicks resumes at the next run and ends whole', async () => {
    const db = join(dir, 'killed.db');
    buildOldReleaseDb(db, { clicks: 300_000 });
    // As that release stored them, on the links rows.
    const before = inspectAfterKill(db, releaseCounters);
    const killed = start([BUN, 'run', 'src/index.ts', 'migrate'], 0, { env: env(db) });
    try {
      const [line] = await waitForLog(killed, /upgrading click storage: [1-9][\d,]* of 300,000 clicks\n/, 60_000);
      killed.proc.kill('SIGKILL');
      expect(await killed.proc.exited).not.toBe(0);
      expect(line).not.toBe('upgrading click storage: 300,000 of 300,000 clicks\n');
    } finally {
      killed.kill();
    }
    const left = inspectAfterKill(db, (s) => s.query<{ n: number }, []>('SELECT count(*) AS n FROM clicks').get()!.n);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(300_000);

    const resumed = await migrate(db);
    expect({ code: resumed.code, stderr: resumed.stderr }).toEqual({ code: 0, stderr: '' });
    expect(resumed.stdout).toStartWith(
      `upgrading click storage: ${(300_000 - left).toLocaleString('en-US')} of 300,000 clicks (resumed)\n`,
    );
    expect(resumed.stdout).toContain(`click storage upgraded: ${left.toLocaleString('en-US')} clicks in `);
    inspectAfterKill(db, (s) => {
      // Converted and then sealed into segments (the tail keeps what is left over).
      const stored = `SELECT count(*) AS n, min(id) AS lo, max(id) AS hi FROM click_tail
        UNION ALL SELECT sum(count), min(first_id), max(last_id) FROM click_segments`;
      expect(s.query(`SELECT sum(n) AS n, min(lo) AS lo, max(hi) AS hi FROM (${stored})`).get()).toEqual({
        n: 300_000,
        lo: 1,
        hi: 300_000,
      });
      // Every click counted once: the workspace's day buckets hold them all, humans and bots.
      expect(
        queryRaw(s, "SELECT sum(clicks) AS n FROM named_buckets WHERE scope = '' AND grain = 'day'").get(),
      ).toEqual({
        n: 300_000,
      });
      expect(s.query("SELECT value FROM click_state WHERE name = 'folded_through'").get()).toEqual({ value: 300_000 });
    });
    expect(counters(db)).toEqual(before);
  }, 240_000);
});

/** The counters of the migrated database: the link's are in link_counters (since 0008). */
function counters(db: string) {
  return inspectAfterKill(db, (s) => ({
    links: s
      .query('SELECT link_id AS id, clicks, uniques, bots, last_clicked_at FROM link_counters ORDER BY link_id')
      .all(),
    variants: s.query('SELECT id, click_count FROM variants ORDER BY id').all(),
  }));
}
