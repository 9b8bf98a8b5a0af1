/**
 * `slink backup <file>` (docs/operations.md, "Backups"): a consistent copy taken while the real
 * service runs and writes clicks under load; never overwrites a file.
 */
import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { clickSource } from '../src/modules/clicks/sqlite/raw-read';
import { refoldUnfolded } from '../src/modules/rollups/sqlite/fold';
import { api, makeKey, makeTestApp } from './helpers/app';
import { cli, fails, inspect, ok, slink, superuserWriteKey, tempDir } from './helpers/cli';
import { BUN, cleanEnv, freePort, type RunningProcess, start, waitHealthy } from './helpers/proc';
import { refreshRawClicks } from './helpers/raw-clicks';

const HUMAN = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

let dir: string;
let db: string;
let server: RunningProcess;
let key: string;
let port: number;
const slugs: string[] = [];

beforeAll(async () => {
  dir = tempDir();
  db = join(dir, 'slink.db');
  key = await superuserWriteKey(db);
  port = freePort();
  server = start([BUN, 'run', 'src/index.ts', 'serve'], port, {
    env: cleanEnv({ SLINK_DB: db, SLINK_PORT: String(port), SLINK_HOSTNAME: '127.0.0.1', SLINK_FLUSH_MS: '20' }),
  });
  await waitHealthy(server);
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${server.base}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ destination: `https://example.com/${i}` }),
    });
    expect(res.status).toBe(201);
    slugs.push(((await res.json()) as { slug: string }).slug);
  }
});

afterAll(async () => {
  server?.kill();
});

/** Clicks every link in turn until `stop()` resolves; returns how many redirects were answered. */
function clickUntil(stop: Promise<unknown>): Promise<number> {
  let done = false;
  void stop.finally(() => {
    done = true;
  });
  return (async () => {
    let n = 0;
    while (!done) {
      const batch = slugs.map((slug) =>
        fetch(`${server.base}/${slug}`, { redirect: 'manual', headers: { 'user-agent': HUMAN } }),
      );
      for (const res of await Promise.all(batch)) expect(res.status).toBe(302);
      n += batch.length;
    }
    return n;
  })();
}

describe('slink backup', () => {
  test('copies the live database while clicks are being written: the copy is whole and self-consistent', async () => {
    const target = join(dir, 'copy.db');
    // A process of its own, as an operator runs it: the copy is taken while the server writes.
    const backup = ok(slink(db, ['backup', target]));
    const clicked = await clickUntil(Bun.sleep(300).then(() => backup));
    const line = await backup;
    expect(clicked).toBeGreaterThan(0);
    expect(line).toBe(`${target} ${statSync(target).size} bytes\n`);
    inspect(target, (sqlite) => {
      expect(sqlite.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' });
      expect(sqlite.query('SELECT count(*) AS n FROM links').get()).toEqual({ n: 5 });
    });
    // One snapshot: once the clicks it holds but had not counted yet are counted (what a start
    // does after a stop), every link's counter equals the raw clicks the copy holds for it.
    const copy = new Database(target);
    try {
      refoldUnfolded(copy, clickSource(copy));
      refreshRawClicks(copy);
      const counts = copy
        .query(
          'SELECT l.clicks AS counted, (SELECT count(*) FROM temp.raw_clicks c WHERE c.link_id = l.link_id AND c.bot = 0) AS raw FROM link_counters l',
        )
        .all() as { counted: number; raw: number }[];
      for (const c of counts) expect(c.counted).toBe(c.raw);
      expect(counts.reduce((sum, c) => sum + c.raw, 0)).toBeGreaterThan(0);
    } finally {
      copy.close();
    }
    // The copy is a Slink database: the CLI opens it and finds the account.
    expect(await ok(cli(target, ['user', 'list', '--json']))).toContain('ops@example.com');
  });

  test('carries the short domains: a domain with its settings and its link answer from the copy', async () => {
    const call = async (method: string, path: string, body: unknown, status: number) => {
      const res = await fetch(`${server.base}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const answer = (await res.json()) as any;
      expect({ path, status: res.status }).toEqual({ path, status });
      return answer;
    };
    const settings = {
      rootUrl: 'https://example.com/home',
      notFoundUrl: 'https://example.com/missing',
      expiredUrl: 'https://example.com/expired',
      appleAppSiteAssociation: { applinks: { details: [{ appIDs: ['TEAM.com.example.app'], paths: ['*'] }] } },
      assetLinks: [{ relation: ['delegate_permission/common.handle_all_urls'], target: { namespace: 'android_app' } }],
    };
    const { rootUrl, notFoundUrl, expiredUrl, ...later } = settings;
    await call('POST', '/domains', { origin: 'https://go.example.com', rootUrl, notFoundUrl, expiredUrl }, 201);
    await call('PATCH', '/domains/go.example.com', later, 200);
    // A slug of the default domain again, on the other one: its own link.
    const link = await call(
      'POST',
      '/links',
      { destination: 'https://example.com/on-domain', slug: slugs[0], domain: 'go.example.com' },
      201,
    );
    const live = await call('GET', '/domains/go.example.com', undefined, 200);
    expect(live).toMatchObject({ host: 'go.example.com', linkCount: 1, ...settings });

    const target = join(dir, 'with-domains.db');
    await ok(slink(db, ['backup', target]));
    // The copy served by the app, with the same SLINK_SHORT_HOST as the live service.
    const origin = `http://localhost:${port}`;
    const copy = await makeTestApp({ SLINK_DB: target, SLINK_SHORT_HOST: origin, SLINK_APP_HOST: origin });
    try {
      const { key: copyKey } = await makeKey(copy, 'read', { superuser: true });
      const got = await api(copy, 'GET', '/domains/go.example.com', { key: copyKey });
      expect({ status: got.status, body: got.body }).toEqual({ status: 200, body: live });
      const moved = await api(copy, 'GET', `/links/${link.id}`, { key: copyKey });
      expect({ status: moved.status, domain: moved.body.domain, shortUrl: moved.body.shortUrl }).toEqual({
        status: 200,
        domain: 'go.example.com',
        shortUrl: `https://go.example.com/${slugs[0]}`,
      });
      const onDomain = async (path: string) => {
        const res = await copy.app.handle(new Request(`http://go.example.com${path}`, { method: 'HEAD' }));
        return { status: res.status, location: res.headers.get('location') };
      };
      expect(await onDomain(`/${slugs[0]}`)).toEqual({ status: 302, location: 'https://example.com/on-domain' });
      expect(await onDomain('/')).toEqual({ status: 302, location: rootUrl });
      expect(await onDomain(`/${slugs[1]}`)).toEqual({ status: 302, location: notFoundUrl });
    } finally {
      await copy.close();
    }
  });

  test('never overwrites a file, not even an empty one', async () => {
    const target = join(dir, 'taken.db');
    writeFileSync(target, '');
    expect(await fails(cli(db, ['backup', target]))).toBe(
      `slink: ${target} already exists: a backup never overwrites a file`,
    );
    expect(statSync(target).size).toBe(0);
  });

  test('a missing or extra argument is a usage error (exit 2)', async () => {
    for (const args of [['backup'], ['backup', join(dir, 'a.db'), join(dir, 'b.db')]]) {
      const r = await cli(db, args);
      expect(r.code).toBe(2);
      expect(r.stderr).toBe('slink: usage: slink backup <file>\n');
    }
    expect(existsSync(join(dir, 'a.db'))).toBe(false);
  });
});
