/**
 * `slink copy-to <postgres-url>` (docs/operations.md, "Moving to PostgreSQL"), spawned as the
 * real CLI: a SQLite database written through the real app (accounts, keys, a session, a
 * project, links with tags and variants, a fortnight of clicks with bots, the older ones sealed
 * into blocks of several segments, one of them reaching into yesterday) copied into a real
 * PostgreSQL database, which the real app then serves: the blocks go over as bytes, and the
 * PostgreSQL engine reads them and seals after them.
 */
import { beforeAll, describe, expect, test } from 'bun:test';
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { SQL } from 'bun';
import { DAY_MS, utcDay } from '../src/lib/time';
import { lastClickIdPg } from '../src/modules/clicks/postgres/read-clicks';
import { sealSegmentPg, takeHorizon } from '../src/modules/clicks/postgres/seal';
import { upgradeClickStorage } from '../src/modules/clicks/public';
import { sealBacklog, sealThrough } from '../src/modules/clicks/sqlite/seal';
import { startSession } from '../src/modules/sessions/service';
import { api, makeKey, makeTestApp, type TestApp } from './helpers/app';
import { inspect, slink, tempDir } from './helpers/cli';
import { freshPostgresUrl } from './helpers/postgres';
import { BUN, cleanEnv, ROOT } from './helpers/proc';
import { PLACES, seedBusyWorkspace, visit } from './helpers/stats-seed';
import { UA } from './modules/clicks/support';

const PASSWORD = 'pw-never-printed-7f3a';

/** The URL as copy-to names it: the password replaced. */
function redacted(url: string): string {
  const u = new URL(url);
  u.password = '***';
  return u.toString();
}

/** The test cluster trusts every local connection: a password in the URL is accepted, and ignored. */
function withPassword(url: string): string {
  const u = new URL(url);
  u.password = PASSWORD;
  return u.toString();
}

let source: string;
let key: string;
let linkIds: string[];
/** A short domain other than the default, with every setting, and a link on it. */
const DOMAIN = 'go.example.com';
const DOMAIN_SETTINGS = {
  rootUrl: 'https://example.com/home',
  notFoundUrl: 'https://example.com/missing',
  expiredUrl: 'https://example.com/expired',
  upstream: 'https://old.example.net',
  appleAppSiteAssociation: { applinks: { details: [{ appIDs: ['TEAM.com.example.app'], paths: ['*'] }] } },
  assetLinks: [{ relation: ['delegate_permission/common.handle_all_urls'], target: { namespace: 'android_app' } }],
};
/** What the source's API answered before the copy. */
let answers: Awaited<ReturnType<typeof apiAnswers>>;
/** The source's raw clicks table by table. */
let sealed: { segments: number; blocks: number; clicks: number; tail: number };
const outputs: string[] = [];

async function apiAnswers(t: TestApp) {
  const get = async (path: string) => {
    const r = await api(t, 'GET', path, { key });
    expect(r.status).toBe(200);
    return r.body;
  };
  // GET /links also reads what is not on PostgreSQL yet (it answers 500 there): the list is
  // compared as the links store pages it, with its tags.
  const page = await t.deps.stores.links.page({ now: t.clock.now() }, 'created', 100, null);
  return {
    list: { page, tags: await t.deps.stores.links.tagsOf(page.rows.map((r) => r.id)) },
    links: await Promise.all(linkIds.map((id) => get(`/links/${id}`))),
    variants: await Promise.all(linkIds.map((id) => get(`/links/${id}/variants`))),
    projects: await get('/projects'),
    // A pending invite travels with its hash: its address works on the new database too.
    invites: await get('/invites'),
    domain: await get(`/domains/${DOMAIN}`),
    // The raw clicks, read from blocks and tail: every one, newest first, and the export.
    clicks: await Promise.all(
      linkIds.map(async (id) => {
        const items: { timestamp: number }[] = [];
        let cursor: string | null = null;
        do {
          const page = await get(`/links/${id}/clicks?range=all&bots=1&limit=37${cursor ? `&cursor=${cursor}` : ''}`);
          items.push(...page.items);
          cursor = page.cursor;
        } while (cursor);
        return items;
      }),
    ),
    exports: await Promise.all(
      linkIds.map(async (id) => {
        const r = await api(t, 'GET', `/links/${id}/export.csv?range=all&bots=1`, { key });
        expect(r.status).toBe(200);
        return r.text;
      }),
    ),
  };
}

