/**
 * Several short domains on the redirect path (docs/behaviour.md, "Short domains"), through a
 * real server with real Host headers, on each engine: each domain answers its own links only
 * (the same slug on two domains is two links), a stray host is answered as the default domain,
 * the app host serves the app; each domain's root, not-found and expired targets and its
 * .well-known files; a link moved to another domain; the preview page's short URL and the unlock
 * cookie's Secure flag from the link's domain. Domains are written straight into their table
 * (the API that adds them is not this file's) and read into memory as a write would.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Engine } from '../../../src/db/address';
import { newId } from '../../../src/lib/ids';
import { api, apiExpecting, disposeTestApp, makeKey, makeTestApp, T0, type TestApp } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { insertLinkRow, storedRows } from '../../helpers/stored';

const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36';
const FACEBOOK = 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)';
const AASA = '{"applinks":{"details":[{"appIDs":["ABCDE12345.com.example.app"],"components":[{"/":"/*"}]}]}}';
const ASSET_LINKS =
  '[{"relation":["delegate_permission/common.handle_all_urls"],"target":{"namespace":"android_app"}}]';

interface DomainInput {
  host: string;
  origin: string;
  rootUrl?: string;
  notFoundUrl?: string;
  expiredUrl?: string;
  aasa?: string;
  assetLinks?: string;
}

/** Adds a domain row and reads every domain into memory again, as a domain write does; answers its id. */
async function addDomain(t: TestApp, d: DomainInput): Promise<number> {
  const [row] = await storedRows(
    t,
    `INSERT INTO domains (host, origin, root_url, not_found_url, expired_url, apple_app_site_association, asset_links, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
    d.host,
    d.origin,
    d.rootUrl ?? null,
    d.notFoundUrl ?? null,
    d.expiredUrl ?? null,
    d.aasa ?? null,
    d.assetLinks ?? null,
    T0,
  );
  t.deps.domains.replace(await t.deps.stores.domains.list());
  return Number(row!.id);
}

let slugs = 0;
/** A link written straight on a domain (any slug, reserved or not), then read into the slug index. */
async function linkOn(t: TestApp, domainId: number, slug: string, destination: string, set = ''): Promise<string> {
  const id = newId('lnk');
  await insertLinkRow(t, { id, slug, destination, at: T0 + ++slugs, domainId });
  if (set !== '') await storedRows(t, `UPDATE links SET ${set} WHERE id = ?`, id);
  await t.deps.linkIndex.refresh(id);
  return id;
}

/** Moves a link to another domain as a write would (the row, then the index). */
async function moveLink(t: TestApp, id: string, domainId: number): Promise<void> {
  await storedRows(t, 'UPDATE links SET domain_id = ? WHERE id = ?', domainId, id);
  await t.deps.linkIndex.refresh(id);
}

interface Served {
  t: TestApp;
  port: number;
}

async function serve(engine: Engine, env: Record<string, string> = {}, dbOf?: TestApp): Promise<Served> {
  const t = await makeTestApp(
    { ...env, ...(dbOf && engine === 'sqlite' ? { SLINK_DB: dbOf.deps.config.dbPath } : {}) },
    { engine, ...(dbOf && engine === 'postgres' ? { postgresUrl: dbOf.deps.config.databaseUrl! } : {}) },
  );
  const server = t.app.listen({ port: 0, hostname: '127.0.0.1' }).server!;
  return { t, port: server.port! };
}

interface Answer {
  status: number;
  location: string | null;
  cacheControl: string | null;
  type: string | null;
  body: string;
  headers: Headers;
}

/** A request to the real server with this Host header. */
async function get(
  s: Served,
  host: string,
  path: string,
  o: { ua?: string; method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { host, 'user-agent': o.ua ?? CHROME, ...o.headers };
  if (o.body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  const res = await fetch(`http://127.0.0.1:${s.port}${path}`, {
    method: o.method ?? (o.body === undefined ? 'GET' : 'POST'),
    headers,
    body: o.body,
    redirect: 'manual',
  });
  return {
    status: res.status,
    location: res.headers.get('location'),
    cacheControl: res.headers.get('cache-control'),
    type: res.headers.get('content-type'),
    body: await res.text(),
    headers: res.headers,
  };
}

const to = (a: Answer) => [a.status, a.location];

