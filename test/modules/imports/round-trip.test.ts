/**
 * The export's round trip through real HTTP: a SQLite workspace exported, imported into a
 * PostgreSQL one by the `slink` source reading the first's GET /export, exported again and
 * imported into a new SQLite one. The last answers the same links (every field a Link has but
 * its id, its project's id and what the export never carries), the same counts, unique visitors
 * included (a click line says whether it was a first visit of its day), and the same statistics
 * as the first, imported daily counts (a Bitly import's, which no raw click holds) included.
 * So do the counts no raw click holds (a Kutt total, with and without clicks after it, raw
 * clicks the first's retention removed): the export carries them as `countedOnly`, set once
 * beside the visits (a second run adds nothing); like any total, they are in no statistics.
 * Variants and a busier workspace: e2e-round-trip.test.ts.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createApiKey } from '../../../src/modules/auth/keys';
import { startBitlyFake } from '../../fakes/bitly';
import { startKuttFake } from '../../fakes/kutt';
import { api, disposeTestApp, makeAccount, makeTestApp, T0, type TestApp } from '../../helpers/app';
import { clickRequest, flushOk, UA } from '../clicks/support';
import { ended } from './support';

const ENV = { SLINK_TRUST_PROXY: '1', SLINK_UPSTREAM_ALLOW_PRIVATE: '1' };

interface Side {
  t: TestApp;
  key: string;
  origin: string;
}

async function side(engine: 'sqlite' | 'postgres', env: Record<string, string> = {}): Promise<Side> {
  const t = await makeTestApp({ ...ENV, ...env }, { engine });
  t.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false });
  const account = await makeAccount(t, { role: 'admin' });
  const key = (await createApiKey(t.deps, { accountId: account.id, scope: 'write' })).key;
  return { t, key, origin: `http://127.0.0.1:${t.app.server!.port}` };
}

const sides: Side[] = [];
// A link whose history came from Bitly as daily counts, in the range the statistics compare.
const bitly = startBitlyFake({
  groups: [
    {
      guid: 'Bg1',
      links: [
        {
          id: 'go.rt.test/rt-daily',
          long_url: 'https://example.com/daily',
          created_at: '2026-11-01T00:00:00+0000',
          clicks: { '2026-11-20': 4, '2026-11-21': 3 },
        },
      ],
    },
  ],
});
// Links whose history came from Kutt as a total: one clicked here afterwards.
const kutt = startKuttFake({
  links: [
    {
      id: 'k-total',
      address: 'rt-total',
      target: 'https://example.com/t',
      visit_count: 5,
      created_at: '2026-10-01T00:00:00Z',
    },
    {
      id: 'k-more',
      address: 'rt-total-more',
      target: 'https://example.com/tm',
      visit_count: 7,
      created_at: '2026-10-02T00:00:00Z',
    },
  ],
});
afterAll(async () => {
  bitly.stop();
  kutt.stop();
  for (const s of sides) await disposeTestApp(s.t);
});

let first: Side;
beforeAll(async () => {
  // Raw clicks older than 30 days are not kept (nor exported): rt-old's first three.
  first = await side('sqlite', { SLINK_RETENTION_DAYS: '30' });
  sides.push(first);
  const { t, key } = first;
  const project = await api(t, 'POST', '/projects', { key, body: { name: 'Launch' } });
  const domain = await api(t, 'POST', '/domains', {
    key,
    body: { origin: 'https://go.rt.test', rootUrl: 'https://example.com/home' },
  });
  expect(domain.status).toBe(201);
  const made = [
    { slug: 'rt-plain', destination: 'https://example.com/a?utm_source=news', tags: ['x', 'y'], title: 'Plain' },
    { slug: 'rt-project', destination: 'https://example.com/b', projectId: project.body.id, params: { ref: 'rt' } },
    { slug: 'rt-options', destination: 'https://example.com/c', redirectStatus: 301, forwardQuery: true },
    {
      slug: 'rt-limited',
      destination: 'https://example.com/d',
      clickLimit: 50,
      fallbackUrl: 'https://example.com/gone',
    },
    { slug: 'rt-expires', destination: 'https://example.com/e', expiresAt: T0 + 86_400_000 * 30 },
    // On a domain of its own, with rules and a preview; and one asking for a password.
    {
      slug: 'rt-rules',
      domain: 'go.rt.test',
      destination: 'https://example.com/r',
      rules: [{ when: { country: ['FR'] }, destination: 'https://example.com/fr?utm_source=rule' }],
      preview: { title: 'Round trip', description: 'Shown to crawlers' },
    },
    { slug: 'rt-secret', destination: 'https://example.com/s', password: 'open sesame 42' },
  ];
  for (const body of made) expect((await api(t, 'POST', '/links', { key, body })).status).toBe(201);
  const daily = await api(t, 'POST', '/imports', {
    key,
    body: { source: 'bitly', url: bitly.url, token: bitly.token },
  });
  expect(daily.status).toBe(202);
  const dailyRun = await ended(async () => (await api(t, 'GET', `/imports/${daily.body.id}`, { key })).body);
  expect(dailyRun).toMatchObject({ status: 'done', links: { created: 1 }, clicks: { imported: 7 } });
  const totals = await api(t, 'POST', '/imports', { key, body: { source: 'kutt', url: kutt.url, token: kutt.apiKey } });
  expect(totals.status).toBe(202);
  const totalsRun = await ended(async () => (await api(t, 'GET', `/imports/${totals.body.id}`, { key })).body);
  expect(totalsRun).toMatchObject({ status: 'done', links: { created: 2 }, clicks: { imported: 12 } });
  // Two humans and a bot 40 days ago, past the retained window: counted, never exported.
  expect(
    (await api(t, 'POST', '/links', { key, body: { slug: 'rt-old', destination: 'https://example.com/o' } })).status,
  ).toBe(201);
  const now = t.clock.now();
  for (const [ua, ip] of [
    [UA.chromeWin, '81.2.69.142'],
    [UA.safariIphone, '89.160.20.112'],
    [UA.googlebot, '216.160.83.56'],
  ] as const) {
    t.clock.set(now - 40 * 86_400_000);
    await (await t.app.handle(clickRequest('/rt-old', { ua, ip }))).arrayBuffer();
  }
  t.clock.set(now);
  await flushOk(t);
  const paused = await api(t, 'POST', '/links', {
    key,
    body: { slug: 'rt-paused', destination: 'https://example.com/p' },
  });
  // Clicks of every kind the statistics break down: agents, places, referrers, a bot.
  const clicks: [string, Parameters<typeof clickRequest>[1]][] = [
    ['/rt-plain', { ua: UA.chromeWin, ip: '81.2.69.142', referer: 'https://news.example.org/post' }],
    ['/rt-plain', { ua: UA.chromeWin, ip: '81.2.69.142' }],
    ['/rt-plain', { ua: UA.safariIphone, ip: '89.160.20.112', referer: 'https://www.google.com/' }],
    ['/rt-project', { ua: UA.firefoxLinux, ip: '216.160.83.56' }],
    ['/rt-project', { ua: UA.googlebot, ip: '216.160.83.56' }],
    ['/rt-options', { ua: UA.chromeAndroid, ip: '2.125.160.216' }],
    ['/rt-limited', { ua: UA.chromeWin, ip: '175.16.199.1' }],
    ['/rt-paused', { ua: UA.chromeWin, ip: '81.2.69.142' }],
    // Beside its imported daily counts, a raw click.
    ['https://go.rt.test/rt-daily', { ua: UA.firefoxLinux, ip: '89.160.20.112' }],
    // Beside its total, a human and a bot; and a click within the retained window.
    ['/rt-total-more', { ua: UA.chromeWin, ip: '81.2.69.142' }],
    ['/rt-total-more', { ua: UA.googlebot, ip: '216.160.83.56' }],
    ['/rt-old', { ua: UA.firefoxLinux, ip: '2.125.160.216' }],
  ];
  for (const [path, o] of clicks) {
    t.clock.advance(60_000);
    const res = await t.app.handle(
      path.startsWith('https:') ? clickRequest(new URL(path).pathname, o, new URL(path).origin) : clickRequest(path, o),
    );
    await res.arrayBuffer();
  }
  await flushOk(t);
  expect((await api(t, 'PATCH', `/links/${paused.body.id}`, { key, body: { status: 'paused' } })).status).toBe(200);
});

/** Imports `from`'s export into `to` through the API, and waits for the run to end. */
async function importInto(to: Side, from: Side) {
  const started = await api(to.t, 'POST', '/imports', {
    key: to.key,
    body: { source: 'slink', url: from.origin, token: from.key },
  });
  expect({ status: started.status, body: started.body }).toEqual({ status: 202, body: { id: expect.any(String) } });
  return ended(async () => (await api(to.t, 'GET', `/imports/${started.body.id}`, { key: to.key })).body);
}

