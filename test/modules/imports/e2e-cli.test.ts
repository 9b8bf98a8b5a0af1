/**
 * `slink import shlink` end to end as an operator runs it: the real entry spawned against a
 * Shlink fake (a real server), on both engines. Killed (SIGKILL) in the middle of a link's
 * visits, once the first page of links is saved, it leaves that link with part of its history;
 * the next run resumes and every link is made once and every visit stored once. A run after new
 * visits at the source adds only those. Then the app opened on the same database answers the
 * links, their clickCount and statistics. On SQLite, an import beside a running `slink serve`
 * on the same file: the links redirect at once and their history shows in its statistics.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startShlinkFake } from '../../fakes/shlink';
import { apiExpecting, disposeTestApp, makeKey, makeTestApp } from '../../helpers/app';
import { cli, ok, PASSWORD, tempDir } from '../../helpers/cli';
import { cliDatabase } from '../../helpers/cli-engine';
import { serveProcess } from '../../helpers/dashboard-process';
import { ENGINES } from '../../helpers/engines';
import { BUN, cleanEnv, ROOT, run } from '../../helpers/proc';
import { waitUntil } from '../../helpers/wait';
import { UA } from '../clicks/support';

const MINUTE = 60_000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+00:00');
const V0 = Date.parse('2026-10-01T00:00:00Z');

/** 60 links (two pages of 50 with `pageCap: 50`); each has two visits but `busy` (in the second page), with 700 (three pages). */
function shlinkSeeds() {
  return Array.from({ length: 60 }, (_, i) => {
    const count = i === 55 ? 700 : 2;
    return {
      shortCode: `cl-${i}`,
      longUrl: `https://example.com/cli/${i}`,
      dateCreated: iso(Date.parse('2026-09-01T00:00:00Z') + i * MINUTE),
      visits: Array.from({ length: count }, (_, k) => ({
        date: iso(V0 + i * 1000 + k * MINUTE),
        userAgent: k % 2 === 0 ? UA.chromeWin : (UA.firefoxLinux as string),
        countryCode: k % 2 === 0 ? 'GB' : 'FR',
        cityName: k % 2 === 0 ? 'London' : 'Paris',
        potentialBot: k % 10 === 9,
      })),
    };
  });
}

/**
 * A proxy in front of the fake that holds one request (the busy link's second page of visits
 * asked, its oldest already stored) until released, and says when it holds it; `keeps`: every
 * request it names waits for the release too, unsaid (a page the runner would read ahead).
 */
function holdingProxy(target: string, holds: (url: URL) => boolean, keeps: (url: URL) => boolean = () => false) {
  let reached!: () => void;
  const held = new Promise<void>((r) => {
    reached = r;
  });
  let release!: () => void;
  const released = new Promise<void>((r) => {
    release = r;
  });
  let holding = true;
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const url = new URL(req.url);
      if (holding && holds(url)) {
        holding = false;
        reached();
        await released;
      } else if (keeps(url)) await released;
      return fetch(`${target}${url.pathname}${url.search}`, { headers: req.headers });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, held, release, stop: () => server.stop(true) };
}

const SHORT = { SLINK_SHORT_HOST: 'https://sl.test', SLINK_APP_HOST: 'https://app.sl.test' };
// The fakes listen on loopback: allowed by the old service's switch.
const PRIVATE = { SLINK_UPSTREAM_ALLOW_PRIVATE: '1' };

const fakes: { stop(): void }[] = [];
afterAll(() => {
  for (const f of fakes) f.stop();
});

