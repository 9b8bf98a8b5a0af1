/**
 * The export round trip, as an operator moving between engines does it: a SQLite Slink with
 * real traffic (variants, UTM parameters, a dozen countries, devices, referrers and bots, over
 * two weeks, through the real redirect) is read by a PostgreSQL Slink's `slink` import (its
 * GET /api/v1/export?clicks=1 over real HTTP), whose export, uploaded as a file, is read in turn
 * by a fresh SQLite Slink.
 * All three answer the same links, counts and statistics.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';
import { seedBusyWorkspace } from '../../helpers/stats-seed';
import { ended } from './support';

interface Instance {
  t: TestApp;
  key: string;
  origin: string;
}

const instances: Instance[] = [];

async function instance(engine: 'sqlite' | 'postgres'): Promise<Instance> {
  const t = await makeTestApp({ SLINK_TRUST_PROXY: '1', SLINK_UPSTREAM_ALLOW_PRIVATE: '1' }, { engine });
  t.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false });
  const key = (await makeKey(t, 'write', { superuser: true })).key;
  const made = { t, key, origin: `http://127.0.0.1:${t.app.server!.port}` };
  instances.push(made);
  return made;
}

let origin: Instance;
let viaPostgres: Instance;
let back: Instance;

/**
 * `to` imports `from`'s export through the API: reading `from` at its address, or (`upload`) a
 * file of GET /api/v1/export?clicks=1 sent as a multipart form. The run must end done, no skip.
 */
async function importFrom(to: Instance, from: Instance, links: number, upload = false) {
  let res: Response;
  if (upload) {
    const exported = await fetch(`${from.origin}/api/v1/export?clicks=1`, {
      headers: { authorization: `Bearer ${from.key}` },
    });
    expect(exported.status).toBe(200);
    const form = new FormData();
    form.set('source', 'slink');
    form.set('file', new File([await exported.arrayBuffer()], 'export.ndjson', { type: 'application/x-ndjson' }));
    res = await fetch(`${to.origin}/api/v1/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${to.key}` },
      body: form,
    });
  } else {
    res = await fetch(`${to.origin}/api/v1/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${to.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ source: 'slink', url: from.origin, token: from.key }),
    });
  }
  expect(res.status).toBe(202);
  const { id } = (await res.json()) as { id: string };
  const final = await ended(() => apiExpecting(to.t, to.key, 'GET', `/imports/${id}`));
  expect(final).toMatchObject({
    status: 'done',
    links: { seen: links, created: links, skipped: 0, failed: 0 },
    errors: [],
  });
  return final;
}

beforeAll(async () => {
  origin = await instance('sqlite');
  await seedBusyWorkspace(origin.t, origin.key);
  viaPostgres = await instance('postgres');
  back = await instance('sqlite');
}, 60_000);
afterAll(async () => {
  for (const i of instances) await disposeTestApp(i.t);
});

/**
 * What a user compares: every link as listed (without what only the instance knows), by slug.
 * Unique visitors included: an export's click says whether it was a first visit of its day.
 */
async function linksOf(i: Instance) {
  const list = await apiExpecting(i.t, i.key, 'GET', '/links?limit=100');
  return Object.fromEntries(
    (list.items as Record<string, any>[]).map((l) => [
      l.slug,
      {
        shortUrl: l.shortUrl,
        destination: l.destination,
        params: l.params,
        title: l.title,
        tags: l.tags,
        status: l.status,
        expiresAt: l.expiresAt,
        clickLimit: l.clickLimit,
        createdAt: l.createdAt,
        clickCount: l.clickCount,
        uniqueCount: l.uniqueCount,
        botCount: l.botCount,
        lastClickedAt: l.lastClickedAt,
        // By code: made in the same instant, their ids (new here) order them.
        variants: (l.variants as Record<string, any>[])
          .map((v) => ({ code: v.code, url: v.url, params: v.params, clickCount: v.clickCount }))
          .sort((a, b) => (a.code < b.code ? -1 : 1)),
      },
    ]),
  );
}

/** Each link's statistics over the seeded fortnight, humans and with bots, and the workspace's. */
async function statsOf(i: Instance) {
  const list = await apiExpecting(i.t, i.key, 'GET', '/links?limit=100');
  const out: Record<string, unknown> = {};
  const range = 'from=2026-11-01&to=2026-11-30';
  for (const l of list.items as { id: string; slug: string }[]) {
    for (const bots of ['0', '1']) {
      const s = await apiExpecting(i.t, i.key, 'GET', `/links/${l.id}/stats?${range}&bots=${bots}`);
      out[`${l.slug} bots=${bots}`] = {
        totals: s.totals,
        series: s.series,
        breakdowns: s.breakdowns,
      };
    }
  }
  const w = await apiExpecting(i.t, i.key, 'GET', `/workspace/stats?${range}`);
  out.workspace = { totals: w.totals, series: w.series };
  return out;
}

test('SQLite → PostgreSQL → SQLite answers the same links, counts and statistics', async () => {
  const links = await linksOf(origin);
  expect(Object.keys(links).sort()).toEqual(['docs', 'spring-sale', 'talk-2026']);
  const clicks = Object.values(links).reduce((n: number, l: any) => n + l.clickCount + l.botCount, 0);
  expect(clicks).toBeGreaterThan(100);
  // Uniques to carry: fewer than the human clicks (visitors came back), but some.
  const uniques = Object.values(links).reduce((n: number, l: any) => n + l.uniqueCount, 0);
  expect(uniques).toBeGreaterThan(0);
  expect(uniques).toBeLessThan(Object.values(links).reduce((n: number, l: any) => n + l.clickCount, 0));
  const stats = await statsOf(origin);

  const first = await importFrom(viaPostgres, origin, 3);
  expect(first.clicks.imported).toBe(clicks);
  expect(await linksOf(viaPostgres)).toEqual(links);
  expect(await statsOf(viaPostgres)).toEqual(stats);

  const second = await importFrom(back, viaPostgres, 3, true);
  expect(second.clicks.imported).toBe(clicks);
  expect(await linksOf(back)).toEqual(links);
  expect(await statsOf(back)).toEqual(stats);
}, 60_000);
