/**
 * The protocol's own conformance suite (@modelcontextprotocol/conformance, a devDependency) run
 * against /mcp, for the server scenarios that apply to a tools-only stateless server: the
 * handshake, ping, tools/list and DNS rebinding protection. The suite's client sends no
 * Authorization header, as a desktop client's configuration would: the server in front of the
 * app adds the key, and the app host is that server's localhost origin (the rebinding scenario
 * asks for a localhost URL and checks a localhost Origin is served, a foreign one refused).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'bun';
import { disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';

const CLI = join(import.meta.dir, '../../../node_modules/@modelcontextprotocol/conformance/dist/index.js');
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

let t: TestApp;
let key = '';
let server: Server<undefined>;
let out: string;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(request) {
      const headers = new Headers(request.headers);
      if (!headers.has('authorization')) headers.set('authorization', `Bearer ${key}`);
      return t.app.handle(new Request(request, { headers }));
    },
  });
  t = await makeTestApp({ SLINK_APP_HOST: `http://localhost:${server.port}`, SLINK_RATE_LIMIT: '100000' });
  key = (await makeKey(t, 'write')).key;
  out = mkdtempSync(join(tmpdir(), 'slink-mcp-conformance-'));
});

afterAll(async () => {
  await server.stop(true);
  await disposeTestApp(t);
  rmSync(out, { recursive: true, force: true });
});

for (const scenario of SCENARIOS) {
  test(`conformance: ${scenario}`, async () => {
    const dir = join(out, scenario);
    // Bun runs the suite's CLI (it needs a newer Node than the box may have); awaited, never
    // spawned synchronously: this process is the server it talks to.
    const run = Bun.spawn(
      [
        process.execPath,
        CLI,
        'server',
        '--url',
        `http://localhost:${server.port}/mcp`,
        '--scenario',
        scenario,
        '-o',
        dir,
      ],
      { stdout: 'pipe', stderr: 'pipe' },
    );
    const [code, stdout] = await Promise.all([run.exited, new Response(run.stdout).text()]);
    const [results] = readdirSync(dir);
    const checks = JSON.parse(readFileSync(join(dir, results!, 'checks.json'), 'utf8')) as {
      id: string;
      status: string;
      errorMessage?: string;
    }[];
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.filter((check) => check.status !== 'SUCCESS')).toEqual([]);
    expect({ code, stdout: code === 0 ? '' : stdout }).toEqual({ code: 0, stdout: '' });
  });
}
