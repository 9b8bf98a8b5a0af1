/**
 * The default domain across restarts (docs/behaviour.md, "Short domains"): SLINK_SHORT_HOST's at
 * the first start; another port keeps the same domain with the new origin; another host adds
 * that domain as the default, and the links made before keep their domain and short URLs.
 */
import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { api, makeKey, makeTestApp, type TestApp } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { freshPostgresUrl } from '../../helpers/postgres';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

forEachEngine((engine) => {
  test('restarts: another port keeps the default domain, another host adds a new default', async () => {
    // One database for every start: a SQLite file of this test, or one PostgreSQL database.
    const dir = mkdtempSync(join(tmpdir(), 'slink-domains-'));
    dirs.push(dir);
    const postgresUrl = engine === 'postgres' ? await freshPostgresUrl() : undefined;
    const start = (shortHost: string) =>
      makeTestApp({ SLINK_DB: join(dir, 'slink.db'), SLINK_SHORT_HOST: shortHost }, { engine, postgresUrl });
    const domainsOf = async (t: TestApp, key: string) => {
      const res = await api(t, 'GET', '/domains', { key });
      expect(res.status).toBe(200);
      return res.body.domains.map((d: any) => ({
        host: d.host,
        origin: d.origin,
        default: d.default,
        createdAt: d.createdAt,
      }));
    };

    let t = await start('http://short.test:3001');
    const { key } = await makeKey(t, 'write', { superuser: true });
    const first = await domainsOf(t, key);
    expect(first).toEqual([
      { host: 'short.test', origin: 'http://short.test:3001', default: true, createdAt: expect.any(Number) },
    ]);
    const link = await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/a', slug: 'keep' } });
    expect(link.body.shortUrl).toBe('http://short.test:3001/keep');
    await t.close();

    t = await start('http://short.test:4002');
    expect(await domainsOf(t, key)).toEqual([{ ...first[0], origin: 'http://short.test:4002' }]);
    expect((await api(t, 'GET', `/links/${link.body.id}`, { key })).body.shortUrl).toBe('http://short.test:4002/keep');
    await t.close();

    t = await start('https://new.example');
    expect(await domainsOf(t, key)).toEqual([
      { ...first[0], origin: 'http://short.test:4002', default: false },
      { host: 'new.example', origin: 'https://new.example', default: true, createdAt: expect.any(Number) },
    ]);
    expect(t.deps.domains.default.host).toBe('new.example');
    // The old link stays on its domain, with its short URL; a new one goes to the new default.
    expect((await api(t, 'GET', `/links/${link.body.id}`, { key })).body.shortUrl).toBe('http://short.test:4002/keep');
    const made = await api(t, 'POST', '/links', { key, body: { destination: 'https://example.com/b', slug: 'fresh' } });
    expect(made.body.shortUrl).toBe('https://new.example/fresh');
    const counts = (await api(t, 'GET', '/domains', { key })).body.domains.map((d: any) => [d.host, d.linkCount]);
    expect(counts).toEqual([
      ['short.test', 1],
      ['new.example', 1],
    ]);
    // The old default holds a link: it cannot be deleted; the new one is the default.
    expect((await api(t, 'DELETE', '/domains/short.test', { key })).status).toBe(409);
    expect((await api(t, 'DELETE', '/domains/new.example', { key })).status).toBe(409);
    expect(t.errors).toEqual([]);
    await t.close();
  });
});
