/**
 * Links on several short domains (docs/behaviour.md, "Links on a domain"), through the real app
 * on each engine: the Link's domain on create, bulk create and PATCH (a move keeps the id, clicks
 * and statistics; 409 when the slug is taken there; a superuser's right), slugs unique per domain,
 * the list and count filters, the click record's domain (clicks list, CSV, webhooks' clicks
 * events), the workspace statistics of a domain, QR codes, variants' URLs and deleted-link events
 * on the domain's origin, every domain's host refused as a destination. One app per engine; each
 * test makes its own links, on domains added once through the domains API.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { seedLinks } from '../bench/seed-links';
import { api, apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../helpers/app';
import { engineBlind, forEachEngine } from '../helpers/engines';
import { tool } from '../helpers/proc';
import { expectError } from '../helpers/schema';
import { storedRows } from '../helpers/stored';
import { type ClickOptions, clickRequest, flushOk, UA } from './clicks/support';

const DEFAULT = 'https://sl.test';
const GO = 'https://go.example.com';
/** Added with a port and an internationalised name: its host is punycode, its origin keeps the port. */
const BOOKS = 'https://xn--bcher-kva.example:8443';

interface Received {
  body: any;
}
const received: Received[] = [];
const receiver = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(req) {
    received.push({ body: JSON.parse(await req.text()) });
    return new Response('ok');
  },
});
const workDir = mkdtempSync(join(tmpdir(), 'slink-links-domains-'));
afterAll(() => {
  receiver.stop(true);
  rmSync(workDir, { recursive: true, force: true });
});

let t: TestApp;
let su: string;
let writer: string;

const call = (method: string, path: string, body?: unknown, status?: number) =>
  apiExpecting(t, su, method, path, body, status);

/** One human click through the real redirect on `origin`; answers the status and Location. */
async function visit(origin: string, path: string, o: ClickOptions = {}) {
  const res = await t.app.handle(clickRequest(path, { ua: UA.chromeWin, ...o }, origin));
  await res.arrayBuffer();
  return { status: res.status, location: res.headers.get('location') };
}

