/**
 * dist/slink as an operator deploys it: built by `bun run build`, copied ALONE into an empty
 * folder and run there with almost no environment (no Bun on PATH, no node_modules, no source
 * tree). CONTRACT "Install, run, test": migrations and docs assets travel inside it.
 */
import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUN, cleanEnv, freePort, lines, ROOT, run, start, waitHealthy, type RunningProcess, type RunResult } from './helpers/proc';

const PASSWORD = 'correct horse battery';
let dir: string;
let server: RunningProcess | undefined;

/** Only PATH (without Bun's folder) and the given SLINK_* variables. */
const minimalEnv = (extra: Record<string, string> = {}) => ({ PATH: '/usr/bin:/bin', ...extra });

function slink(args: string[], opts: { stdin?: string; env?: Record<string, string> } = {}): Promise<RunResult> {
  return run(['./slink', ...args], { cwd: dir, env: minimalEnv(opts.env), stdin: opts.stdin });
}

beforeAll(async () => {
  const build = await run([BUN, 'run', 'build'], { cwd: ROOT, env: cleanEnv(), timeoutMs: 170_000 });
  if (build.code !== 0) throw new Error(`bun run build failed (${build.code}):\n${build.stdout}\n${build.stderr}`);
  expect(build.stdout).toContain('dist/slink');
  dir = mkdtempSync(join(tmpdir(), 'slink-bin-'));
  copyFileSync(join(ROOT, 'dist', 'slink'), join(dir, 'slink'));
  chmodSync(join(dir, 'slink'), 0o755);
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

  test('--help lists the subcommands and the configuration, like the source does', async () => {
    const r = await slink(['--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    for (const word of ['user add', 'key create', 'key revoke', 'key list', 'serve', 'SLINK_PORT', 'SLINK_DB', 'SLINK_WORKSPACE_NAME', 'SLINK_GEO_DB']) {
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

  let key = '';
  let keyId = '';

  test('user add creates ./data/slink.db (the default SLINK_DB) and prints the account id', async () => {
    const r = await slink(['user', 'add', 'ops@example.com', '--superuser', '--password', PASSWORD]);
    expect(r).toEqual({ code: 0, stdout: expect.stringMatching(/^acc_[A-Za-z0-9]+\n$/), stderr: '' });
    expect(existsSync(join(dir, 'data', 'slink.db'))).toBe(true);

    const fromStdin = await slink(['user', 'add', 'second@example.com'], { stdin: `${PASSWORD}\n` });
    expect(fromStdin).toEqual({ code: 0, stdout: expect.stringMatching(/^acc_[A-Za-z0-9]+\n$/), stderr: '' });

    const dup = await slink(['user', 'add', 'OPS@example.com', '--password', PASSWORD]);
    expect(dup.code).not.toBe(0);
    expect(dup.stdout).toBe('');
    expect(lines(dup.stderr)).toHaveLength(1);
  });

  test('key create --json prints {id, key, scope, expiresAt}', async () => {
    const r = await slink(['key', 'create', '--user', 'ops@example.com', '--scope', 'write', '--name', 'deploy', '--json']);
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
    server = start(['./slink', 'serve'], port, { cwd: dir, env: minimalEnv({ SLINK_PORT: String(port) }) });
    const health = await waitHealthy(server, 30_000);
    expect(health.headers.get('content-type')).toContain('application/json');
    expect(await health.json()).toEqual({ status: 'ok' });

    const auth = { authorization: `Bearer ${key}` };
    const me = await fetch(`${server.base}/api/v1/me`, { headers: auth });
    expect(me.status).toBe(200);
    const meBody = (await me.json()) as { scope: string; key: { id: string }; account: { email: string; superuser: boolean } };
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

    const code = await server.stop();
    expect(code).toBe(0);
    expect(server.proc.signalCode).toBeNull();
    expect(await server.stdout).toContain('SIGTERM received');
    expect(await server.stderr).toBe('');

    const db = new Database(join(dir, 'data', 'slink.db'), { readonly: true });
    try {
      expect(db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()?.integrity_check).toBe('ok');
      expect(db.query<{ slug: string }, [string]>('SELECT slug FROM links WHERE id = ?').get(link.id)?.slug).toBe('bin-test');
    } finally {
      db.close();
    }
    // Still nothing but the executable and its data folder.
    expect(readdirSync(dir).sort()).toEqual(['data', 'slink']);
  });
});