forEachEngine((engine) => {
  // Split hosts (the helpers' default): https://sl.test for short links, https://app.sl.test for the app.
  let s: Served;
  let go: number;
  let plain: number;
  let defaultId: number;
  beforeAll(async () => {
    s = await serve(engine);
    defaultId = s.t.deps.domains.default.id;
    go = await addDomain(s.t, {
      host: 'go.example',
      origin: 'https://go.example',
      rootUrl: 'https://home.example/',
      notFoundUrl: 'https://home.example/missing',
      expiredUrl: 'https://home.example/expired',
      aasa: AASA,
      assetLinks: ASSET_LINKS,
    });
    // Plain http on a port: its short URLs and cookies say so.
    plain = await addDomain(s.t, { host: 'plain.example', origin: 'http://plain.example:8080' });
    // Eighteen more, so that the index holds the same slugs on many domains.
    for (let n = 0; n < 18; n++) await addDomain(s.t, { host: `d${n}.example`, origin: `https://d${n}.example` });
  });
  afterAll(() => disposeTestApp(s.t));

  test('the same slug on several domains answers each its own; a slug of one never answers on another', async () => {
    await linkOn(s.t, defaultId, 'same', 'https://example.com/default');
    await linkOn(s.t, go, 'same', 'https://example.com/go');
    await linkOn(s.t, plain, 'same', 'https://example.com/plain');
    await linkOn(s.t, go, 'goonly', 'https://example.com/goonly');
    for (let n = 0; n < 18; n++) await linkOn(s.t, go + 2 + n, 'same', `https://example.com/d${n}`);
    expect(to(await get(s, 'sl.test', '/same'))).toEqual([302, 'https://example.com/default']);
    expect(to(await get(s, 'go.example', '/same'))).toEqual([302, 'https://example.com/go']);
    // The port is ignored; the host's case too.
    expect(to(await get(s, 'plain.example:8080', '/same'))).toEqual([302, 'https://example.com/plain']);
    expect(to(await get(s, 'GO.Example', '/same/'))).toEqual([302, 'https://example.com/go']);
    for (let n = 0; n < 18; n++)
      expect(to(await get(s, `d${n}.example`, '/same'))).toEqual([302, `https://example.com/d${n}`]);
    expect(to(await get(s, 'go.example', '/goonly'))).toEqual([302, 'https://example.com/goonly']);
    // Not on the default domain (404 page) nor on a domain without a not-found target.
    const elsewhere = await get(s, 'sl.test', '/goonly');
    expect([elsewhere.status, elsewhere.type]).toEqual([404, 'text/html; charset=utf-8']);
    expect(elsewhere.body).toContain('Link not found');
    expect((await get(s, 'plain.example', '/goonly')).status).toBe(404);
    expect((await get(s, 'd3.example', '/goonly')).status).toBe(404);
  });

  test('a host that is neither a domain nor the app host is answered as the default domain', async () => {
    await linkOn(s.t, defaultId, 'stray', 'https://example.com/stray');
    await linkOn(s.t, go, 'gostray', 'https://example.com/gostray');
    expect(to(await get(s, 'elsewhere.example', '/stray'))).toEqual([302, 'https://example.com/stray']);
    expect(to(await get(s, '127.0.0.1', '/stray'))).toEqual([302, 'https://example.com/stray']);
    expect((await get(s, 'elsewhere.example', '/gostray')).status).toBe(404);
  });

  test('split hosts: the app host serves the app; a domain serves short links, /healthz, robots.txt, .well-known and its root', async () => {
    await linkOn(s.t, go, 'applink', 'https://example.com/applink');
    const key = (await makeKey(s.t, 'read')).key;
    // The app host: a slug is the app's (a JSON 404), the API answers, the port ignored.
    for (const host of ['app.sl.test', 'app.sl.test:8443']) {
      const slug = await get(s, host, '/applink');
      expect([slug.status, JSON.parse(slug.body).error.code]).toEqual([404, 'not_found']);
      const me = await get(s, host, '/api/v1/me', { headers: { authorization: `Bearer ${key}` } });
      expect(me.status).toBe(200);
    }
    for (const host of ['go.example', 'plain.example', 'sl.test']) {
      const health = await get(s, host, '/healthz');
      expect([health.status, JSON.parse(health.body).status]).toEqual([200, 'ok']);
      const robots = await get(s, host, '/robots.txt');
      expect([robots.status, robots.type]).toEqual([200, 'text/plain; charset=utf-8']);
      expect(robots.body).toContain('User-agent: *\nDisallow: /\n');
      // The API is not served on a short domain: its 404 page.
      const api = await get(s, host, '/api/v1/me', { headers: { authorization: `Bearer ${key}` } });
      expect([api.status, api.type]).toEqual([404, 'text/html; charset=utf-8']);
    }
    // A domain without a root target sends its root to the app.
    expect(to(await get(s, 'plain.example', '/'))).toEqual([302, 'https://app.sl.test/']);
    expect(to(await get(s, 'sl.test', '/'))).toEqual([302, 'https://app.sl.test/']);
  });

  test("a domain's root, not-found and expired targets; a link's own fallback comes first", async () => {
    const past = T0 - 1000;
    await linkOn(s.t, go, 'old', 'https://example.com/old', `expires_at = ${past}`);
    await linkOn(s.t, plain, 'old', 'https://example.com/old', `expires_at = ${past}`);
    const own = await linkOn(
      s.t,
      go,
      'ownfallback',
      'https://example.com/x',
      `expires_at = ${past}, fallback_url = 'https://example.com/own'`,
    );
    const paused = await linkOn(s.t, go, 'paused', 'https://example.com/paused', "status = 'paused'");
    const root = await get(s, 'go.example', '/');
    expect([root.status, root.location, root.body]).toEqual([302, 'https://home.example/', '']);
    for (const path of ['/nosuchslug', '/nosuchslug/code', '/paused']) {
      const missing = await get(s, 'go.example', path);
      expect([missing.status, missing.location, missing.cacheControl]).toEqual([
        302,
        'https://home.example/missing',
        'no-store',
      ]);
    }
    const expired = await get(s, 'go.example', '/old');
    expect([expired.status, expired.location, expired.cacheControl, expired.body]).toEqual([
      302,
      'https://home.example/expired',
      'no-store',
      '',
    ]);
    // HEAD the same way.
    expect(to(await get(s, 'go.example', '/old', { method: 'HEAD' }))).toEqual([302, 'https://home.example/expired']);
    expect(to(await get(s, 'go.example', '/ownfallback'))).toEqual([302, 'https://example.com/own']);
    // Without targets: the 410 and 404 pages.
    const gone = await get(s, 'plain.example', '/old');
    expect([gone.status, gone.type]).toEqual([410, 'text/html; charset=utf-8']);
    expect((await get(s, 'plain.example', '/nosuchslug')).status).toBe(404);
    // No click recorded for any of them; the link's own fallback is counted as its fallback visit.
    expect(await s.t.deps.clicks.flusher.flush()).toBe(true);
    const rows = await storedRows(
      s.t,
      'SELECT link_id, clicks, fallback_visits FROM link_counters WHERE link_id IN (?, ?)',
      own,
      paused,
    );
    expect(rows.map((r) => [r.link_id, Number(r.clicks), Number(r.fallback_visits)]).sort()).toEqual(
      [
        [own, 0, 1],
        [paused, 0, 0],
      ].sort(),
    );
  });

  test('.well-known files: the stored JSON, never a redirect; 404 when unset', async () => {
    const aasa = await get(s, 'go.example', '/.well-known/apple-app-site-association');
    expect([aasa.status, aasa.type, aasa.body]).toEqual([200, 'application/json', AASA]);
    const assets = await get(s, 'go.example', '/.well-known/assetlinks.json');
    expect([assets.status, assets.type, assets.body]).toEqual([200, 'application/json', ASSET_LINKS]);
    for (const path of ['/.well-known/apple-app-site-association', '/.well-known/assetlinks.json']) {
      const unset = await get(s, 'plain.example', path);
      expect([unset.status, unset.location]).toEqual([404, null]);
    }
  });

  test('a link moved to another domain answers there, and no more where it was', async () => {
    const id = await linkOn(s.t, go, 'mover', 'https://example.com/mover');
    expect(to(await get(s, 'go.example', '/mover'))).toEqual([302, 'https://example.com/mover']);
    await moveLink(s.t, id, plain);
    expect(to(await get(s, 'plain.example', '/mover'))).toEqual([302, 'https://example.com/mover']);
    expect(to(await get(s, 'go.example', '/mover'))).toEqual([302, 'https://home.example/missing']);
    // A slug freed on one domain is free for another link there.
    await linkOn(s.t, go, 'mover', 'https://example.com/newcomer');
    expect(to(await get(s, 'go.example', '/mover'))).toEqual([302, 'https://example.com/newcomer']);
    expect(to(await get(s, 'plain.example', '/mover'))).toEqual([302, 'https://example.com/mover']);
  });

  test("the preview page's short URL and the unlock cookie's Secure flag come from the link's domain", async () => {
    const su = (await makeKey(s.t, 'write', { superuser: true })).key;
    const previewed = await apiExpecting(s.t, su, 'POST', '/links', {
      destination: 'https://example.com/card',
      slug: 'card',
      preview: { title: 'A card' },
    });
    await moveLink(s.t, previewed.id, go);
    const card = await get(s, 'go.example', '/card', { ua: FACEBOOK });
    expect(card.status).toBe(200);
    expect(card.body).toContain('<meta property="og:url" content="https://go.example/card">');
    const locked = await apiExpecting(s.t, su, 'POST', '/links', {
      destination: 'https://example.com/locked',
      slug: 'locked',
      password: 'open sesame',
    });
    await moveLink(s.t, locked.id, plain);
    const unlocked = await get(s, 'plain.example', '/locked', { body: 'password=open%20sesame' });
    expect(to(unlocked)).toEqual([302, 'https://example.com/locked']);
    const cookie = unlocked.headers.get('set-cookie')!;
    expect(cookie).toContain('Path=/locked; HttpOnly; SameSite=Lax');
    expect(cookie).not.toContain('Secure');
    // The same link on an https domain: Secure.
    await moveLink(s.t, locked.id, go);
    const secure = await get(s, 'go.example', '/locked', { body: 'password=open%20sesame' });
    expect(secure.headers.get('set-cookie')).toContain('SameSite=Lax; Secure');
  });

  describe('mcp and tls, reserved after links could have them', () => {
    let single: Served;
    beforeAll(async () => {
      await linkOn(s.t, go, 'mcp', 'https://example.com/go-mcp');
      await linkOn(s.t, defaultId, 'tls', 'https://example.com/default-tls');
      await linkOn(s.t, defaultId, 'onehost', 'https://example.com/onehost-default');
      await linkOn(s.t, go, 'onehost', 'https://example.com/onehost-go');
      // A start over the same database, with one host for short links and the app.
      single = await serve(engine, { SLINK_SHORT_HOST: 'https://sl.test', SLINK_APP_HOST: 'https://sl.test' }, s.t);
    });
    afterAll(async () => {
      single.t.errors.length = 0;
      await disposeTestApp(single.t);
    });

    test('a new link cannot take them', async () => {
      const su = (await makeKey(s.t, 'write', { superuser: true })).key;
      for (const slug of ['mcp', 'TLS']) {
        const refused = await api(s.t, 'POST', '/links', {
          key: su,
          body: { destination: 'https://example.com/', slug },
        });
        expect([refused.status, refused.body.error.code, refused.body.error.field]).toEqual([
          400,
          'invalid_request',
          'slug',
        ]);
      }
    });

    test('the start logs one warning naming them', () => {
      const warnings = single.t.errors.filter((line) => line.includes('reserved word'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('go.example/mcp');
      expect(warnings[0]).toContain('sl.test/tls');
    });

    test('they keep answering on every short domain that is not the app host', async () => {
      // Split hosts: every domain is a short domain only.
      expect(to(await get(s, 'go.example', '/mcp'))).toEqual([302, 'https://example.com/go-mcp']);
      expect(to(await get(s, 'sl.test', '/tls'))).toEqual([302, 'https://example.com/default-tls']);
      expect((await get(s, 'app.sl.test', '/mcp')).type).toStartWith('application/json');
      // One host: the default domain's host is the app's, where the path is the app's.
      expect(to(await get(single, 'go.example', '/mcp'))).toEqual([302, 'https://example.com/go-mcp']);
      const app = await get(single, 'sl.test', '/tls');
      expect([app.status, app.location]).toEqual([404, null]);
      expect(app.type).toStartWith('application/json');
      // Other reserved words stay the app's (or a 404 page) everywhere.
      expect((await get(s, 'go.example', '/api')).status).toBe(404);
    });

    test('one host: the default domain also serves the app, another domain only its short links', async () => {
      const key = (await makeKey(single.t, 'read')).key;
      const auth = { headers: { authorization: `Bearer ${key}` } };
      expect((await get(single, 'sl.test', '/api/v1/me', auth)).status).toBe(200);
      expect((await get(single, 'elsewhere.example', '/api/v1/me', auth)).status).toBe(200);
      expect(to(await get(single, 'elsewhere.example', '/onehost'))).toEqual([
        302,
        'https://example.com/onehost-default',
      ]);
      expect(to(await get(single, 'sl.test', '/onehost'))).toEqual([302, 'https://example.com/onehost-default']);
      const api = await get(single, 'go.example', '/api/v1/me', auth);
      expect([api.status, api.type]).toEqual([404, 'text/html; charset=utf-8']);
      expect(to(await get(single, 'go.example', '/onehost'))).toEqual([302, 'https://example.com/onehost-go']);
      expect(to(await get(single, 'go.example', '/'))).toEqual([302, 'https://home.example/']);
      expect((await get(single, 'plain.example', '/healthz')).status).toBe(200);
    });
  });
});