forEachEngine((engine) => {
  const blind = engineBlind(engine);
  beforeAll(async () => {
    t = await makeTestApp({ SLINK_WEBHOOKS_ALLOW_PRIVATE: '1', SLINK_TRUST_PROXY: '1' }, { engine });
    su = (await makeKey(t, 'write', { superuser: true })).key;
    writer = (await makeKey(t, 'write')).key;
    received.length = 0;
  });
  afterAll(() => disposeTestApp(t));

  test('with the default domain alone, domain= its host answers exactly the workspace statistics', async () => {
    const link = await call('POST', '/links', { destination: 'https://example.com/alone' });
    expect(link.domain).toBe('sl.test');
    expect((await visit(DEFAULT, `/${link.slug}`, { ip: '203.0.113.1' })).status).toBe(302);
    await flushOk(t);
    const all = await call('GET', '/workspace/stats', undefined, 200);
    expect(all.totals.clicks).toBe(1);
    expect(await call('GET', '/workspace/stats?domain=SL.test', undefined, 200)).toEqual(all);
    expect((await call('GET', '/links/count?domain=sl.test', undefined, 200)).count).toBe(
      (await call('GET', '/links/count', undefined, 200)).count,
    );
    // The domains are added now, for every test below.
    await call('POST', '/domains', { origin: GO });
    await call('POST', '/domains', { origin: 'https://Bücher.example:8443' });
  });

  test('create on a domain: its host in any case, with a port or in Unicode; shortUrl from its origin', async () => {
    const go = await call('POST', '/links', { destination: 'https://example.com/go', domain: 'GO.Example.com:443' });
    expect({ domain: go.domain, shortUrl: go.shortUrl }).toEqual({
      domain: 'go.example.com',
      shortUrl: `${GO}/${go.slug}`,
    });
    const books = await call('POST', '/links', { destination: 'https://example.com/b', domain: 'bücher.example' });
    expect({ domain: books.domain, shortUrl: books.shortUrl }).toEqual({
      domain: 'xn--bcher-kva.example',
      shortUrl: `${BOOKS}/${books.slug}`,
    });
    expect(await call('GET', `/links/${go.id}`, undefined, 200)).toEqual(go);
    const plain = await call('POST', '/links', { destination: 'https://example.com/plain' });
    expect({ domain: plain.domain, shortUrl: plain.shortUrl }).toEqual({
      domain: 'sl.test',
      shortUrl: `${DEFAULT}/${plain.slug}`,
    });
    // It answers on its domain only.
    expect(await visit(GO, `/${go.slug}`)).toEqual({ status: 302, location: 'https://example.com/go' });
    expect((await visit(DEFAULT, `/${go.slug}`)).status).toBe(404);
  });

  test('an unknown domain is 400 invalid_request naming domain, on create, bulk, PATCH and the filters', async () => {
    for (const domain of ['nope.example', 'go.example.com/x', 'user@go.example.com', '', 'x'.repeat(301)]) {
      const res = await api(t, 'POST', '/links', { key: su, body: { destination: 'https://example.com/', domain } });
      expectError(res, 400, 'invalid_request', 'domain');
    }
    const link = await call('POST', '/links', { destination: 'https://example.com/u' });
    expectError(
      await api(t, 'PATCH', `/links/${link.id}`, { key: su, body: { domain: 'nope.example' } }),
      400,
      'invalid_request',
      'domain',
    );
    for (const path of ['/links/bulk/preview', '/links/bulk/create']) {
      const res = await api(t, 'POST', path, {
        key: su,
        body: { text: 'https://example.com/x', domain: 'nope.example' },
      });
      expectError(res, 400, 'invalid_request', 'domain');
    }
    for (const path of [
      '/links?domain=nope.example',
      '/links/count?domain=nope.example',
      '/workspace/stats?domain=no',
    ]) {
      expectError(await api(t, 'GET', path, { key: su }), 400, 'invalid_request', 'domain');
    }
  });

  test('the same slug on two domains is two links; a third on either is 409 conflict (field slug)', async () => {
    const a = await call('POST', '/links', { destination: 'https://example.com/a', slug: 'twice' });
    const b = await call('POST', '/links', {
      destination: 'https://example.com/b',
      slug: 'twice',
      domain: 'go.example.com',
    });
    expect(a.id).not.toBe(b.id);
    expect([a.shortUrl, b.shortUrl]).toEqual([`${DEFAULT}/twice`, `${GO}/twice`]);
    expect((await visit(DEFAULT, '/twice')).location).toBe('https://example.com/a');
    expect((await visit(GO, '/twice')).location).toBe('https://example.com/b');
    for (const domain of [undefined, 'go.example.com']) {
      const res = await api(t, 'POST', '/links', {
        key: su,
        body: { destination: 'https://example.com/c', slug: 'twice', domain },
      });
      expectError(res, 409, 'conflict', 'slug');
    }
    // Renaming into a slug taken on the link's own domain only.
    const other = await call('POST', '/links', {
      destination: 'https://example.com/o',
      slug: 'other-one',
      domain: 'go.example.com',
    });
    expectError(
      await api(t, 'PATCH', `/links/${other.id}`, { key: su, body: { slug: 'twice' } }),
      409,
      'conflict',
      'slug',
    );
  });

  test('a move is 409 (field slug) when its slug is taken there, also with a new slug; nothing changes', async () => {
    const here = await call('POST', '/links', { destination: 'https://example.com/h', slug: 'taken-there' });
    await call('POST', '/links', {
      destination: 'https://example.com/t',
      slug: 'taken-there',
      domain: 'go.example.com',
    });
    await call('POST', '/links', {
      destination: 'https://example.com/t2',
      slug: 'taken-too',
      domain: 'go.example.com',
    });
    for (const body of [{ domain: 'go.example.com' }, { domain: 'go.example.com', slug: 'taken-too' }]) {
      expectError(await api(t, 'PATCH', `/links/${here.id}`, { key: su, body }), 409, 'conflict', 'slug');
    }
    expect(await call('GET', `/links/${here.id}`, undefined, 200)).toEqual(here);
  });

  test('moving needs a superuser, like a slug rename; naming the domain it is on already does not', async () => {
    const link = await call('POST', '/links', { destination: 'https://example.com/r' });
    const res = await api(t, 'PATCH', `/links/${link.id}`, { key: writer, body: { domain: 'go.example.com' } });
    expectError(res, 403, 'superuser_required', 'slug');
    const same = await api(t, 'PATCH', `/links/${link.id}`, {
      key: writer,
      body: { domain: 'SL.TEST', title: 'kept' },
    });
    expect(same.status).toBe(200);
    expect({ domain: same.body.domain, title: same.body.title }).toEqual({ domain: 'sl.test', title: 'kept' });
  });

  test('a move keeps id, clicks and statistics; the old address stops answering, the new one redirects', async () => {
    const link = await call('POST', '/links', { destination: 'https://example.com/move', slug: 'mover' });
    for (const ip of ['203.0.113.10', '203.0.113.11'])
      expect((await visit(DEFAULT, '/mover', { ip })).status).toBe(302);
    await flushOk(t);
    const moved = await call('PATCH', `/links/${link.id}`, { domain: 'go.example.com' }, 200);
    expect(moved).toMatchObject({
      id: link.id,
      slug: 'mover',
      domain: 'go.example.com',
      shortUrl: `${GO}/mover`,
      clickCount: 2,
    });
    expect((await visit(DEFAULT, '/mover')).status).toBe(404);
    expect(await visit(GO, '/mover', { ip: '203.0.113.12' })).toEqual({
      status: 302,
      location: 'https://example.com/move',
    });
    await flushOk(t);
    const stats = await call('GET', `/links/${link.id}/stats`, undefined, 200);
    expect(stats.totals).toEqual({ clicks: 3, uniques: 3, bots: 0, optedOut: 0 });
    // Every click of the link names its domain as it is now.
    const clicks = await call('GET', `/links/${link.id}/clicks`, undefined, 200);
    expect(clicks.items.map((c: any) => [c.slug, c.domain])).toEqual([
      ['mover', 'go.example.com'],
      ['mover', 'go.example.com'],
      ['mover', 'go.example.com'],
    ]);
    // The CSV's last column is the domain.
    const res = await t.app.handle(
      new Request(`http://localhost/api/v1/links/${link.id}/export.csv`, {
        headers: { authorization: `Bearer ${su}` },
      }),
    );
    expect(res.status).toBe(200);
    const records: string[][] = parse(await res.text(), { relaxColumnCount: false });
    expect(records[0]!.slice(-3)).toEqual(['bot', 'rule', 'domain']);
    expect(records.slice(1).map((r) => r[r.length - 1])).toEqual([
      'go.example.com',
      'go.example.com',
      'go.example.com',
    ]);
    // The freed address can be taken on the old domain.
    await call('POST', '/links', { destination: 'https://example.com/new', slug: 'mover' });
  });

  test('GET /links and /links/count filter by domain, with the other filters and every sort', async () => {
    const tag = `tag-${engine}`;
    const made = [];
    for (const domain of ['xn--bcher-kva.example', 'sl.test', 'xn--bcher-kva.example']) {
      made.push(
        await call('POST', '/links', { destination: `https://example.com/${made.length}`, domain, tags: [tag] }),
      );
    }
    const onBooks = made.filter((l) => l.domain === 'xn--bcher-kva.example').map((l) => l.id);
    for (const sort of ['created', 'oldest', 'clicks', 'updated']) {
      const page = await call('GET', `/links?domain=B%C3%BCcher.example&tag=${tag}&sort=${sort}`, undefined, 200);
      expect(page.items.map((l: any) => l.id).sort()).toEqual([...onBooks].sort());
    }
    // Paging through the domain's links one at a time: each once.
    const seen: string[] = [];
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: any = await call(
        'GET',
        `/links?domain=xn--bcher-kva.example&limit=1${cursor ? `&cursor=${cursor}` : ''}`,
        undefined,
        200,
      );
      seen.push(...page.items.map((l: any) => l.id));
      cursor = page.cursor;
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expect.arrayContaining(onBooks));
    const count = await call('GET', '/links/count?domain=xn--bcher-kva.example', undefined, 200);
    expect(count.count).toBe(seen.length);
    expect((await call('GET', `/links/count?domain=sl.test&tag=${tag}`, undefined, 200)).count).toBe(1);
  });

  test('bulk create puts every link on the domain named, slugs drawn there', async () => {
    const body = { text: 'https://example.com/bulk-1\nhttps://example.com/bulk-2', domain: 'go.example.com' };
    const preview = await call('POST', '/links/bulk/preview', body, 200);
    expect(preview.counts.create).toBe(2);
    const created = await call('POST', '/links/bulk/create', body);
    expect(created.created.map((c: any) => [c.link.domain, c.link.shortUrl])).toEqual(
      created.created.map((c: any) => ['go.example.com', `${GO}/${c.link.slug}`]),
    );
    const plain = await call('POST', '/links/bulk/create', { text: 'https://example.com/bulk-3' });
    expect(plain.created[0].link.domain).toBe('sl.test');
  });

  test('a domain deleted between the check and the write: 400 naming domain, nothing written; one with links stays', async () => {
    await call('POST', '/domains', { origin: 'https://gone.example.com' }, 201);
    // Deleted behind the API's back: this process still has it in memory, the write finds it gone.
    await storedRows(t, "DELETE FROM domains WHERE host = 'gone.example.com'");
    const before = (await call('GET', '/links/count', undefined, 200)).count;
    const body = { destination: 'https://example.com/gone', domain: 'gone.example.com' };
    expectError(await api(t, 'POST', '/links', { key: su, body }), 400, 'invalid_request', 'domain');
    const bulk = { text: 'https://example.com/gone-bulk', domain: 'gone.example.com' };
    expectError(await api(t, 'POST', '/links/bulk/create', { key: su, body: bulk }), 400, 'invalid_request', 'domain');
    const link = await call('POST', '/links', { destination: 'https://example.com/stays' });
    const move = await api(t, 'PATCH', `/links/${link.id}`, { key: su, body: { domain: 'gone.example.com' } });
    expectError(move, 400, 'invalid_request', 'domain');
    expect((await call('GET', `/links/${link.id}`, undefined, 200)).domain).toBe('sl.test');
    expect((await call('GET', '/links/count', undefined, 200)).count).toBe(before + 1);
    // The database itself refuses to delete a domain a link is on (a foreign key, triggers on SQLite).
    await expect(storedRows(t, "DELETE FROM domains WHERE host = 'sl.test'")).rejects.toThrow(/domain_id/);
    await t.deps.domains.refresh(() => t.deps.stores.domains.list());
  });

  test("every domain's host is Slink's own: refused as a destination or fallback URL", async () => {
    for (const destination of [`${GO}/x`, 'http://GO.example.com/x', `${BOOKS}/x`, 'https://bücher.example:8443/']) {
      const res = await api(t, 'POST', '/links', { key: su, body: { destination } });
      expectError(res, 400, 'invalid_request', 'destination');
    }
    const res = await api(t, 'POST', '/links', {
      key: su,
      body: { destination: 'https://example.com/', fallbackUrl: `${GO}/gone` },
    });
    expectError(res, 400, 'invalid_request', 'fallbackUrl');
    const bulk = await call('POST', '/links/bulk/preview', { text: `${GO}/y` }, 200);
    expect(bulk.lines[0].status).toBe('invalid');
    // Another port of the same name is another service (links/own-host.ts).
    await call('POST', '/links', { destination: 'https://go.example.com:9999/elsewhere' });
  });

  test("variants' URLs and the deleted-link event's shortUrl are on the link's domain", async () => {
    await call('POST', '/webhooks', { url: `http://127.0.0.1:${receiver.port}/hook`, events: ['link.deleted'] });
    const link = await call('POST', '/links', { destination: 'https://example.com/v', domain: 'go.example.com' });
    const variant = await call('POST', `/links/${link.id}/variants`, { code: 'ig' });
    expect(variant.url).toBe(`${GO}/${link.slug}/ig`);
    expect((await call('GET', `/links/${link.id}`, undefined, 200)).variants[0].url).toBe(`${GO}/${link.slug}/ig`);
    await call('DELETE', `/links/${link.id}`, undefined, 200);
    await t.deps.webhooks.pass();
    await t.deps.webhooks.settled();
    const deleted = received.find((r) => r.body.type === 'link.deleted' && r.body.data.id === link.id);
    expect(deleted?.body.data).toEqual({
      id: link.id,
      slug: link.slug,
      shortUrl: `${GO}/${link.slug}`,
      domain: 'go.example.com',
      projectId: null,
    });
  });

  test("a webhook's clicks events name each click's domain", async () => {
    await call('POST', '/webhooks', { url: `http://127.0.0.1:${receiver.port}/clicks`, events: ['clicks'] });
    const go = await call('POST', '/links', {
      destination: 'https://example.com/wh',
      slug: 'hooked',
      domain: 'go.example.com',
    });
    const here = await call('POST', '/links', { destination: 'https://example.com/wh2', slug: 'hooked' });
    await visit(GO, '/hooked', { ip: '203.0.113.20' });
    await visit(DEFAULT, '/hooked', { ip: '203.0.113.21' });
    await flushOk(t);
    await t.deps.webhooks.pass();
    await t.deps.webhooks.settled();
    const records = received.filter((r) => r.body.type === 'clicks').flatMap((r) => r.body.data.clicks);
    const mine = records.filter((c: any) => c.linkId === go.id || c.linkId === here.id);
    expect(mine.map((c: any) => [c.linkId, c.slug, c.domain, Object.keys(c).at(-1)]).sort()).toEqual(
      [
        [go.id, 'hooked', 'go.example.com', 'domain'],
        [here.id, 'hooked', 'sl.test', 'domain'],
      ].sort(),
    );
  });

  test('workspace statistics of a domain: only the clicks of the links on it now, its topLinks', async () => {
    const before = {
      all: (await call('GET', '/workspace/stats', undefined, 200)).totals.clicks,
      go: (await call('GET', '/workspace/stats?domain=go.example.com', undefined, 200)).totals.clicks,
      here: (await call('GET', '/workspace/stats?domain=sl.test', undefined, 200)).totals.clicks,
      books: (await call('GET', '/workspace/stats?domain=xn--bcher-kva.example', undefined, 200)).totals.clicks,
    };
    expect(before.go + before.here + before.books).toBe(before.all);
    const a = await call('POST', '/links', { destination: 'https://example.com/sa', domain: 'xn--bcher-kva.example' });
    const b = await call('POST', '/links', { destination: 'https://example.com/sb', domain: 'xn--bcher-kva.example' });
    for (let i = 0; i < 3; i++) await visit(BOOKS, `/${a.slug}`, { ip: `203.0.113.${30 + i}` });
    await visit(BOOKS, `/${b.slug}`, { ip: '203.0.113.40', lang: 'de' });
    await visit(BOOKS, `/${b.slug}`, { ua: UA.googlebot });
    await flushOk(t);
    const books = await call('GET', '/workspace/stats?domain=B%C3%BCcher.example', undefined, 200);
    expect(books.totals).toEqual({ clicks: before.books + 4, uniques: before.books + 4, bots: 1, optedOut: 0 });
    expect(books.topLinks.slice(0, 2)).toEqual([
      { id: a.id, slug: a.slug, title: null, clicks: 3 },
      { id: b.id, slug: b.slug, title: null, clicks: 1 },
    ]);
    expect(books.breakdowns.language).toEqual(expect.arrayContaining([{ value: 'de', clicks: 1 }]));
    const withBots = await call('GET', '/workspace/stats?domain=xn--bcher-kva.example&bots=1', undefined, 200);
    expect(withBots.totals.clicks).toBe(before.books + 5);
    const go = await call('GET', '/workspace/stats?domain=go.example.com', undefined, 200);
    expect(go.totals.clicks).toBe(before.go);
    expect(go.topLinks.map((l: any) => l.id)).not.toContain(a.id);
    // The series adds up like the workspace's, and range=all starts at the domain's first click.
    const all = await call('GET', '/workspace/stats?domain=xn--bcher-kva.example&range=all', undefined, 200);
    expect(all.totals.clicks).toBe(books.totals.clicks);
    expect(books.series.reduce((n: number, p: any) => n + p.clicks, 0)).toBe(books.totals.clicks);
    const day = await call('GET', '/workspace/stats?domain=xn--bcher-kva.example&range=24h', undefined, 200);
    expect(day.series.reduce((n: number, p: any) => n + p.clicks, 0)).toBe(day.totals.clicks);
    // A link moved away takes its clicks with it.
    await call('PATCH', `/links/${a.id}`, { domain: 'go.example.com' }, 200);
    const after = await call('GET', '/workspace/stats?domain=xn--bcher-kva.example', undefined, 200);
    expect(after.totals.clicks).toBe(before.books + 1);
    expect((await call('GET', '/workspace/stats?domain=go.example.com', undefined, 200)).totals.clicks).toBe(
      before.go + 3,
    );
  });

  blind("a QR code encodes the link's URL on its domain (read back by a scanner)", async () => {
    const link = await call('POST', '/links', { destination: 'https://example.com/qr', domain: 'go.example.com' });
    await call('POST', `/links/${link.id}/variants`, { code: 'qr' });
    for (const [query, url] of [
      ['', `${GO}/${link.slug}`],
      ['&variant=qr', `${GO}/${link.slug}/qr`],
    ] as const) {
      const res = await api(t, 'GET', `/links/${link.id}/qr.svg?size=256${query}`, { key: su });
      expect(res.status).toBe(200);
      const svg = join(workDir, `qr-${link.id}${query.length}.svg`);
      const png = `${svg}.png`;
      writeFileSync(svg, res.text);
      const raster = await tool(['rsvg-convert', '-w', '256', '-h', '256', '-b', 'white', svg, '-o', png]);
      expect(raster.code).toBe(0);
      const scan = await tool(['zbarimg', '--raw', '-q', png]);
      expect(scan.code).toBe(0);
      expect(scan.stdout.trimEnd()).toBe(url);
    }
  });
});

