/**
 * `slink user list` and `slink user password` as an operator meets them, on both engines: the
 * commands run in this process (runCli, test/helpers/cli.ts; the spawned entry point is
 * test/cli.test.ts's); the password change is checked against a running server (sign-in with
 * the old and the new password, and a session cookie from before the change).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { fails, ok, PASSWORD } from './helpers/cli';
import { type CliDatabase, cliDatabase } from './helpers/cli-engine';
import { forEachEngine } from './helpers/engines';
import { cleanEnv, freePort, lines, type RunningProcess, start, waitHealthy } from './helpers/proc';

const NEW_PASSWORD = 'a brand new passphrase';

forEachEngine((engine) => {
  describe('slink user list', () => {
    let cli: CliDatabase;
    beforeAll(async () => {
      cli = await cliDatabase(engine);
      await ok(cli.run(['user', 'add', 'boss@example.com', '--superuser', '--password', PASSWORD]));
      await ok(cli.run(['user', 'add', 'member@example.com', '--password', PASSWORD]));
      await ok(cli.run(['user', 'add', 'reader@example.com', '--role', 'viewer', '--password', PASSWORD]));
      await ok(cli.run(['user', 'add', 'chief@example.com', '--role', 'admin', '--superuser', '--password', PASSWORD]));
    });

    test('a table: one row an account, oldest first, never a password hash', async () => {
      const rows = lines(await ok(cli.run(['user', 'list'])));
      expect(rows[0]!.split(/\s{2,}/)).toEqual([
        'ID',
        'EMAIL',
        'SUPERUSER',
        'CREATED',
        'LAST SIGN-IN',
        'DISABLED',
        'ROLE',
        'PROJECTS',
      ]);
      expect(rows).toHaveLength(5);
      const [boss, member, reader, chief] = rows.slice(1).map((r) => r.split(/\s{2,}/));
      expect(boss!.slice(1)).toEqual([
        'boss@example.com',
        'yes',
        expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
        '-',
        '-',
        'admin',
        'all',
      ]);
      const emailSuperuserRole = (row: string[] | undefined) => [row![1], row![2], row![6]];
      expect(emailSuperuserRole(member)).toEqual(['member@example.com', 'no', 'editor']);
      expect(emailSuperuserRole(reader)).toEqual(['reader@example.com', 'no', 'viewer']);
      expect(emailSuperuserRole(chief)).toEqual(['chief@example.com', 'yes', 'admin']);
      expect(rows.join('\n')).not.toContain('argon2');
    });

    test('--json: an array with email, role, superuser (exactly the admins), created and last sign-in', async () => {
      const out = await ok(cli.run(['user', 'list', '--json']));
      expect(lines(out)).toHaveLength(1);
      const list = JSON.parse(out) as Record<string, unknown>[];
      expect(list.map((a) => [a.email, a.role, a.superuser, a.lastSignInAt, a.disabledAt])).toEqual([
        ['boss@example.com', 'admin', true, null, null],
        ['member@example.com', 'editor', false, null, null],
        ['reader@example.com', 'viewer', false, null, null],
        ['chief@example.com', 'admin', true, null, null],
      ]);
      for (const entry of list) {
        expect(Object.keys(entry).sort()).toEqual([
          'createdAt',
          'disabledAt',
          'email',
          'id',
          'lastSignInAt',
          'projects',
          'role',
          'superuser',
        ]);
        expect(typeof entry.createdAt).toBe('number');
        expect(entry.id).toMatch(/^acc_/);
      }
    });

    test('no accounts: only the header, or [] with --json', async () => {
      const empty = await cliDatabase(engine);
      expect(lines(await ok(empty.run(['user', 'list'])))).toEqual([
        'ID  EMAIL  SUPERUSER  CREATED  LAST SIGN-IN  DISABLED  ROLE  PROJECTS',
      ]);
      expect(await ok(empty.run(['user', 'list', '--json']))).toBe('[]\n');
    });

    test('user add: an unknown role, or --superuser with another role, fails with one line and adds nobody', async () => {
      const bad = await fails(cli.run(['user', 'add', 'x@example.com', '--role', 'owner', '--password', PASSWORD]));
      expect(bad).toContain('--role must be admin, editor or viewer');
      const both = await fails(
        cli.run(['user', 'add', 'y@example.com', '--role', 'viewer', '--superuser', '--password', PASSWORD]),
      );
      expect(both).toContain('--superuser means --role admin');
      const emails = (JSON.parse(await ok(cli.run(['user', 'list', '--json']))) as { email: string }[]).map(
        (a) => a.email,
      );
      expect(emails).not.toContain('x@example.com');
      expect(emails).not.toContain('y@example.com');
    });

    test('user invite: prints the one-time address (or --json), audited as the CLI; a taken email, a bad role or an unknown project fails with one line', async () => {
      const url = await ok(cli.run(['user', 'invite', 'guest@example.com', '--role', 'viewer']));
      expect(url).toMatch(/^http:\/\/localhost:3000\/app\/invite\/[A-Za-z0-9_-]{43}\n$/);
      const json = JSON.parse(await ok(cli.run(['user', 'invite', 'second.guest@example.com', '--json'])));
      expect(Object.keys(json).sort()).toEqual(['expiresAt', 'id', 'url']);
      const invites = await cli.rows<{ email: string; role: string; created_by: string | null }>(
        'SELECT email, role, created_by FROM invites ORDER BY email',
      );
      expect(invites).toEqual([
        { email: 'guest@example.com', role: 'viewer', created_by: null },
        { email: 'second.guest@example.com', role: 'editor', created_by: null },
      ]);
      const audit = await cli.rows<{ action: string; via: string }>(
        "SELECT action, via FROM audit_log WHERE action = 'invite.create'",
      );
      expect(audit).toEqual([
        { action: 'invite.create', via: 'cli' },
        { action: 'invite.create', via: 'cli' },
      ]);
      expect(await fails(cli.run(['user', 'invite', 'member@example.com']))).toContain('already exists');
      expect(await fails(cli.run(['user', 'invite', 'guest@example.com']))).toContain('pending invite');
      expect(await fails(cli.run(['user', 'invite', 'z@example.com', '--role', 'owner']))).toContain('--role');
      expect(await fails(cli.run(['user', 'invite', 'z@example.com', '--projects', 'prj_nope']))).toContain('prj_nope');
      await fails(cli.run(['user', 'invite']));
    });

    test("key create: a viewer's write key fails with one line; its read key is made", async () => {
      const refused = await fails(cli.run(['key', 'create', '--user', 'reader@example.com', '--scope', 'write']));
      expect(refused).toContain("A viewer's key can only read");
      expect(await ok(cli.run(['key', 'create', '--user', 'reader@example.com', '--scope', 'read']))).toMatch(/^slk_/);
    });

    test('extra arguments and unknown options fail with one line', async () => {
      await fails(cli.run(['user', 'list', 'boss@example.com']));
      await fails(cli.run(['user', 'list', '--all']));
      await fails(cli.run(['user', 'list', '--json=yes']));
    });
  });

  describe('slink user password', () => {
    let cli: CliDatabase;
    let server: RunningProcess | undefined;
    afterAll(() => server?.kill());

    beforeAll(async () => {
      cli = await cliDatabase(engine);
      await ok(cli.run(['user', 'add', 'forgetful@example.com', '--password', PASSWORD]));
    });

    const signIn = (password: string) =>
      fetch(`${server!.base}/api/app/session`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
        body: JSON.stringify({ email: 'forgetful@example.com', password }),
      });

    test('sets the password from stdin, prints nothing, and ends the sessions of the account', async () => {
      const port = freePort();
      const env = cleanEnv({ SLINK_DB: cli.path, ...cli.env, SLINK_PORT: String(port), SLINK_HOSTNAME: '127.0.0.1' });
      server = start([process.execPath, 'run', 'src/index.ts', 'serve'], port, { env });
      await waitHealthy(server);

      const before = await signIn(PASSWORD);
      expect(before.status).toBe(200);
      const cookie = before.headers.get('set-cookie')!.split(';')[0]!;
      const session = () => fetch(`${server!.base}/api/app/session`, { headers: { cookie } });
      expect((await session()).status).toBe(200);

      // Only the first line is the password, as with `user add`; the email matches in any case.
      const changed = await cli.run(['user', 'password', 'Forgetful@Example.com'], {
        stdin: `${NEW_PASSWORD}\nignored second line\n`,
      });
      expect(changed).toEqual({ code: 0, stdout: '', stderr: '' });

      const refused = await session();
      expect(refused.status).toBe(403);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('session_required');
      expect((await signIn(PASSWORD)).status).toBe(401);
      expect((await signIn(NEW_PASSWORD)).status).toBe(200);
      expect(await server.stop()).toBe(0);
    }, 60_000);

    test('a password under 8 characters, or none, fails with one line and changes nothing', async () => {
      const hash = async () => (await cli.rows<{ password_hash: string }>('SELECT password_hash FROM accounts'))[0];
      const before = await hash();
      for (const stdin of ['seven77\n', '', '\n']) {
        const msg = await fails(cli.run(['user', 'password', 'forgetful@example.com'], { stdin }));
        expect(msg).toContain('at least 8');
      }
      expect(await hash()).toEqual(before);
    });

    test('an unknown account fails with one line naming it', async () => {
      const msg = await fails(cli.run(['user', 'password', 'nobody@example.com'], { stdin: `${NEW_PASSWORD}\n` }));
      expect(msg).toContain('nobody@example.com');
    });

    test('a missing email, extra arguments or a --password option fail with one line', async () => {
      await fails(cli.run(['user', 'password'], { stdin: `${NEW_PASSWORD}\n` }));
      await fails(cli.run(['user', 'password', 'a@example.com', 'b@example.com'], { stdin: `${NEW_PASSWORD}\n` }));
      // Never on the command line (shell history, ps): the option does not exist.
      await fails(cli.run(['user', 'password', 'forgetful@example.com', '--password', NEW_PASSWORD]));
    });
  });
});