for (const engine of ENGINES) {
  describe(engine, () => {
    test('killed mid-visits and run again: every link once, every visit once; a later run adds only newer visits', async () => {
      const seeds = shlinkSeeds();
      const shlink = startShlinkFake({ links: seeds, pageCap: 50 });
      const proxy = holdingProxy(
        shlink.url,
        (u) => u.pathname === '/rest/v3/short-urls/cl-55/visits' && u.searchParams.get('page') === '2',
      );
      fakes.push(shlink, proxy);
      const db = await cliDatabase(engine);
      const env = cleanEnv({ SLINK_DB: db.path, ...db.env, ...SHORT, ...PRIVATE });
      const args = (url: string) => [
        BUN,
        'run',
        'src/index.ts',
        'import',
        'shlink',
        '--url',
        url,
        '--token',
        shlink.apiKey,
      ];

      const first = Bun.spawn(args(proxy.url), { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' });
      const stderr = new Response(first.stderr).text();
      // The first page is saved and the busy link's oldest visits stored when it asks for more.
      await proxy.held;
      first.kill('SIGKILL');
      await first.exited;
      proxy.release();
      expect(await stderr).toContain('import: 50 links read: 50 created, 0 skipped, 0 failed; 100 clicks imported');
      const partial = await db.rows<{ n: number }>('SELECT count(*) AS n FROM links');
      expect(Number(partial[0]!.n)).toBe(60);

      const second = await run(args(proxy.url), { env });
      expect({ code: second.code, stdout: second.stdout }).toEqual({
        code: 0,
        // The second page again: its links made by the killed run, which never reported them
        // (created here), the visits not yet stored (the busy link's 600 newer, and those of
        // the links read beside it that the kill cut short), none twice.
        stdout: expect.stringMatching(
          /^imp_\w+ done: 10 links read: 10 created, 0 skipped, 0 failed; 6\d\d clicks imported\n$/,
        ),
      });
      const again = Number(/; (\d+) clicks imported/.exec(second.stdout)![1]);
      expect(again >= 600 && again <= 618).toBe(true);
      expect(second.stderr).not.toContain(shlink.apiKey);

      // New visits at the source: a later run adds those only.
      seeds[3]!.visits.push({
        date: iso(V0 + 2 * 86_400_000),
        userAgent: UA.edgeMac,
        countryCode: 'DE',
        cityName: 'Berlin',
        potentialBot: false,
      });
      const third = await run(args(proxy.url), { env });
      expect(third.stdout).toMatch(
        / done: 60 links read: 0 created, 60 skipped \(60 already imported\), 0 failed; 1 clicks imported\n$/,
      );

      // The app on the same database: what a user then sees.
      const t = await makeTestApp(engine === 'sqlite' ? { SLINK_DB: db.path } : {}, {
        engine,
        postgresUrl: db.env.SLINK_DATABASE_URL,
      });
      try {
        // SQLite: `slink import` queued the history; the service's writer takes it.
        await t.deps.clicks.flusher.takeImports();
        const key = (await makeKey(t, 'read', { superuser: true })).key;
        const all = await apiExpecting(t, key, 'GET', '/links?limit=100');
        expect(all.items.length).toBe(60);
        expect(new Set(all.items.map((l: any) => l.slug)).size).toBe(60);
        const busy = all.items.find((l: any) => l.slug === 'cl-55');
        expect({ clickCount: busy.clickCount, botCount: busy.botCount }).toEqual({ clickCount: 630, botCount: 70 });
        const stats = await apiExpecting(t, key, 'GET', `/links/${busy.id}/stats?from=2026-10-01&to=2026-10-31&bots=1`);
        expect(stats.totals).toMatchObject({ clicks: 700, bots: 70, uniques: 0 });
        const countries = Object.fromEntries(stats.breakdowns.country.map((e: any) => [e.value, e.clicks]));
        expect(countries).toEqual({ GB: 350, FR: 350 });
        // The clicks list, page after page: 700 rows, each visit once.
        const times: number[] = [];
        let cursor: string | null = null;
        do {
          const page: any = await apiExpecting(
            t,
            key,
            'GET',
            `/links/${busy.id}/clicks?from=2026-10-01&to=2026-10-31&bots=1&limit=200${cursor ? `&cursor=${cursor}` : ''}`,
          );
          times.push(...page.items.map((c: any) => c.timestamp));
          cursor = page.cursor;
        } while (cursor);
        expect({ rows: times.length, distinct: new Set(times).size }).toEqual({ rows: 700, distinct: 700 });
        // The second page's other links, whichever run stored their visits: each visit once.
        const others = all.items.filter((l: any) => /^cl-5\d$/.test(l.slug) && l.slug !== 'cl-55');
        expect(others.map((l: any) => l.clickCount)).toEqual(Array(9).fill(2));
        const fourth = all.items.find((l: any) => l.slug === 'cl-3');
        expect(fourth.clickCount).toBe(3);
        const workspace = await apiExpecting(t, key, 'GET', '/workspace/stats?from=2026-10-01&to=2026-10-31&bots=1');
        expect(workspace.totals).toMatchObject({ clicks: 59 * 2 + 700 + 1 });
      } finally {
        await disposeTestApp(t);
      }
    }, 90_000);
  });
}

describe('sqlite', () => {
  test('Ctrl-C while a first-page link waits for its visits: the resume reads that page again, every visit once', async () => {
    const seeds = shlinkSeeds();
    const shlink = startShlinkFake({ links: seeds, pageCap: 50 });
    // cl-3's first visits request: held while the other links of the first page are in flight.
    // The second page of links, which the runner reads ahead while the first page's history is
    // written: kept until after the Ctrl-C, so the stop comes with the first page only.
    const proxy = holdingProxy(
      shlink.url,
      (u) => u.pathname === '/rest/v3/short-urls/cl-3/visits',
      (u) => u.pathname === '/rest/v3/short-urls' && u.searchParams.get('page') !== '1',
    );
    fakes.push(shlink, proxy);
    const db = await cliDatabase('sqlite');
    const env = cleanEnv({ SLINK_DB: db.path, ...db.env, ...SHORT, ...PRIVATE });
    const args = [BUN, 'run', 'src/index.ts', 'import', 'shlink', '--url', proxy.url, '--token', shlink.apiKey];
    const first = Bun.spawn(args, { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' });
    await proxy.held;
    first.kill('SIGINT');
    const [code, stdout] = await Promise.all([first.exited, new Response(first.stdout).text()]);
    proxy.release();
    expect({ code, stdout }).toEqual({ code: 1, stdout: expect.stringMatching(/^imp_\w+ cancelled: 50 links read/) });

    const second = await run(args, { env });
    expect({ code: second.code, stdout: second.stdout }).toEqual({
      code: 0,
      stdout: expect.stringMatching(
        /^imp_\w+ done: 60 links read: 10 created, 50 skipped \(50 already imported\), 0 failed;/,
      ),
    });
    const t = await makeTestApp({ SLINK_DB: db.path }, { engine: 'sqlite' });
    try {
      await t.deps.clicks.flusher.takeImports();
      const key = (await makeKey(t, 'read', { superuser: true })).key;
      const all = await apiExpecting(t, key, 'GET', '/links?limit=100');
      const counts = Object.fromEntries(all.items.map((l: any) => [l.slug, l.clickCount + l.botCount]));
      expect(counts['cl-3']).toBe(2);
      expect(counts['cl-55']).toBe(700);
      expect(Object.values(counts).reduce((a: number, b: any) => a + b, 0)).toBe(59 * 2 + 700);
    } finally {
      await disposeTestApp(t);
    }
  }, 90_000);

  test('beside a running slink serve: imported links redirect at once, their history in its statistics', async () => {
    const shlink = startShlinkFake({
      links: [
        {
          shortCode: 'beside-shlink',
          longUrl: 'https://example.com/beside-shlink',
          dateCreated: '2026-09-01T00:00:00+00:00',
          visits: [
            { date: '2026-10-01T10:00:00+00:00', userAgent: UA.chromeWin, countryCode: 'GB', cityName: 'London' },
            { date: '2026-10-02T10:00:00+00:00', userAgent: UA.safariIphone, countryCode: 'FR', cityName: 'Paris' },
            { date: '2026-10-03T10:00:00+00:00', userAgent: UA.firefoxLinux, potentialBot: true },
          ],
        },
      ],
    });
    fakes.push(shlink);
    const served = await serveProcess([BUN, `${ROOT}/src/index.ts`], cleanEnv(PRIVATE));
    try {
      const db = join(served.dir, 'data', 'slink.db');
      await ok(cli(db, ['user', 'add', 'ops@example.com', '--superuser', '--password', PASSWORD], { env: served.env }));
      const key = (
        await ok(cli(db, ['key', 'create', '--user', 'ops@example.com', '--scope', 'read'], { env: served.env }))
      ).trim();
      const imported = await run(
        [BUN, `${ROOT}/src/index.ts`, 'import', 'shlink', '--url', shlink.url, '--token', shlink.apiKey],
        {
          cwd: served.dir,
          env: served.env,
        },
      );
      expect({ code: imported.code, stdout: imported.stdout }).toEqual({
        code: 0,
        stdout: expect.stringMatching(/ done: 1 links read: 1 created, 0 skipped, 0 failed; 3 clicks imported\n$/),
      });
      let location = null as string | null;
      await waitUntil(async () => {
        const res = await fetch(`${served.origin}/beside-shlink`, {
          redirect: 'manual',
          headers: { 'user-agent': UA.chromeWin },
        });
        location = res.headers.get('location');
        return res.status === 302;
      }, 'the imported link to redirect');
      expect(location).toBe('https://example.com/beside-shlink');
      const api = async (path: string) => {
        const res = await fetch(`${served.origin}/api/v1${path}`, { headers: { authorization: `Bearer ${key}` } });
        expect(res.status).toBe(200);
        return (await res.json()) as any;
      };
      const link = (await api('/links?q=beside-shlink')).items[0];
      // The service's writer takes the queued history on its own: wait on what it answers.
      let stats: any;
      await waitUntil(async () => {
        stats = await api(`/links/${link.id}/stats?from=2026-10-01&to=2026-10-31&bots=1`);
        return stats.totals.clicks >= 3;
      }, 'the imported visits in the running service’s statistics');
      expect(stats.totals).toMatchObject({ clicks: 3, bots: 1 });
      const countries = Object.fromEntries(stats.breakdowns.country.map((e: any) => [e.value, e.clicks]));
      expect(countries).toMatchObject({ GB: 1, FR: 1 });
      // The redirect above counted too: the imported history and the live click, together.
      await waitUntil(async () => (await api(`/links/${link.id}`)).clickCount === 3, 'the live click counted');
      expect(await api(`/links/${link.id}`)).toMatchObject({ clickCount: 3, botCount: 1 });
    } finally {
      await served.close();
    }
  }, 60_000);

  test('a source on an inside address is refused unless the operator allows it', async () => {
    const shlink = startShlinkFake({
      links: [{ shortCode: 'inside', longUrl: 'https://example.com/inside', dateCreated: '2026-09-01T00:00:00+00:00' }],
    });
    fakes.push(shlink);
    const db = await cliDatabase('sqlite');
    const args = ['import', 'shlink', '--url', shlink.url, '--token', shlink.apiKey];
    const refused = await db.run(args, { env: SHORT });
    expect({ code: refused.code, stdout: refused.stdout, stderr: refused.stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: expect.stringMatching(
        /^slink: shlink: Shlink: 127\.0\.0\.1 leads to an internal address \(127\.0\.0\.1\); set SLINK_UPSTREAM_ALLOW_PRIVATE=1 to allow imports from the inside network \(--url\)\n$/m,
      ),
    });
    expect(shlink.requests).toEqual([]);
    const allowed = await db.run(args, { env: { ...SHORT, ...PRIVATE } });
    expect({ code: allowed.code, stdout: allowed.stdout }).toEqual({
      code: 0,
      stdout: expect.stringMatching(/ done: 1 links read: 1 created, 0 skipped, 0 failed;/),
    });
  });

  test('text from a source reaches the terminal with its control characters escaped, never as commands to it', async () => {
    const db = await cliDatabase('sqlite');
    const rows = join(tempDir(), 'controls.csv');
    // A slug that clears the screen, and a destination that rings the bell and moves the cursor.
    writeFileSync(rows, 'url,slug\nhttps://example.com/a,\x1b[2Jclear\n"ftp://x\x07\x1b[1A",bell\n');
    const skipped = await db.run(['import', 'csv', '--file', rows], { env: SHORT });
    expect(skipped.code).toBe(0);
    expect(skipped.stderr).toContain('import: \\x1b[2Jclear: slug: ');
    const header = join(tempDir(), 'header.csv');
    writeFileSync(header, 'slug,\x1b]0;owned\x07title\nx,y\n');
    const refused = await db.run(['import', 'csv', '--file', header], { env: SHORT });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('"\\x1b]0;owned\\x07title"');
    // No control character but the line ends.
    const controls = (text: string) => [...text].filter((c) => c !== '\n' && /\p{Cc}/u.test(c));
    expect([skipped.stderr, skipped.stdout, refused.stderr].flatMap(controls)).toEqual([]);
  });
});