/** What the app answers to HEAD `path` asked for on `host` (a bot hit, as curl -I is). */
async function onHost(t: TestApp, host: string, path: string): Promise<{ status: number; location: string | null }> {
  const res = await t.app.handle(new Request(`http://${host}${path}`, { method: 'HEAD', redirect: 'manual' }));
  return { status: res.status, location: res.headers.get('location') };
}

function copyTo(url: string, args: string[] = []) {
  return slink(source, ['copy-to', url, ...args]).then((r) => {
    outputs.push(r.stdout, r.stderr);
    return r;
  });
}

beforeAll(async () => {
  const t = await makeTestApp({ SLINK_TRUST_PROXY: '1' });
  // Upgraded first, as a file the service has run on is (the first open of a fresh file by the
  // CLI would otherwise seal its whole tail).
  upgradeClickStorage(t.deps.db.$client, { log: () => {}, clock: t.clock });
  // Today's clocks: today's and yesterday's first visits become PostgreSQL's uniques.
  t.clock.set(Date.now());
  const made = await makeKey(t, 'write', { superuser: true });
  key = made.key;
  await startSession(t.deps, made.account, 'Mozilla/5.0 (X11; Linux x86_64) Firefox/125.0');
  const project = await api(t, 'POST', '/projects', { key, body: { name: 'Campaigns' } });
  expect(project.status).toBe(201);
  const invited = { email: 'invited@example.com', role: 'viewer', projects: [project.body.id] };
  expect((await api(t, 'POST', '/invites', { key, body: invited })).status).toBe(201);
  linkIds = await seedBusyWorkspace(t, key);
  const { rootUrl, notFoundUrl, expiredUrl, ...later } = DOMAIN_SETTINGS;
  expect(
    (await api(t, 'POST', '/domains', { key, body: { origin: `https://${DOMAIN}`, rootUrl, notFoundUrl, expiredUrl } }))
      .status,
  ).toBe(201);
  expect((await api(t, 'PATCH', `/domains/${DOMAIN}`, { key, body: later })).status).toBe(200);
  // The default domain's slug on the other domain too: each its own link.
  const onDomain = await api(t, 'POST', '/links', {
    key,
    body: { destination: 'https://example.com/on-domain', slug: 'docs', domain: DOMAIN },
  });
  expect(onDomain.status).toBe(201);
  const tagged = await api(t, 'PATCH', `/links/${linkIds[0]}`, {
    key,
    body: {
      tags: ['spring', 'promo'],
      projectId: project.body.id,
      // The redirect options, none at its default: the answers compared below carry them.
      fallbackUrl: 'https://example.com/over',
      redirectStatus: 308,
      forwardQuery: true,
      // And the link rules: the password's hash, the rules and the preview are copied as stored.
      password: 'copied-password',
      rules: [{ when: { device: ['mobile'] }, destination: 'https://example.com/phone', params: { via: 'rule' } }],
      preview: { title: 'Copied', image: 'https://example.com/card.png' },
    },
  });
  expect(tagged.status).toBe(200);
  expect(tagged.body).toMatchObject({
    fallbackUrl: 'https://example.com/over',
    redirectStatus: 308,
    forwardQuery: true,
    passwordProtected: true,
    rules: [{ when: { device: ['mobile'] }, destination: 'https://example.com/phone', params: { via: 'rule' } }],
    preview: { title: 'Copied', image: 'https://example.com/card.png' },
  });
  await visit(t, [{ path: '/docs', ip: PLACES.london, ua: UA.chromeWin }]);
  const sqlite = t.deps.db.$client;
  // The clicks before yesterday go into sealed segments of 60 ids, as on a database that ran a
  // while, and the first half of yesterday's into one more (its first visits are uniques to copy).
  const yesterday = (utcDay(Date.now()) - 1) * DAY_MS;
  const old = sqlite
    .query<{ id: number }, [number]>('SELECT max(id) AS id FROM click_tail WHERE time < ?')
    .get(yesterday)!.id;
  const recent = sqlite
    .query<{ lo: number; hi: number }, [number, number]>(
      'SELECT min(id) AS lo, max(id) AS hi FROM click_tail WHERE time >= ? AND time < ?',
    )
    .get(yesterday, yesterday + DAY_MS)!;
  expect(sealBacklog(sqlite, old, 60)).toBeGreaterThan(100);
  expect(sealThrough(sqlite, Math.floor((recent.lo + recent.hi) / 2))).toBeGreaterThan(5);
  // Visits its fallback answered (counted by the click writer): carried like the other counters.
  sqlite.query('UPDATE link_counters SET fallback_visits = 4 WHERE link_id = ?').run(linkIds[0]!);
  answers = await apiAnswers(t);
  expect(answers.links[0].fallbackCount).toBe(4);
  source = join(tempDir(), 'slink.db');
  sqlite.query('VACUUM INTO ?').run(source);
  await t.close();
  sealed = inspect(
    source,
    (db) =>
      db
        .query<{ segments: number; blocks: number; clicks: number; tail: number }, []>(
          `SELECT (SELECT count(*) FROM click_segments) AS segments, (SELECT count(*) FROM click_blocks) AS blocks,
             (SELECT sum(count) FROM click_blocks) AS clicks, (SELECT count(*) FROM click_tail) AS tail`,
        )
        .get()!,
  );
  expect(sealed.segments).toBeGreaterThan(2);
  expect(sealed.tail).toBeGreaterThan(20);
  expect(sealed.clicks + sealed.tail).toBeGreaterThan(200);
});