async function exportedLinks(s: Side): Promise<Record<string, any>[]> {
  const res = await fetch(`${s.origin}/api/v1/export`, { headers: { authorization: `Bearer ${s.key}` } });
  const lines = (await res.text())
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  return lines.filter((l) => l.type === 'link');
}

/** What the export with clicks carries beside the click lines (imported daily counts, counts no line holds), by slug. */
async function carriedOf(s: Side): Promise<Record<string, unknown>> {
  const res = await fetch(`${s.origin}/api/v1/export?clicks=1`, { headers: { authorization: `Bearer ${s.key}` } });
  const lines = (await res.text())
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l));
  return Object.fromEntries(
    lines
      .filter((l) => l.importedDays !== undefined || l.countedOnly !== undefined)
      .map(({ slug, importedDays, countedOnly }) => [slug, { importedDays, countedOnly }]),
  );
}

async function linksOf(s: Side): Promise<Record<string, any>[]> {
  return (await exportedLinks(s))
    .map(({ type: _, id: __, projectId: ___, updatedAt: ____, imported: _____, ...link }) => link)
    .sort((a, b) => (a.slug < b.slug ? -1 : 1));
}

const RANGE = `from=${T0 - 86_400_000}&to=${T0 + 86_400_000}`;
const CARRIED = [
  'country',
  'city',
  'device',
  'os',
  'browser',
  'referrer',
  'trafficType',
  'utmSource',
  'params',
  'language',
  'variant',
];