forEachEngine((engine) => {
  // The SQLite list reads a domain of more than 2,000 links by walking the sort's index (sqlite/store.ts).
  if (engine !== 'sqlite') return;
  let big: TestApp;
  beforeAll(async () => {
    big = await makeTestApp({}, { engine });
  });
  afterAll(() => disposeTestApp(big));

  test('a domain of many links lists in every order, each link once, beside a domain of a few', async () => {
    const key = (await makeKey(big, 'write', { superuser: true })).key;
    await apiExpecting(big, key, 'POST', '/domains', { origin: GO });
    const go = big.deps.domains.byHost('go.example.com')!.id;
    await seedLinks(big.deps, 2300, (i) => ({
      destination: `https://example.com/${i}`,
      domainId: i % 10 === 0 ? undefined : go,
    }));
    const onGo = (await storedRows(big, 'SELECT id FROM links WHERE domain_id = ?', go)).map((r) => r.id as string);
    expect(onGo.length).toBeGreaterThan(2000);
    for (const [domain, expected] of [
      ['go.example.com', onGo.length],
      ['sl.test', 2300 - onGo.length],
    ] as const) {
      for (const sort of ['created', 'clicks', 'updated', 'oldest']) {
        const seen: any[] = [];
        let cursor: string | null = '';
        while (cursor !== null) {
          const page: any = await apiExpecting(
            big,
            key,
            'GET',
            `/links?domain=${domain}&sort=${sort}&limit=100${cursor ? `&cursor=${cursor}` : ''}`,
          );
          seen.push(...page.items);
          cursor = page.cursor;
        }
        expect(new Set(seen.map((l) => l.id)).size).toBe(expected);
        expect(seen.every((l) => l.domain === domain)).toBe(true);
        const keys = seen.map((l) =>
          sort === 'clicks' ? l.clickCount : sort === 'updated' ? l.updatedAt : l.createdAt,
        );
        const ordered = [...keys].sort((a, b) => (sort === 'oldest' ? a - b : b - a));
        expect(keys).toEqual(ordered);
      }
      expect((await apiExpecting(big, key, 'GET', `/links/count?domain=${domain}`)).count).toBe(expected);
    }
  });
});