const TABLE_LINES = [
  /^accounts: 1 rows on both sides$/,
  /^api_keys: 1 rows on both sides$/,
  /^audit_log: \d+ rows on both sides, every row equal$/,
  /^projects: 1 rows on both sides$/,
  /^domains: 2 rows on both sides, every row equal$/,
  /^links: 4 rows on both sides$/,
  /^click_targets: \d+ rows on both sides$/,
  /^import_items: \d+ rows on both sides$/,
  /^import_links: \d+ rows on both sides$/,
  /^import_runs: \d+ rows on both sides$/,
  /^imported_days: \d+ rows on both sides$/,
  /^invites: 1 rows on both sides$/,
  /^link_counters: 4 rows on both sides, every link's counters equal$/,
  /^link_tags: 2 rows on both sides$/,
  /^rollup_marks: \d+ rows on both sides$/,
  /^rollup_values: \d+ rows on both sides$/,
  /^sessions: 1 rows on both sides$/,
  /^variants: 2 rows on both sides, every click count equal$/,
  /^visitor_salts: [12] rows on both sides$/,
  /^webhooks: 0 rows on both sides, every row equal$/,
  /^webhook_deliveries: 0 rows on both sides, every row equal$/,
  /^webhook_attempts: 0 rows on both sides, every row equal$/,
  /^webhook_events: \d+ rows on both sides, every row equal$/,
  /^rollups: \d+ hour buckets on both sides, \d+ buckets in all, every day complete$/,
  /^click_segments: \d+ rows on both sides$/,
  /^click_blocks: \d+ rows on both sides \(\d+ sealed raw clicks\)$/,
  /^click_tail: \d+ rows on both sides \(raw clicks not sealed yet\)$/,
  /^click_uniques: \d+ rows on both sides \(today's and yesterday's first visits\)$/,
  /^statistics: 3 links and the workspace: daily clicks, uniques, breakdowns and raw clicks equal$/,
];

function expectVerification(stdout: string): void {
  const lines = stdout.trimEnd().split('\n');
  expect(lines.length).toBe(TABLE_LINES.length);
  for (const [i, line] of lines.entries()) expect(line).toMatch(TABLE_LINES[i]!);
  expect(stdout).toContain(`click_segments: ${sealed.segments} rows on both sides\n`);
  expect(stdout).toContain(`click_blocks: ${sealed.blocks} rows on both sides (${sealed.clicks} sealed raw clicks)\n`);
  expect(stdout).toContain(`click_tail: ${sealed.tail} rows on both sides`);
}

/**
 * Starts a copy of `db` into `url` and kills it with -9 in the middle of the raw clicks: the
 * chunk of the segment reaching into yesterday writes click_uniques, which the test holds
 * locked, so the copy stops there after the chunks of older segments have committed.
 */
