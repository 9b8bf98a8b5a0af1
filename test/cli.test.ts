/**
 * The operator interface as an operator meets it, asserting exit codes, stdout and stderr
 * (docs/behaviour.md, "Operator CLI"; README, "Configuration"). The commands' arguments, output
 * and errors run in this process (runCli with its output and environment given: `cli`); the
 * real entry point is spawned (`bun run src/index.ts ...`, `bun run slink ...`, `bun run start`)
 * where the process is what is checked: that it writes runCli's lines to its stdout and stderr
 * and exits with its code (usage 2, failure 1), reads a password from its own stdin, the default
 * ./data/slink.db of its working folder, and `serve`.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_VARS } from '../src/config';
import { ACC_LINE, cli, fails, inspect, KEY_LINE, ok, PASSWORD, slink, tempDir } from './helpers/cli';
import { type CliDatabase, cliDatabase } from './helpers/cli-engine';
import { forEachEngine } from './helpers/engines';
import { BUN, cleanEnv, freePort, lines, ROOT, type RunningProcess, run, start, waitHealthy } from './helpers/proc';

describe('slink --help', () => {
  test('prints usage with every subcommand and every configuration variable, exit 0', async () => {
    const out = await ok(cli(join(tempDir(), 'slink.db'), ['--help']));
    for (const sub of [
      'serve',
      'user add',
      'user list',
      'user password',
      'key create',
      'key revoke',
      'key list',
      'migrate',
      'backup <file>',
      'copy-to <postgres-url>',
      '--batch',
      '--superuser',
      '--password',
      '--scope',
      '--expires-in',
      '--json',
      '--name',
      '--user',
    ]) {
      expect(out).toContain(sub);
    }
    // The README's configuration table, by name and default.
    const documentedVars = [
      'SLINK_PORT',
      'SLINK_HOSTNAME',
      'SLINK_DB',
      'SLINK_SHORT_HOST',
      'SLINK_APP_HOST',
      'SLINK_FLUSH_MS',
      'SLINK_TRUST_PROXY',
      'SLINK_GEO_DB',
      'SLINK_RATE_LIMIT',
      'SLINK_WORKSPACE_NAME',
      'SLINK_RETENTION_DAYS',
      'SLINK_METRICS_TOKEN',
      'SLINK_SESSION_DAYS',
      'SLINK_DATABASE_URL',
      'SLINK_NODE_ID',
      'SLINK_WEBHOOKS_ALLOW_PRIVATE',
      'SLINK_UPSTREAM_ALLOW_PRIVATE',
      'SLINK_LIVE_STREAMS',
      'SLINK_HONOR_GPC',
      'SLINK_HONOR_DNT',
      'SLINK_NO_TRACK_PARAM',
      'SLINK_REFERRER',
      'SLINK_GEO',
    ];
    expect(CONFIG_VARS.map((v) => v.name)).toEqual(documentedVars);
    for (const v of CONFIG_VARS) {
      const line = out.split('\n').find((l) => l.trimStart().startsWith(`${v.name} `));
      expect(line, v.name).toBeDefined();
      expect(line!).toContain(v.default);
    }
  });

  test('-h and help print the same text', async () => {
    const db = join(tempDir(), 'slink.db');
    const help = await ok(cli(db, ['--help']));
    expect(await ok(cli(db, ['-h']))).toBe(help);
    expect(await ok(cli(db, ['help']))).toBe(help);
  });

  test('--help touches no database', async () => {
    const db = join(tempDir(), 'sub', 'slink.db');
    await ok(cli(db, ['--help']));
    expect(existsSync(db)).toBe(false);
  });
});

forEachEngine((engine) => {
  describe('slink user add', () => {
    let cli: CliDatabase;
    beforeAll(async () => {
      cli = await cliDatabase(engine, join(tempDir(), 'nested', 'slink.db'));
    });

    test('--superuser --password prints the account id alone; the DB folder is created', async () => {
      const out = await ok(cli.run(['user', 'add', 'Admin@Example.com', '--superuser', '--password', PASSWORD]));
      expect(out).toMatch(ACC_LINE);
      // SQLite makes the file (and its folder); PostgreSQL leaves SLINK_DB alone.
      expect(existsSync(cli.path)).toBe(engine === 'sqlite');
      const [row] = await cli.rows<{ email: string; role: string; password_hash: string }>(
        'SELECT * FROM accounts WHERE id = $1',
        out.trim(),
      );
      expect(row?.email).toBe('Admin@Example.com');
      expect(row?.role).toBe('admin');
      expect(row?.password_hash).not.toContain(PASSWORD);
    });

    test('reads the password from stdin when --password is not given', async () => {
      const out = await ok(cli.run(['user', 'add', 'reader@example.com'], { stdin: `${PASSWORD}\n` }));
      expect(out).toMatch(ACC_LINE);
      const [row] = await cli.rows<{ password_hash: string; role: string }>(
        'SELECT * FROM accounts WHERE id = $1',
        out.trim(),
      );
      expect(row?.role).toBe('editor');
      // Only the first line is the password: the newline is not part of it.
      expect(await Bun.password.verify(PASSWORD, row!.password_hash)).toBe(true);
    });

    test('a short password on stdin is refused', async () => {
      const msg = await fails(cli.run(['user', 'add', 'short-stdin@example.com'], { stdin: 'abc\n' }));
      expect(msg).toContain('Password');
    });

    test('a duplicate email, in any case, fails with one line', async () => {
      const msg = await fails(cli.run(['user', 'add', 'aDMIN@example.COM', '--password', PASSWORD]));
      expect(msg).toContain('already exists');
      await fails(cli.run(['user', 'add', 'admin@example.com', '--password', PASSWORD]));
    });

    test('a bad email fails with one line', async () => {
      for (const email of ['not-an-email', 'a@b', 'a b@example.com']) {
        const msg = await fails(cli.run(['user', 'add', email, '--password', PASSWORD]));
        expect(msg.toLowerCase()).toContain('email');
      }
    });

    test('a password shorter than 8 characters fails with one line', async () => {
      const msg = await fails(cli.run(['user', 'add', 'short@example.com', '--password', 'seven77']));
      expect(msg).toContain('at least 8');
    });

    test('missing email, extra arguments, unknown options and unknown verbs fail with one line', async () => {
      await fails(cli.run(['user', 'add', '--password', PASSWORD]));
      await fails(cli.run(['user', 'add', 'x@example.com', 'y@example.com', '--password', PASSWORD]));
      await fails(cli.run(['user', 'add', 'x@example.com', '--password']));
      await fails(cli.run(['user', 'add', 'x@example.com', '--password', PASSWORD, '--admin']));
      await fails(cli.run(['user', 'remove', 'x@example.com']));
      await fails(cli.run(['user']));
    });

    test('nothing was created by the failures', async () => {
      const emails = await cli.rows<{ email: string }>('SELECT email FROM accounts ORDER BY id');
      emails.sort((a, b) => (a.email < b.email ? -1 : 1));
      expect(emails.map((r) => r.email)).toEqual(['Admin@Example.com', 'reader@example.com']);
    });
  });

  describe('slink key create / list / revoke', () => {
    let cli: CliDatabase;
    beforeAll(async () => {
      cli = await cliDatabase(engine);
      await ok(cli.run(['user', 'add', 'owner@example.com', '--superuser', '--password', PASSWORD]));
      await ok(cli.run(['user', 'add', 'other@example.com', '--password', PASSWORD]));
    });

    test('prints the key alone on one line', async () => {
      const out = await ok(cli.run(['key', 'create', '--user', 'owner@example.com', '--scope', 'write']));
      expect(out).toMatch(KEY_LINE);
    });

    test('--user matches the email in any case; --name and --scope read are stored', async () => {
      const out = await ok(
        cli.run(['key', 'create', '--user', 'OTHER@example.com', '--scope', 'read', '--name', 'reporting']),
      );
      expect(out).toMatch(KEY_LINE);
      const list = JSON.parse(await ok(cli.run(['key', 'list', '--user', 'other@example.com', '--json']))) as Record<
        string,
        unknown
      >[];
      expect(list).toHaveLength(1);
      expect(list[0]).toMatchObject({
        name: 'reporting',
        scope: 'read',
        user: 'other@example.com',
        status: 'active',
        prefix: out.slice(0, 12),
      });
    });

    test('--json prints exactly {id, key, scope, expiresAt} on one line', async () => {
      const out = await ok(cli.run(['key', 'create', '--user', 'owner@example.com', '--scope', 'read', '--json']));
      expect(lines(out)).toHaveLength(1);
      const body = JSON.parse(out) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['id', 'key', 'scope', 'expiresAt']);
      expect(body.id).toMatch(/^key_[A-Za-z0-9]+$/);
      expect(`${String(body.key)}\n`).toMatch(KEY_LINE);
      expect(body.scope).toBe('read');
      expect(body.expiresAt).toBeNull();
    });

    test('--scope create --json makes a create key, listed with that scope; an unknown scope fails', async () => {
      const out = await ok(cli.run(['key', 'create', '--user', 'owner@example.com', '--scope', 'create', '--json']));
      const body = JSON.parse(out) as Record<string, unknown>;
      expect(body.id).toMatch(/^key_[A-Za-z0-9]+$/);
      expect(body.scope).toBe('create');
      expect(`${String(body.key)}\n`).toMatch(KEY_LINE);
      const list = JSON.parse(await ok(cli.run(['key', 'list', '--user', 'owner@example.com', '--json']))) as {
        id: string;
        scope: string;
      }[];
      expect(list.find((k) => k.id === body.id)?.scope).toBe('create');
      await fails(cli.run(['key', 'create', '--user', 'owner@example.com', '--scope', 'admin']));
    });

    for (const [dur, ms] of [
      ['90s', 90_000],
      ['15m', 900_000],
      ['12h', 43_200_000],
      ['30d', 2_592_000_000],
    ] as const) {
      test(`--expires-in ${dur} sets expiresAt to now + ${dur}`, async () => {
        const before = Date.now();
        const out = await ok(
          cli.run(['key', 'create', '--user', 'owner@example.com', '--scope', 'write', '--expires-in', dur, '--json']),
        );
        const after = Date.now();
        const body = JSON.parse(out) as { expiresAt: number; scope: string };
        expect(body.scope).toBe('write');
        expect(body.expiresAt).toBeGreaterThanOrEqual(before + ms);
        expect(body.expiresAt).toBeLessThanOrEqual(after + ms);
      });
    }

    test('--option=value works like --option value', async () => {
      const out = await ok(
        cli.run(['key', 'create', '--user=owner@example.com', '--scope=read', '--expires-in=1d', '--json']),
      );
      expect((JSON.parse(out) as { scope: string }).scope).toBe('read');
    });

    test('a bad scope fails with one line', async () => {
      for (const scope of ['admin', 'READ', '']) {
        const msg = await fails(cli.run(['key', 'create', '--user', 'owner@example.com', '--scope', scope]));
        expect(msg).toContain('scope');
      }
    });

    test('a bad duration fails with one line', async () => {
      for (const dur of ['10', '10w', '1.5h', '-5m', '0s', 'm', 'soon']) {
        const msg = await fails(
          cli.run(['key', 'create', '--user', 'owner@example.com', '--scope', 'read', `--expires-in=${dur}`]),
        );
        expect(msg).toContain('expires-in');
      }
    });

    test('an unknown user fails with one line', async () => {
      const msg = await fails(cli.run(['key', 'create', '--user', 'nobody@example.com', '--scope', 'read']));
      expect(msg).toContain('nobody@example.com');
      await fails(cli.run(['key', 'list', '--user', 'nobody@example.com']));
    });

    test('missing options fail with one line', async () => {
      await fails(cli.run(['key', 'create', '--scope', 'read']));
      await fails(cli.run(['key', 'create', '--user', 'owner@example.com']));
      await fails(cli.run(['key', 'create']));
      await fails(cli.run(['key', 'create', '--user', 'owner@example.com', '--scope']));
      await fails(cli.run(['key', 'create', '--user', 'owner@example.com', '--scope', 'read', 'extra']));
      await fails(cli.run(['key', 'create', '--user', 'owner@example.com', '--scope', 'read', '--bogus']));
      await fails(cli.run(['key', 'create', '--user', 'owner@example.com', '--scope', 'read', '--json=yes']));
    });

    test('revoke: unknown id, missing id and unknown verbs fail with one line', async () => {
      await fails(cli.run(['key', 'revoke', 'key_doesnotexist00']));
      await fails(cli.run(['key', 'revoke']));
      await fails(cli.run(['key', 'revoke', 'a', 'b']));
      await fails(cli.run(['key', 'rotate']));
      await fails(cli.run(['key']));
    });

    test('list (table and --json) never shows the secret and shows revoked keys as revoked', async () => {
      const created = JSON.parse(
        await ok(
          cli.run([
            'key',
            'create',
            '--user',
            'other@example.com',
            '--scope',
            'write',
            '--name',
            'to revoke',
            '--json',
          ]),
        ),
      ) as {
        id: string;
        key: string;
      };
      expect(await ok(cli.run(['key', 'revoke', created.id]))).toBe('');
      // Revoking twice is still a success with no output.
      expect(await ok(cli.run(['key', 'revoke', created.id]))).toBe('');

      const table = await ok(cli.run(['key', 'list']));
      const rows = lines(table);
      expect(rows[0]!.split(/\s{2,}/)).toEqual([
        'ID',
        'PREFIX',
        'SCOPE',
        'STATUS',
        'USER',
        'NAME',
        'CREATED',
        'EXPIRES',
        'LAST USED',
        'PROJECTS',
        'DOMAINS',
      ]);
      const row = rows.find((r) => r.startsWith(`${created.id} `));
      expect(row).toBeDefined();
      expect(row!).toContain(created.key.slice(0, 12));
      expect(row!).toMatch(/\brevoked\b/);
      expect(row!).toContain('other@example.com');
      expect(row!).toContain('to revoke');
      expect(table).not.toContain(created.key);
      expect(table).not.toContain(created.key.slice(12));

      const json = await ok(cli.run(['key', 'list', '--json']));
      expect(lines(json)).toHaveLength(1);
      expect(json).not.toContain(created.key.slice(12));
      const list = JSON.parse(json) as Record<string, unknown>[];
      // One entry per key in the table; fields never include the key or its hash.
      expect(list).toHaveLength(rows.length - 1);
      for (const entry of list) {
        expect(Object.keys(entry).sort()).toEqual([
          'createdAt',
          'domains',
          'expiresAt',
          'id',
          'lastUsedAt',
          'name',
          'prefix',
          'projects',
          'revokedAt',
          'scope',
          'status',
          'user',
        ]);
      }
      const entry = list.find((k) => k.id === created.id)!;
      expect(entry).toMatchObject({
        status: 'revoked',
        scope: 'write',
        user: 'other@example.com',
        name: 'to revoke',
        prefix: created.key.slice(0, 12),
      });
      expect(typeof entry.revokedAt).toBe('number');

      // --user narrows the list.
      const mine = JSON.parse(await ok(cli.run(['key', 'list', '--user', 'OWNER@example.com', '--json']))) as {
        user: string;
      }[];
      expect(mine.length).toBeGreaterThan(0);
      expect(mine.every((k) => k.user === 'owner@example.com')).toBe(true);
      expect(mine.length).toBeLessThan(list.length);
    });

    test('the database stores only a hash of each key', async () => {
      const created = JSON.parse(
        await ok(cli.run(['key', 'create', '--user', 'owner@example.com', '--scope', 'read', '--json'])),
      ) as { id: string; key: string };
      const dump = JSON.stringify(await cli.rows('SELECT * FROM api_keys'));
      expect(dump).toContain(created.id);
      expect(dump).not.toContain(created.key.slice(12));
    });

    test('an empty list prints only the header, or [] with --json', async () => {
      const empty = await cliDatabase(engine);
      expect(lines(await ok(empty.run(['key', 'list'])))).toEqual([
        'ID  PREFIX  SCOPE  STATUS  USER  NAME  CREATED  EXPIRES  LAST USED  PROJECTS  DOMAINS',
      ]);
      expect(await ok(empty.run(['key', 'list', '--json']))).toBe('[]\n');
    });
  });
});

// The flags only: the limits' store code runs through HTTP on both engines (modules/accounts.test.ts).
describe('project and domain limits from the command line', () => {
  let cli: CliDatabase;
  beforeAll(async () => {
    cli = await cliDatabase('sqlite');
    await ok(cli.run(['user', 'list']));
    inspect(
      cli.path,
      (db) => {
        db.run(
          "INSERT INTO projects (id, name, created_at, updated_at) VALUES ('prj_one', 'One', 0, 0), ('prj_two', 'Two', 0, 0)",
        );
        db.run("INSERT INTO domains (host, origin, created_at) VALUES ('go.example.com', 'https://go.example.com', 0)");
      },
      false,
    );
  });

  test('user add --projects limits the account; an unknown project fails naming it', async () => {
    expect(
      await fails(cli.run(['user', 'add', 'x@example.com', '--projects', 'prj_nope', '--password', PASSWORD])),
    ).toContain('prj_nope');
    await ok(cli.run(['user', 'add', 'lim@example.com', '--projects', 'prj_one, prj_two', '--password', PASSWORD]));
    const [account] = JSON.parse(await ok(cli.run(['user', 'list', '--json']))) as { projects: string[] }[];
    expect(account!.projects).toEqual(['prj_one', 'prj_two']);
    expect(lines(await ok(cli.run(['user', 'list'])))[1]).toMatch(/\bprj_one,prj_two$/);
  });

  test('key create --projects --domains: within the account, listed; each change audited as the CLI', async () => {
    const beyond = await fails(
      cli.run(['key', 'create', '--user', 'lim@example.com', '--scope', 'read', '--projects', 'prj_nope']),
    );
    expect(beyond).toContain('prj_nope');
    expect(
      await fails(
        cli.run(['key', 'create', '--user', 'lim@example.com', '--scope', 'read', '--domains', 'no.example.com']),
      ),
    ).toContain('no.example.com');
    const made = JSON.parse(
      await ok(
        cli.run([
          'key',
          'create',
          '--user',
          'lim@example.com',
          '--scope',
          'read',
          '--projects',
          'prj_one',
          '--domains',
          'go.example.com',
          '--json',
        ]),
      ),
    ) as { id: string; projects: string[]; domains: string[] };
    expect(made).toMatchObject({ projects: ['prj_one'], domains: ['go.example.com'] });
    const [listed] = JSON.parse(await ok(cli.run(['key', 'list', '--json']))) as Record<string, unknown>[];
    expect(listed).toMatchObject({ id: made.id, projects: ['prj_one'], domains: ['go.example.com'] });
    expect(lines(await ok(cli.run(['key', 'list'])))[1]).toMatch(/\bprj_one\s+go\.example\.com$/);
    const audit = await cli.rows<{ action: string; via: string; account_id: string | null; fields: string }>(
      'SELECT action, via, account_id, fields FROM audit_log ORDER BY id',
    );
    expect(audit.map((a) => [a.action, a.via, a.account_id, JSON.parse(a.fields)])).toEqual([
      ['account.create', 'cli', null, ['email', 'projects', 'role']],
      ['key.create', 'cli', null, ['domains', 'projects', 'scope']],
    ]);
  });
});

describe('a command that creates the database says so', () => {
  const NOTE = (path: string) =>
    `slink: no database at ${path}: created a new one (set SLINK_DB, or SLINK_DATABASE_URL for PostgreSQL, to use another)\n`;

  test('the first account made before the first start: the id alone on stdout, the note on stderr, exit 0', async () => {
    // No SLINK_* at all, as when SLINK_DATABASE_URL was forgotten: the default ./data/slink.db.
    const dir = tempDir();
    const env = cleanEnv();
    const add = (email: string) =>
      run([BUN, 'run', join(ROOT, 'src/index.ts'), 'user', 'add', email, '--password', PASSWORD], { cwd: dir, env });
    const first = await add('first@example.com');
    expect(first).toEqual({ code: 0, stdout: expect.stringMatching(ACC_LINE), stderr: NOTE('./data/slink.db') });
    expect(existsSync(join(dir, 'data', 'slink.db'))).toBe(true);
    // The database is there now: nothing more is said.
    expect(await add('second@example.com')).toEqual({ code: 0, stdout: expect.stringMatching(ACC_LINE), stderr: '' });
  });

  test('a command that fails on the database it created says both, the note first', async () => {
    const db = join(tempDir(), 'slink.db');
    const r = await cli(db, ['key', 'create', '--user', 'nobody@example.com', '--scope', 'read']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toStartWith(NOTE(db));
    expect(r.stderr.slice(NOTE(db).length)).toMatch(/^slink: [^\n]*nobody@example\.com[^\n]*\n$/);
  });
});

describe('unknown commands and bad configuration', () => {
  test('an unknown command fails with one line', async () => {
    const db = join(tempDir(), 'slink.db');
    for (const args of [['bogus'], ['--version'], ['users', 'add'], ['keys', 'list']]) {
      const msg = await fails(cli(db, args));
      expect(msg).toContain('slink --help');
    }
  });

  test('an invalid SLINK_* value fails with one line naming the variable', async () => {
    const db = join(tempDir(), 'slink.db');
    const msg = await fails(cli(db, ['key', 'list'], { env: { SLINK_RATE_LIMIT: 'lots' } }));
    expect(msg).toContain('SLINK_RATE_LIMIT');
    const serve = await fails(slink(db, ['serve'], { env: { SLINK_PORT: 'http' } }));
    expect(serve).toContain('SLINK_PORT');
  });
});

describe('the process writes what runCli says, exits with its code and reads its stdin', () => {
  test('usage errors exit 2, other failures 1, each with the one line runCli says', async () => {
    const db = join(tempDir(), 'slink.db');
    const usage = await slink(db, ['bogus']);
    expect(usage).toEqual({ code: 2, stdout: '', stderr: (await cli(db, ['bogus'])).stderr });
    expect(usage.stderr).toMatch(/^slink: [^\n]*slink --help[^\n]*\n$/);
    await ok(cli(db, ['key', 'list']));
    const failed = await slink(db, ['key', 'create', '--user', 'nobody@example.com', '--scope', 'read']);
    expect(failed).toEqual({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(/^slink: [^\n]*nobody@example\.com[^\n]*\n$/),
    });
  });

  test('a password on its standard input, the first line only', async () => {
    const db = join(tempDir(), 'slink.db');
    const added = await ok(slink(db, ['user', 'add', 'stdin@example.com'], { stdin: `${PASSWORD}\nignored\n` }));
    expect(added).toMatch(ACC_LINE);
    const [hash] = inspect(db, (s) =>
      s
        .query<{ password_hash: string }, []>("SELECT password_hash FROM accounts WHERE email = 'stdin@example.com'")
        .all(),
    );
    expect(await Bun.password.verify(PASSWORD, hash!.password_hash)).toBe(true);
  });
});

describe('bun run slink (package script)', () => {
  test('prints exactly what bun run src/index.ts prints, with nothing extra on stderr', async () => {
    const db = join(tempDir(), 'slink.db');
    await ok(cli(db, ['user', 'add', 'script@example.com', '--password', PASSWORD]));
    await ok(cli(db, ['key', 'create', '--user', 'script@example.com', '--scope', 'read', '--name', 'one']));
    await ok(cli(db, ['key', 'create', '--user', 'script@example.com', '--scope', 'write', '--expires-in', '30d']));
    const env = cleanEnv({ SLINK_DB: db });

    for (const args of [['key', 'list'], ['key', 'list', '--json'], ['--help']]) {
      const direct = await run([BUN, 'run', 'src/index.ts', ...args], { env });
      const script = await run([BUN, 'run', 'slink', ...args], { env });
      expect(direct.code).toBe(0);
      // The entry point writes what runCli says, nothing more, nothing less.
      expect(direct).toEqual(await cli(db, args));
      expect(script).toEqual(direct);
      expect(script.stderr).toBe('');
    }

    const direct = await run([BUN, 'run', 'src/index.ts', 'key', 'create', '--scope', 'read'], { env });
    const script = await run([BUN, 'run', 'slink', 'key', 'create', '--scope', 'read'], { env });
    expect(direct.code).not.toBe(0);
    expect(script).toEqual(direct);

    // Created through the script, usable like any other key.
    const key = await ok(
      run([BUN, 'run', 'slink', 'key', 'create', '--user', 'script@example.com', '--scope', 'read'], { env }),
    );
    expect(key).toMatch(KEY_LINE);
  });
});

describe('slink serve', () => {
  let dir: string;
  let db: string;
  let server: RunningProcess | undefined;

  beforeAll(() => {
    dir = tempDir();
    db = join(dir, 'data', 'slink.db');
  });
  afterAll(() => server?.kill());

  test('serves, accepts keys created while it runs, rejects revoked keys, exits 0 on SIGTERM', async () => {
    const port = freePort();
    const env = cleanEnv({ SLINK_DB: db, SLINK_PORT: String(port), SLINK_HOSTNAME: '127.0.0.1', SLINK_FLUSH_MS: '50' });
    server = start([BUN, 'run', 'src/index.ts', 'serve'], port, { env });
    const health = await waitHealthy(server);
    expect(await health.json()).toEqual({ status: 'ok', node: expect.any(String) });

    // Operator commands against the same file while the server holds it open.
    const accountId = (
      await ok(cli(db, ['user', 'add', 'live@example.com', '--superuser', '--password', PASSWORD]))
    ).trim();
    const created = JSON.parse(
      await ok(cli(db, ['key', 'create', '--user', 'live@example.com', '--scope', 'write', '--json'])),
    ) as { id: string; key: string };
    const auth = { authorization: `Bearer ${created.key}` };

    const me = await fetch(`${server.base}/api/v1/me`, { headers: auth });
    expect(me.status).toBe(200);
    const meBody = (await me.json()) as {
      scope: string;
      key: { id: string };
      account: { id: string; email: string; superuser: boolean; role: string; projects: string[] | null };
    };
    expect(meBody.scope).toBe('write');
    expect(meBody.key.id).toBe(created.id);
    expect(meBody.account).toEqual({
      id: accountId,
      email: 'live@example.com',
      superuser: true,
      role: 'admin',
      projects: null,
    });

    const post = await fetch(`${server.base}/api/v1/links`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ destination: 'https://example.com/landing', title: 'CLI test' }),
    });
    expect(post.status).toBe(201);
    const link = (await post.json()) as { id: string; slug: string; shortUrl: string; destination: string };
    expect(link.destination).toBe('https://example.com/landing');
    expect(link.shortUrl).toBe(`http://localhost:${port}/${link.slug}`);

    const got = await fetch(`${server.base}/api/v1/links/${link.id}`, { headers: auth });
    expect(got.status).toBe(200);

    // Revoked by the CLI while the server runs: the next request is refused.
    const revoke = await cli(db, ['key', 'revoke', created.id]);
    expect(revoke).toEqual({ code: 0, stdout: '', stderr: '' });
    const refused = await fetch(`${server.base}/api/v1/me`, { headers: auth });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('key_revoked');

    // key list now shows it revoked and with a last-used time.
    const listed = (
      JSON.parse(await ok(cli(db, ['key', 'list', '--json']))) as {
        id: string;
        status: string;
        lastUsedAt: number | null;
      }[]
    ).find((k) => k.id === created.id);
    expect(listed?.status).toBe('revoked');
    expect(typeof listed?.lastUsedAt).toBe('number');

    const code = await server.stop();
    expect(code).toBe(0);
    expect(server.proc.signalCode).toBeNull();
    const out = await server.stdout;
    expect(out).toContain(`listening on http://127.0.0.1:${port}`);
    expect(out).toContain('SIGTERM received');
    expect(await server.stderr).toBe('');

    inspect(db, (check) => {
      expect(check.query<{ integrity_check: string }, []>('PRAGMA integrity_check').all()).toEqual([
        { integrity_check: 'ok' },
      ]);
      expect(check.query<{ n: number }, [string]>('SELECT count(*) AS n FROM links WHERE id = ?').get(link.id)?.n).toBe(
        1,
      );
    });
  });

  test('no subcommand also serves', async () => {
    const port = freePort();
    const env = cleanEnv({
      SLINK_DB: join(tempDir(), 'slink.db'),
      SLINK_PORT: String(port),
      SLINK_HOSTNAME: '127.0.0.1',
    });
    server = start([BUN, 'run', 'src/index.ts'], port, { env });
    expect(await (await waitHealthy(server)).json()).toEqual({ status: 'ok', node: expect.any(String) });
    expect(await server.stop()).toBe(0);
  });

  test('a port already in use fails with a non-zero exit', async () => {
    const blocker = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('busy') });
    try {
      const msg = await fails(
        slink(join(tempDir(), 'slink.db'), ['serve'], {
          env: { SLINK_PORT: String(blocker.port), SLINK_HOSTNAME: '127.0.0.1' },
        }),
      );
      expect(msg).toContain(String(blocker.port));
    } finally {
      blocker.stop(true);
    }
  });

  test('bun run start (package script) serves the same way and exits 0 on SIGTERM', async () => {
    const port = freePort();
    const startDb = join(tempDir(), 'data', 'slink.db');
    const env = cleanEnv({ SLINK_DB: startDb, SLINK_PORT: String(port), SLINK_HOSTNAME: '127.0.0.1' });
    server = start([BUN, 'run', 'start'], port, { env });
    expect(await (await waitHealthy(server)).json()).toEqual({ status: 'ok', node: expect.any(String) });
    expect(existsSync(startDb)).toBe(true);

    await ok(cli(startDb, ['user', 'add', 'start@example.com', '--password', PASSWORD]));
    const key = (await ok(cli(startDb, ['key', 'create', '--user', 'start@example.com', '--scope', 'read']))).trim();
    const me = await fetch(`${server.base}/api/v1/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);
    // A read key may not write.
    const post = await fetch(`${server.base}/api/v1/links`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ destination: 'https://example.com/' }),
    });
    expect(post.status).toBe(403);

    expect(await server.stop()).toBe(0);
    const out = await server.stdout;
    expect(out).toContain(`listening on http://127.0.0.1:${port}`);
    expect(out).not.toContain('$ bun run');
    inspect(startDb, (check) => {
      expect(check.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get()?.integrity_check).toBe('ok');
    });
  });
});
