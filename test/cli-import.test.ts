/**
 * `slink import` as an operator runs it: the real entry spawned, on both engines where the
 * engine matters (who holds a source while a run lasts, and what a killed run leaves). A run
 * killed mid-way is shown interrupted and the next run resumes where it saved: every link once,
 * none twice. Progress on stderr, the summary on stdout, the exit code.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, ok, PASSWORD, tempDir } from './helpers/cli';
import { type CliDatabase, cliDatabase } from './helpers/cli-engine';
import { serveProcess } from './helpers/dashboard-process';
import { ENGINES } from './helpers/engines';
import { BUN, cleanEnv, ROOT, run } from './helpers/proc';
import { waitUntil } from './helpers/wait';
import { ExportServer, header, idOf, linkLine, TOKEN } from './modules/imports/support';

const source = new ExportServer();
afterAll(() => source.stop());

// The fake other Slink listens on loopback: allowed as webhooks' receivers are, by the same switch.
const SHORT = {
  SLINK_SHORT_HOST: 'https://sl.test',
  SLINK_APP_HOST: 'https://app.sl.test',
  SLINK_UPSTREAM_ALLOW_PRIVATE: '1',
};

function importArgs(url: string, extra: string[] = []) {
  return ['import', 'slink', '--url', url, '--token', TOKEN, '--domain', 'sl.test', ...extra];
}

function envOf(db: CliDatabase) {
  return cleanEnv({ SLINK_DB: db.path, ...db.env, ...SHORT });
}

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36';

const clickOf = (text: string, n: number) =>
  `${JSON.stringify({ type: 'click', id: n, linkId: idOf(text), timestamp: Date.UTC(2026, 0, 2) + n })}\n`;

for (const engine of ENGINES) {
  describe(engine, () => {
    test('a run killed mid-way is interrupted; the next resumes: every link once, none twice', async () => {
      const db = await cliDatabase(engine);
      let release!: () => void;
      const held = new Promise<void>((r) => {
        release = r;
      });
      const groups = [0, 1, 2].map((g) => Array.from({ length: 3 }, (_, i) => linkLine({ slug: `k${g}-${i}` })));
      const lines = [header(true)];
      groups.forEach((g, i) => {
        lines.push(...g, clickOf(g[0]!, i + 1));
      });
      // Held inside the second page: the first is saved, the second waits on the source.
      const { url } = source.serve(`kill-${engine}`, lines, { after: 1 + 4 + 2, release: held });
      const first = Bun.spawn([BUN, 'run', 'src/index.ts', ...importArgs(url)], {
        cwd: ROOT,
        env: envOf(db),
        stdout: 'pipe',
        stderr: 'pipe',
      });
      // Read every 50 ms, not every 2: the command writes the same file meanwhile.
      await waitUntil(
        async () => {
          if (engine === 'sqlite' && !existsSync(db.path)) return false;
          // While the command creates and migrates the database, it may not answer yet.
          const rows = await db.rows<{ seen: number }>('SELECT links_seen AS seen FROM import_runs').catch(() => []);
          return rows.length === 1 && Number(rows[0]!.seen) === 3;
        },
        'the first page saved',
        50_000,
        50,
      );
      first.kill('SIGKILL');
      await first.exited;
      release();

      const second = await run([BUN, 'run', 'src/index.ts', ...importArgs(url)], { env: envOf(db) });
      expect({ code: second.code, stdout: second.stdout }).toEqual({
        code: 0,
        stdout: expect.stringMatching(
          /^imp_\w+ done: 6 links read: 6 created, 0 skipped, 0 failed; 2 clicks imported\n$/,
        ),
      });
      expect(second.stderr).toContain('import: 6 links read');
      expect(second.stderr).not.toContain(TOKEN);
      const runs = await db.rows<{ status: string; errors: string; seen: number }>(
        'SELECT status, errors, links_seen AS seen FROM import_runs ORDER BY started_at, id',
      );
      expect(runs.map((r) => [r.status, Number(r.seen), JSON.parse(r.errors)])).toEqual([
        ['failed', 3, [{ source: '', reason: 'interrupted: run it again to resume' }]],
        ['done', 6, []],
      ]);
      const links = await db.rows<{ slug: string }>('SELECT slug FROM links ORDER BY slug');
      expect(links.map((l) => l.slug)).toEqual(
        groups
          .flat()
          .map((l) => JSON.parse(l).slug)
          .sort(),
      );
      // A third run makes nothing: every source link was imported once.
      const third = await run([BUN, 'run', 'src/index.ts', ...importArgs(url)], { env: envOf(db) });
      expect(third.stdout).toMatch(/ done: 9 links read: 0 created, 9 skipped \(9 already imported\), 0 failed;/);
      expect(third.stderr).toContain(
        'import: nothing new: all 9 links were already imported by an earlier run of this source',
      );
      // Each link made is audited as the operator's, through the CLI.
      const audited = await db.rows<{ n: number }>(
        "SELECT count(*) AS n FROM audit_log WHERE action = 'link.create' AND via = 'cli'",
      );
      expect(Number(audited[0]!.n)).toBe(9);
    }, 60_000);
  });
}

describe('sqlite', () => {
  test('Ctrl-C stops the run at its page boundary, cancelled, and exits 1; the next run resumes', async () => {
    const db = await cliDatabase('sqlite');
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const first = [linkLine({ slug: 'int-a' }), linkLine({ slug: 'int-b' })];
    const lines = [
      header(true),
      ...first,
      clickOf(first[0]!, 1),
      linkLine({ slug: 'int-c' }),
      linkLine({ slug: 'int-d' }),
    ];
    // Held inside the second page: the first is saved, the second waits on the source.
    const { url } = source.serve('interrupt', lines, { after: 5, release: held });
    const proc = Bun.spawn([BUN, 'run', 'src/index.ts', ...importArgs(url)], {
      cwd: ROOT,
      env: envOf(db),
      stdout: 'pipe',
      stderr: 'pipe',
    });
    // Read every 50 ms, not every 2: the command writes the same file meanwhile.
    await waitUntil(
      async () => {
        if (!existsSync(db.path)) return false;
        const rows = await db.rows<{ seen: number }>('SELECT links_seen AS seen FROM import_runs').catch(() => []);
        return rows.length === 1 && Number(rows[0]!.seen) === 2;
      },
      'the first page saved',
      50_000,
      50,
    );
    proc.kill('SIGINT');
    const [code, stdout] = await Promise.all([proc.exited, new Response(proc.stdout).text()]);
    release();
    expect({ code, stdout }).toEqual({
      code: 1,
      stdout: expect.stringMatching(
        /^imp_\w+ cancelled: 2 links read: 2 created, 0 skipped, 0 failed; 1 clicks imported\n$/,
      ),
    });
    const again = await run([BUN, 'run', 'src/index.ts', ...importArgs(url)], { env: envOf(db) });
    expect(again.stdout).toMatch(/ done: 2 links read: 2 created, 0 skipped, 0 failed;/);
  }, 60_000);

  test('links imported beside a running service redirect at once: the service follows the file’s change feed', async () => {
    const served = await serveProcess([BUN, `${ROOT}/src/index.ts`], cleanEnv({}));
    try {
      const file = join(tempDir(), 'beside.ndjson');
      writeFileSync(
        file,
        [header(), linkLine({ slug: 'beside', domain: null, destination: 'https://example.com/beside' })].join(''),
      );
      const imported = await run([BUN, `${ROOT}/src/index.ts`, 'import', 'slink', '--file', file], {
        cwd: served.dir,
        env: served.env,
      });
      expect({ code: imported.code, stderr: imported.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
      let location = null as string | null;
      await waitUntil(async () => {
        const res = await fetch(`${served.origin}/beside`, { redirect: 'manual' });
        location = res.headers.get('location');
        return res.status === 302;
      }, 'the imported link to redirect');
      expect(location).toBe('https://example.com/beside');
    } finally {
      await served.close();
    }
  }, 60_000);

  test('history imported beside a running service counts toward its click limits at once', async () => {
    const served = await serveProcess([BUN, `${ROOT}/src/index.ts`], cleanEnv({}));
    try {
      const db = join(served.dir, 'data', 'slink.db');
      await ok(cli(db, ['user', 'add', 'ops@example.com', '--superuser', '--password', PASSWORD], { env: served.env }));
      const key = (
        await ok(cli(db, ['key', 'create', '--user', 'ops@example.com', '--scope', 'read'], { env: served.env }))
      ).trim();
      const link = linkLine({ slug: 'capped', domain: null, destination: 'https://example.com/capped', clickLimit: 3 });
      const importFile = async (name: string, lines: string[]) => {
        const file = join(tempDir(), name);
        writeFileSync(file, lines.join(''));
        const imported = await run([BUN, `${ROOT}/src/index.ts`, 'import', 'slink', '--file', file], {
          cwd: served.dir,
          env: served.env,
        });
        expect({ code: imported.code, stdout: imported.stdout }).toEqual({ code: 0, stdout: expect.any(String) });
      };
      const other = linkLine({ slug: 'uncapped', domain: null, destination: 'https://example.com/uncapped' });
      const clickCount = async (slug: string) => {
        const res = await fetch(`${served.origin}/api/v1/links?q=${slug}`, {
          headers: { authorization: `Bearer ${key}` },
        });
        return ((await res.json()) as any).items.find((l: any) => l.slug === slug)?.clickCount;
      };
      const visit = (slug = 'capped') =>
        fetch(`${served.origin}/${slug}`, { redirect: 'manual', headers: { 'user-agent': CHROME } }).then(
          async (res) => {
            await res.arrayBuffer();
            return res.status;
          },
        );
      // The link first, with no history: the service follows it in and counts a live click.
      await importFile('capped-1.ndjson', [header(true), link, other]);
      let status = 0;
      await waitUntil(async () => {
        status = await visit();
        return status === 302;
      }, 'the imported link to redirect');
      // Then two imported clicks: three with the live one, its limit.
      await importFile('capped-2.ndjson', [header(true), link, clickOf(link, 1), clickOf(link, 2)]);
      await waitUntil(async () => (await clickCount('capped')) === 3, 'the service to count the imported clicks');
      // A click written after that count was stored: its flush has learnt of the imported clicks.
      expect(await visit('uncapped')).toBe(302);
      await waitUntil(async () => (await clickCount('uncapped')) === 1, 'a later click written');
      expect(await visit()).toBe(410);
    } finally {
      await served.close();
    }
  }, 60_000);

  test('--file reads an export; --dry-run writes nothing; a bad flag is a usage error; a failed run exits 1', async () => {
    const db = await cliDatabase('sqlite');
    const file = join(tempDir(), 'export.ndjson');
    writeFileSync(file, [header(), linkLine({ slug: 'from-file' }), linkLine({ slug: 'api' })].join(''));
    const dry = await run(
      [BUN, 'run', 'src/index.ts', 'import', 'slink', '--file', file, '--domain', 'sl.test', '--dry-run'],
      {
        env: envOf(db),
      },
    );
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/ done \(dry run: nothing written\): 2 links read: 1 created, 1 skipped, 0 failed;/);
    expect(dry.stderr).toContain('slug: "api" is reserved');
    expect(await db.rows('SELECT id FROM links')).toEqual([]);
    const real = await run([BUN, 'run', 'src/index.ts', 'import', 'slink', '--file', file, '--domain', 'sl.test'], {
      env: envOf(db),
    });
    expect(real.code).toBe(0);
    expect((await db.rows<{ slug: string }>('SELECT slug FROM links')).map((l) => l.slug)).toEqual(['from-file']);
    const usage = await run([BUN, 'run', 'src/index.ts', 'import', 'slink', '--history', 'all'], { env: envOf(db) });
    expect({ code: usage.code, stderr: usage.stderr }).toEqual({
      code: 2,
      stderr: 'slink: --history must be one of clicks, daily, none\n',
    });
    const notExport = join(tempDir(), 'not.ndjson');
    writeFileSync(notExport, '{"type":"link"}\n');
    const refused = await run([BUN, 'run', 'src/index.ts', 'import', 'slink', '--file', notExport], { env: envOf(db) });
    expect({ code: refused.code, stderr: refused.stderr }).toEqual({
      code: 1,
      stderr: 'slink: slink: this is not a Slink export (its first line is not the export header) (--file)\n',
    });
  }, 60_000);
});