async function killMidCopy(url: string, db: string): Promise<void> {
  const sql = new SQL(url, { max: 2 });
  const holder = await sql.reserve();
  await holder`BEGIN`;
  await holder`LOCK TABLE click_uniques IN EXCLUSIVE MODE`;
  const proc = Bun.spawn([BUN, 'run', 'src/index.ts', 'copy-to', url, '--batch', '20'], {
    cwd: ROOT,
    env: cleanEnv({ SLINK_DB: db }),
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const stderr = new Response(proc.stderr).text();
  // Whatever waits for a lock is the copy (nothing else uses this database).
  let waiting: string[] = [];
  while (waiting.length === 0 && proc.exitCode === null) {
    await Bun.sleep(20);
    waiting = (await sql`SELECT query FROM pg_stat_activity WHERE wait_event_type = 'Lock'`).map(
      (r: { query: string }) => r.query.split('(')[0]!.trim(),
    );
  }
  proc.kill(9);
  await proc.exited;
  await holder`ROLLBACK`;
  holder.release();
  const firstErr = await stderr;
  outputs.push(firstErr);
  expect(waiting).toEqual(['INSERT INTO click_uniques']);
  expect(firstErr.split('\n').slice(0, 2)).toEqual([
    `copy-to: copying ${db} into ${redacted(url)}`,
    'copy-to: accounts 0/1 rows (0%)',
  ]);
  const [state] = await sql`SELECT step, position FROM slink_copy_to`;
  const [copied] = await sql`SELECT count(*) AS n FROM click_blocks`;
  await sql.close();
  expect(state.step).toBe('click_blocks');
  expect(Number(state.position)).toBeGreaterThan(0);
  expect(Number(copied.n)).toBeGreaterThan(0);
  expect(Number(copied.n)).toBeLessThan(sealed.blocks);
}

describe('slink copy-to', () => {
  test('copies everything; the real app on PostgreSQL then answers what the SQLite one did, and goes on counting', async () => {
    const url = withPassword(await freshPostgresUrl());
    const r = await copyTo(url);
    expect({ code: r.code, stderrStart: r.stderr.split('\n').slice(0, 2) }).toEqual({
      code: 0,
      stderrStart: [`copy-to: copying ${source} into ${redacted(url)}`, 'copy-to: accounts 0/1 rows (0%)'],
    });
    expectVerification(r.stdout);

    const t = await makeTestApp({ SLINK_TRUST_PROXY: '1' }, { engine: 'postgres', postgresUrl: url });
    t.clock.set(Date.now());
    try {
      expect(await apiAnswers(t)).toEqual(answers);
      // Today's visitor of /docs again: a click, not a new unique (salts and uniques came along).
      const before = (await api(t, 'GET', `/links/${linkIds[1]}`, { key })).body;
      await visit(t, [{ path: '/docs', ip: PLACES.london, ua: UA.chromeWin }]);
      const after = (await api(t, 'GET', `/links/${linkIds[1]}`, { key })).body;
      expect({ clicks: after.clickCount - before.clickCount, uniques: after.uniqueCount - before.uniqueCount }).toEqual(
        {
          clicks: 1,
          uniques: 0,
        },
      );
      // Its id follows every copied one.
      const sql = new SQL(url, { max: 1 });
      const [ids] = await sql`SELECT count(*) AS n, count(DISTINCT id) AS d, min(id) AS lo,
        (SELECT sum(count) FROM click_blocks) AS sealed, (SELECT max(last_id) FROM click_blocks) AS last FROM click_tail`;
      expect({ n: Number(ids.n), d: Number(ids.d), sealed: Number(ids.sealed) }).toEqual({
        n: sealed.tail + 1,
        d: sealed.tail + 1,
        sealed: sealed.clicks,
      });
      expect(Number(ids.lo)).toBeGreaterThan(Number(ids.last));
      // The PostgreSQL sealer goes on after SQLite's blocks: its segment is numbered after theirs,
      // and every raw click still reads the same.
      const horizon = (await takeHorizon(sql))!;
      expect(horizon).toBe(await lastClickIdPg(sql));
      expect(await sealSegmentPg(sql, horizon, { minRows: 1, maxRows: 1_000_000 })).toBe(sealed.tail + 1);
      const [resealed] =
        await sql`SELECT (SELECT count(*) FROM click_tail) AS tail, max(seg) AS seg FROM click_segments`;
      await sql.close();
      expect({ tail: Number(resealed.tail), seg: Number(resealed.seg) }).toEqual({ tail: 0, seg: sealed.segments + 1 });
      const now = await apiAnswers(t);
      // The click made on PostgreSQL comes first in its link's list; the rest are the source's.
      expect(now.clicks[1]!.shift()!.timestamp).toBe(t.clock.now());
      expect(now.clicks).toEqual(answers.clicks);
      expect(answers.domain).toMatchObject({ host: DOMAIN, default: false, linkCount: 1, ...DOMAIN_SETTINGS });
      // The copied app answers on that domain from its own links and settings.
      expect(await onHost(t, DOMAIN, '/docs')).toEqual({ status: 302, location: 'https://example.com/on-domain' });
      expect(await onHost(t, DOMAIN, '/')).toEqual({ status: 302, location: DOMAIN_SETTINGS.rootUrl });
      expect(await onHost(t, DOMAIN, '/talk-2026')).toEqual({ status: 302, location: DOMAIN_SETTINGS.notFoundUrl });
      const wellKnown = await t.app.handle(new Request(`http://${DOMAIN}/.well-known/assetlinks.json`));
      expect({ status: wellKnown.status, body: await wellKnown.json() }).toEqual({
        status: 200,
        body: DOMAIN_SETTINGS.assetLinks,
      });
    } finally {
      await t.close();
    }

    // Copied once: a second run is refused.
    const again = await copyTo(url);
    expect({ code: again.code, stdout: again.stdout, stderr: again.stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: `slink: the target already holds a finished copy of ${source}: copy into an empty database\n`,
    });
  }, 120_000);

  test('refuses a database that already holds data, and changes nothing in it', async () => {
    const url = withPassword(await freshPostgresUrl());
    const sql = new SQL(url, { max: 1 });
    await sql`INSERT INTO projects (id, name, created_at, updated_at) VALUES ('prj_x', 'Theirs', 1, 1)`;
    const r = await copyTo(url);
    const [n] = await sql`SELECT (SELECT count(*) FROM projects) AS p, (SELECT count(*) FROM links) AS l`;
    await sql.close();
    expect({ code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({
      code: 1,
      stdout: '',
      stderr: 'slink: the target database is not empty (table projects has rows): copy into an empty database\n',
    });
    expect({ p: Number(n.p), l: Number(n.l) }).toEqual({ p: 1, l: 0 });
  }, 60_000);

  test('killed with -9 in the middle of the raw clicks, a second run resumes there and verifies', async () => {
    const url = withPassword(await freshPostgresUrl());
    await killMidCopy(url, source);
    const r = await copyTo(url, ['--batch', '20']);
    expect({ code: r.code, first: r.stderr.split('\n')[1] }).toEqual({
      code: 0,
      first: `copy-to: resuming the interrupted copy of ${source} at click_blocks`,
    });
    expectVerification(r.stdout);
  }, 120_000);

  test('a re-run after the file changed starts over, and copies the file as it is now', async () => {
    const url = withPassword(await freshPostgresUrl());
    const changed = join(tempDir(), 'slink.db');
    copyFileSync(source, changed);
    await killMidCopy(url, changed);
    const added = await slink(changed, ['user', 'add', 'later@example.com', '--password', 'correct horse battery']);
    expect(added.code).toBe(0);
    // With SLINK_DATABASE_URL already set to the target, as an operator moving over might have it:
    // the source is still the SQLite file at SLINK_DB.
    const r = await slink(changed, ['copy-to', url], { env: { SLINK_DATABASE_URL: url } });
    outputs.push(r.stdout, r.stderr);
    expect({ code: r.code, first: r.stderr.split('\n')[1] }).toEqual({
      code: 0,
      first: `copy-to: ${changed} changed since the interrupted copy: starting over`,
    });
    expect(r.stdout.split('\n')[0]).toBe('accounts: 2 rows on both sides');
    expect(r.stdout).toContain(
      `click_blocks: ${sealed.blocks} rows on both sides (${sealed.clicks} sealed raw clicks)`,
    );
  }, 120_000);

  test('a missing file, a bad URL and a bad --batch are refused before anything is written', async () => {
    const url = withPassword(await freshPostgresUrl());
    const missing = join(tempDir(), 'none.db');
    const r1 = await slink(missing, ['copy-to', url]);
    const r2 = await copyTo('mysql://u:pw@localhost/db');
    const r3 = await copyTo(url, ['--batch', '0']);
    outputs.push(r1.stdout, r1.stderr);
    expect([r1, r2, r3].map((r) => ({ code: r.code, stdout: r.stdout, stderr: r.stderr }))).toEqual([
      { code: 1, stdout: '', stderr: `slink: ${missing} does not exist: set SLINK_DB to the database to copy\n` },
      { code: 2, stdout: '', stderr: 'slink: copy-to needs a postgres:// URL\n' },
      { code: 2, stdout: '', stderr: 'slink: --batch must be a whole number from 1 to 1000000\n' },
    ]);
    expect(existsSync(missing)).toBe(false);
  }, 60_000);

  test('the password in the URL was never printed, on any run above', () => {
    expect(outputs.length).toBeGreaterThan(10);
    expect(outputs.filter((text) => text.includes(PASSWORD))).toEqual([]);
    // Not for want of naming the URL: every copy names it, without its password.
    expect(outputs.some((text) => text.includes(':***@127.0.0.1'))).toBe(true);
  });
});
