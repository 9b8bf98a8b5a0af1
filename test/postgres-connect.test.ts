/**
 * Connecting to PostgreSQL at start, as an operator meets it (docs/operations.md, "Running on
 * PostgreSQL"): a password that needs percent-encoding, refusals (a wrong password, an unknown
 * database or role) stopping the start and the CLI at once with the server's own message and
 * without the password, and every connection named `slink <SLINK_NODE_ID>` in pg_stat_activity.
 * An unreachable server, retried for 30 s, is in postgres-serve.test.ts.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { openPostgres } from '../src/db/postgres/client';
import { fails, ok, slink, tempDir } from './helpers/cli';
import { freshPostgresUrl, passwordRole } from './helpers/postgres';
import { BUN, cleanEnv, freePort, type RunningProcess, start, waitHealthy } from './helpers/proc';

const PASSWORD = 'correct horse battery';
/** A role's password holding every character a URL's user part cannot hold as it is. */
const ROLE_PASSWORD = 'pa/ss#wo?rd@1';

const servers: RunningProcess[] = [];
afterAll(() => {
  for (const s of servers) s.kill();
});

function serve(url: string, nodeId = 'node-a'): RunningProcess {
  const port = freePort();
  const env = cleanEnv({
    SLINK_DATABASE_URL: url,
    SLINK_DB: join(tempDir(), 'slink.db'),
    SLINK_PORT: String(port),
    SLINK_HOSTNAME: '127.0.0.1',
    SLINK_NODE_ID: nodeId,
  });
  const server = start([BUN, 'run', 'src/index.ts', 'serve'], port, { env });
  servers.push(server);
  return server;
}

/** `url` with another user, password or database. */
function withParts(url: string, parts: { user?: string; password?: string; database?: string }): string {
  const u = new URL(url);
  if (parts.user !== undefined) u.username = parts.user;
  if (parts.password !== undefined) u.password = encodeURIComponent(parts.password);
  if (parts.database !== undefined) u.pathname = `/${parts.database}`;
  return u.toString();
}

describe('connecting to PostgreSQL', () => {
  test('a password holding / # ? @ works percent-encoded; as it is, the line says how to encode it', async () => {
    await passwordRole('slink_pw', ROLE_PASSWORD);
    const url = withParts(await freshPostgresUrl(), { user: 'slink_pw', password: ROLE_PASSWORD });
    expect(url).toContain('pa%2Fss%23wo%3Frd%401');
    const db = join(tempDir(), 'slink.db');
    const added = await ok(
      slink(db, ['user', 'add', 'pw@example.com', '--password', PASSWORD], { env: { SLINK_DATABASE_URL: url } }),
    );
    expect(added).toMatch(/^acc_/);

    const raw = url.replace('pa%2Fss%23wo%3Frd%401', ROLE_PASSWORD);
    const line = await fails(slink(db, ['user', 'list'], { env: { SLINK_DATABASE_URL: raw } }));
    expect(line).toStartWith('slink: SLINK_DATABASE_URL');
    expect(line).toContain('encode / as %2F and # as %23');
    expect(line).not.toContain('wo?rd');
  }, 60_000);

  test('a wrong password stops serve at once: one line naming SLINK_DATABASE_URL, the server message, no password', async () => {
    await passwordRole('slink_wrong', 'the-right-one');
    const url = withParts(await freshPostgresUrl(), { user: 'slink_wrong', password: 'pw-s3cret' });
    const server = serve(url);
    expect(await server.proc.exited).toBe(1);
    const [out, err] = [await server.stdout, await server.stderr];
    // Not retried: the server's answer will not change.
    expect(out).not.toContain('not reachable yet');
    expect(err.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        /^slink: SLINK_DATABASE_URL: PostgreSQL at postgres:\/\/slink_wrong:\*\*\*@127\.0\.0\.1:\d+\/\w+ refused the connection; the server says: password authentication failed for user "slink_wrong"$/,
      ),
    ]);
    expect(out + err).not.toContain('pw-s3cret');
  }, 60_000);

  test('an unknown database or role stops an operator command at once with the server message', async () => {
    const url = await freshPostgresUrl();
    const db = join(tempDir(), 'slink.db');
    for (const [parts, said] of [
      [{ database: 'no_such_db' }, 'database "no_such_db" does not exist'],
      [{ user: 'no_such_role' }, 'role "no_such_role" does not exist'],
    ] as const) {
      const line = await fails(slink(db, ['user', 'list'], { env: { SLINK_DATABASE_URL: withParts(url, parts) } }));
      expect(line).toStartWith('slink: SLINK_DATABASE_URL: PostgreSQL at postgres://');
      expect(line).toEndWith(`refused the connection; the server says: ${said}`);
    }
  }, 60_000);

  test('every connection of a node is named "slink <SLINK_NODE_ID>" in pg_stat_activity', async () => {
    const url = await freshPostgresUrl();
    const server = serve(url, 'node-named');
    await waitHealthy(server);
    const database = new URL(url).pathname.slice(1);
    const admin = openPostgres(url, 1);
    try {
      const rows = (await admin`
        SELECT application_name AS name, count(*)::int AS n FROM pg_stat_activity
        WHERE datname = ${database} AND pid <> pg_backend_pid() AND backend_type = 'client backend'
        GROUP BY 1`) as { name: string; n: number }[]; // not the server's own (an autovacuum worker)
      expect(rows.map((r) => r.name)).toEqual(['slink node-named']);
      expect(rows[0]!.n).toBeGreaterThanOrEqual(1);
    } finally {
      await admin.close();
    }
    expect(await server.stop()).toBe(0);
  }, 60_000);
});