async function statsOf(s: Side) {
  const out: Record<string, unknown> = {};
  const links = await exportedLinks(s);
  for (const link of links) {
    const res = await api(s.t, 'GET', `/links/${link.id}/stats?${RANGE}&bots=1`, { key: s.key });
    expect(res.status).toBe(200);
    const stats = res.body;
    out[link.slug] = {
      totals: { clicks: stats.totals.clicks, uniques: stats.totals.uniques, bots: stats.totals.bots },
      series: stats.series.map((b: any) => [b.t, b.clicks, b.uniques]),
      breakdowns: Object.fromEntries(CARRIED.map((d) => [d, stats.breakdowns[d]])),
    };
  }
  const workspace = (await api(s.t, 'GET', `/workspace/stats?${RANGE}`, { key: s.key })).body;
  out.workspace = {
    clicks: workspace.totals.clicks,
    uniques: workspace.totals.uniques,
    bots: workspace.totals.bots,
  };
  return out;
}

test('SQLite -> export -> PostgreSQL -> export -> SQLite answers the same links, counts and statistics', async () => {
  const middle = await side('postgres');
  sides.push(middle);
  const there = await importInto(middle, first);
  expect(there).toMatchObject({ status: 'done', links: { seen: 12, created: 12, skipped: 0, failed: 0 }, errors: [] });
  // 12 raw clicks, 7 as daily counts, and 15 counted only (5 and 7 of Kutt's totals, rt-old's 3).
  expect(there.clicks.imported).toBe(34);
  const last = await side('sqlite');
  sides.push(last);
  const back = await importInto(last, middle);
  expect(back).toMatchObject({ status: 'done', links: { seen: 12, created: 12, skipped: 0, failed: 0 }, errors: [] });

  const original = await linksOf(first);
  expect(original.map((l) => l.slug)).toEqual([
    'rt-daily',
    'rt-expires',
    'rt-limited',
    'rt-old',
    'rt-options',
    'rt-paused',
    'rt-plain',
    'rt-project',
    'rt-rules',
    'rt-secret',
    'rt-total',
    'rt-total-more',
  ]);
  // What is compared holds them: the domain, rules, preview and the password's hash.
  expect(original.find((l) => l.slug === 'rt-rules')).toMatchObject({
    domain: 'go.rt.test',
    shortUrl: 'https://go.rt.test/rt-rules',
    rules: [{ when: { country: ['FR'] }, destination: 'https://example.com/fr', params: { utm_source: 'rule' } }],
    preview: { title: 'Round trip', description: 'Shown to crawlers' },
  });
  expect(original.find((l) => l.slug === 'rt-secret')).toMatchObject({
    passwordProtected: true,
    passwordHash: expect.stringMatching(/^\$argon2id\$/),
  });
  expect(original.find((l) => l.slug === 'rt-plain')).toMatchObject({ clickCount: 3, uniqueCount: 2 });
  // Its imported daily counts and its raw click, in its count and carried by the export.
  expect(original.find((l) => l.slug === 'rt-daily')).toMatchObject({ clickCount: 8, uniqueCount: 1 });
  // A total, a total and clicks after it, and clicks past the retained window: counted, not in the lines.
  expect(original.find((l) => l.slug === 'rt-total')).toMatchObject({ clickCount: 5, uniqueCount: 0, botCount: 0 });
  expect(original.find((l) => l.slug === 'rt-total-more')).toMatchObject({
    clickCount: 8,
    uniqueCount: 1,
    botCount: 1,
  });
  expect(original.find((l) => l.slug === 'rt-old')).toMatchObject({ clickCount: 3, uniqueCount: 3, botCount: 1 });
  const carried = {
    'rt-daily': {
      importedDays: [
        { day: '2026-11-20', clicks: 4 },
        { day: '2026-11-21', clicks: 3 },
      ],
    },
    'rt-total': { countedOnly: { clicks: 5, uniques: 0, bots: 0 } },
    'rt-total-more': { countedOnly: { clicks: 7, uniques: 0, bots: 0 } },
    'rt-old': { countedOnly: { clicks: 2, uniques: 2, bots: 1 } },
  };
  expect(await carriedOf(first)).toEqual(carried);
  expect(await carriedOf(middle)).toEqual(carried);
  expect(await carriedOf(last)).toEqual(carried);
  expect(await linksOf(middle)).toEqual(original);
  expect(await linksOf(last)).toEqual(original);
  const stats = await statsOf(first);
  // What is compared holds something: clicks of each kind, places, agents and referrers.
  // rt-plain: two visitors, one of them twice.
  expect(stats['rt-plain']).toMatchObject({ totals: { clicks: 3, uniques: 2, bots: 0 } });
  // With bots=1 the totals count the bot hit among the clicks too.
  expect(stats['rt-project']).toMatchObject({ totals: { clicks: 2, uniques: 1, bots: 1 } });
  // rt-daily: its raw click and its imported day in the range (2026-11-21's 3; the 20th is before it).
  expect(stats['rt-daily']).toMatchObject({ totals: { clicks: 4, uniques: 1, bots: 0 } });
  expect(stats.workspace).toEqual({ clicks: 13, uniques: 9, bots: 2 });
  const plain = stats['rt-plain'] as { breakdowns: Record<string, { value: string }[]> };
  for (const d of ['country', 'device', 'browser', 'referrer', 'utmSource'])
    expect({ d, some: plain.breakdowns[d]!.some((v) => v.value !== null) }).toEqual({ d, some: true });
  // Counted only: in no statistics, as any total.
  expect(stats['rt-total']).toMatchObject({ totals: { clicks: 0, uniques: 0, bots: 0 } });
  expect(stats['rt-total-more']).toMatchObject({ totals: { clicks: 2, uniques: 1, bots: 1 } });
  expect(stats['rt-old']).toMatchObject({ totals: { clicks: 1, uniques: 1, bots: 0 } });
  expect(await statsOf(middle)).toEqual(stats);
  expect(await statsOf(last)).toEqual(stats);
  // Run again, the same export adds nothing: its counts are set once.
  const again = await importInto(last, middle);
  expect(again).toMatchObject({ status: 'done', links: { seen: 12, created: 0 }, clicks: { imported: 0 } });
  expect(await linksOf(last)).toEqual(original);
  expect(await statsOf(last)).toEqual(stats);
  // The domain was made with its settings, and the password still opens the link.
  const domains = (await api(last.t, 'GET', '/domains', { key: last.key })).body.domains;
  expect(domains.find((d: any) => d.host === 'go.rt.test')).toMatchObject({
    origin: 'https://go.rt.test',
    rootUrl: 'https://example.com/home',
  });
  const opened = await last.t.app.handle(
    new Request('https://sl.test/rt-secret', { headers: { 'x-slink-password': 'open sesame 42' } }),
  );
  expect({ status: opened.status, location: opened.headers.get('location') }).toEqual({
    status: 302,
    location: 'https://example.com/s',
  });
  // The project came along by name.
  const projects = (await api(last.t, 'GET', '/projects', { key: last.key })).body;
  expect(JSON.stringify(projects)).toContain('"name":"Launch"');
}, 60_000);
