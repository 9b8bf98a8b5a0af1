/**
 * First-run setup across several nodes on one PostgreSQL database: each node logs its own token,
 * and whichever node the setup address's request reaches accepts it; the database keeps only the
 * tokens' SHA-256, deleted when their node stops and, all of them, once an account exists.
 */
import { afterEach, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';
import { openPostgres } from '../../src/db/postgres/client';
import { sha256Hex } from '../../src/lib/hash';
import { SignedInModel } from '../../src/modules/sessions/model';
import { setupAddress } from '../../src/modules/sessions/setup';
import { startServer } from '../../src/server';
import type { TestApp } from '../helpers/app';
import { ok, slink, tempDir } from '../helpers/cli';
import { dash, PASSWORD, setCookieOf } from '../helpers/dashboard';
import { type Nodes, startNodes } from '../helpers/nodes';
import { freshPostgresUrl } from '../helpers/postgres';
import { expectError, expectSchema } from '../helpers/schema';

let cluster: Nodes | null = null;
afterEach(async () => {
  const c = cluster;
  cluster = null;
  if (c) await c.close();
});

async function storedHashes(url: string): Promise<string[]> {
  const sql = openPostgres(url, 1);
  try {
    return (await sql`SELECT token_hash FROM setup_tokens ORDER BY token_hash`).map(
      (r: { token_hash: string }) => r.token_hash,
    );
  } finally {
    await sql.close();
  }
}

const tokenOf = (address: string) => new URL(address).searchParams.get('token')!;

describe('first-run setup across nodes (PostgreSQL)', () => {
  test('completed on node B with the token node A logged; then setup_done on both; a wrong token is refused', async () => {
    cluster = await startNodes(2);
    const [a, b] = cluster.nodes as [TestApp, TestApp];
    // What each node logs at start.
    const token = tokenOf((await setupAddress(a.deps))!);
    expect(tokenOf((await setupAddress(b.deps))!)).not.toBe(token);
    // Only the hashes are stored.
    expect(await storedHashes(cluster.url)).toEqual(
      [sha256Hex(a.deps.setupToken), sha256Hex(b.deps.setupToken)].sort(),
    );

    for (const wrong of ['', 'wrong', `${token}x`, token.slice(0, -1), sha256Hex(token)]) {
      expectError(
        await dash(b, 'POST', '/setup', { body: { token: wrong, email: 'first@example.com', password: PASSWORD } }),
        403,
        'setup_token_invalid',
        null,
      );
    }
    expect((await dash(a, 'GET', '/setup')).body).toEqual({ needed: true });

    const made = await dash(b, 'POST', '/setup', { body: { token, email: 'first@example.com', password: PASSWORD } });
    expect(made.status).toBe(201);
    expectSchema(SignedInModel, made.body);
    expect(made.body.account).toEqual({
      id: expect.any(String),
      email: 'first@example.com',
      superuser: true,
      role: 'admin',
      projects: null,
    });
    // The session works on the other node too.
    const session = await dash(a, 'GET', '/session', { cookie: setCookieOf(made)!.header });
    expect(session.body).toEqual(made.body);

    for (const t of [a, b]) {
      expect(await dash(t, 'GET', '/setup')).toMatchObject({ status: 200, body: { needed: false } });
      for (const again of [token, t.deps.setupToken, 'wrong']) {
        expectError(
          await dash(t, 'POST', '/setup', { body: { token: again, email: 'second@example.com', password: PASSWORD } }),
          409,
          'setup_done',
          null,
        );
      }
    }
    expect(await storedHashes(cluster.url)).toEqual([]);
  });
});

describe('the setup addresses real servers log (PostgreSQL)', () => {
  test('any running node accepts any node’s logged token; a stopped node’s token stops working; `slink user add` ends them all', async () => {
    const url = await freshPostgresUrl();
    const dir = tempDir();
    const start = async (name: string) => {
      const lines: string[] = [];
      const config = loadConfig({
        SLINK_DATABASE_URL: url,
        SLINK_DB: join(dir, `${name}.db`),
        SLINK_PORT: '0',
        SLINK_HOSTNAME: '127.0.0.1',
        SLINK_APP_HOST: 'https://dash.example',
        SLINK_GEO_DB: '',
        SLINK_NODE_ID: name,
      });
      const server = await startServer(config, { info: (m) => lines.push(m), error: (m) => lines.push(`ERROR ${m}`) });
      const logged = lines.find((l) => l.includes('/app/setup?token='));
      expect(logged).toMatch(
        /^no account exists yet: create the first superuser at https:\/\/dash\.example\/app\/setup\?token=[A-Za-z0-9_-]{43}$/,
      );
      return { server, lines, token: tokenOf(logged!.split(' at ')[1]!) };
    };
    const setup = (port: number, token: string, email: string) =>
      fetch(`http://127.0.0.1:${port}/api/app/setup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token, email, password: PASSWORD }),
      });

    const a = await start('a');
    const b = await start('b');
    const c = await start('c');
    try {
      await a.server.stop();
      expect(a.lines.filter((l) => l.startsWith('ERROR'))).toEqual([]);
      // A's token went with it, on every node; B's works on C.
      const refused = await setup(c.server.port, a.token, 'first@example.com');
      expect({ status: refused.status, body: await refused.json() }).toMatchObject({
        status: 403,
        body: { error: { code: 'setup_token_invalid' } },
      });
      expect(await storedHashes(url)).toEqual([sha256Hex(b.token), sha256Hex(c.token)].sort());
      const made = await setup(c.server.port, b.token, 'first@example.com');
      expect(made.status).toBe(201);
      expect(((await made.json()) as { account: { email: string } }).account.email).toBe('first@example.com');
      expect(await storedHashes(url)).toEqual([]);
    } finally {
      await b.server.stop();
      await c.server.stop();
    }

    // An account made by `slink user add` ends setup too: the tokens of the nodes running then go.
    const url2 = await freshPostgresUrl();
    const sql = openPostgres(url2, 1);
    try {
      await sql`INSERT INTO setup_tokens (token_hash, created_at) VALUES (${sha256Hex('another node')}, 0)`;
      await ok(
        slink(join(dir, 'cli.db'), ['user', 'add', 'ops@example.com', '--password', PASSWORD], {
          env: { SLINK_DATABASE_URL: url2 },
        }),
      );
      expect((await sql`SELECT count(*)::int AS n FROM setup_tokens`)[0]).toEqual({ n: 0 });
    } finally {
      await sql.close();
    }
  }, 60_000);
});
