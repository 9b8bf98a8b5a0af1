/**
 * A later export of the same Slink imported over an earlier one, on both engines: the clicks
 * the link received there after the first import, which its retention removed before the later
 * export, are added as counts (what its own counts grew by that the new click lines do not
 * hold), so the link ends with the counts the source has (humans, unique visitors, bots);
 * imported again, nothing is added twice.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createApiKey } from '../../../src/modules/auth/keys';
import { api, disposeTestApp, makeAccount, makeTestApp, type TestApp } from '../../helpers/app';
import { ENGINES } from '../../helpers/engines';
import { clickRequest, flushOk, UA } from '../clicks/support';
import { ended } from './support';

const DAY = 86_400_000;
const SLUGS = ['ri-one', 'ri-two'];

interface Side {
  t: TestApp;
  key: string;
  origin: string;
}

async function side(engine: 'sqlite' | 'postgres', env: Record<string, string> = {}): Promise<Side> {
  const t = await makeTestApp({ SLINK_TRUST_PROXY: '1', SLINK_UPSTREAM_ALLOW_PRIVATE: '1', ...env }, { engine });
  t.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false });
  const account = await makeAccount(t, { role: 'admin' });
  const key = (await createApiKey(t.deps, { accountId: account.id, scope: 'write' })).key;
  return { t, key, origin: `http://127.0.0.1:${t.app.server!.port}` };
}

const sides: Side[] = [];
let source: Side;
afterAll(async () => {
  for (const s of sides) await disposeTestApp(s.t);
});

beforeAll(async () => {
  // Raw clicks older than 30 days are not kept (nor exported): counted beyond the lines.
  source = await side('sqlite', { SLINK_RETENTION_DAYS: '30' });
  sides.push(source);
  // Two links clicked alike: their history is written together (one batch, several positions).
  for (const slug of SLUGS) {
    const made = await api(source.t, 'POST', '/links', {
      key: source.key,
      body: { slug, destination: `https://example.com/${slug}` },
    });
    expect(made.status).toBe(201);
  }
});

async function click(ua: string, ip: string) {
  for (const slug of SLUGS) await (await source.t.app.handle(clickRequest(`/${slug}`, { ua, ip }))).arrayBuffer();
}

/** Each link's counts, by slug. */
const countsAt = async (s: Side) => {
  const links = (await api(s.t, 'GET', '/links?q=ri-', { key: s.key })).body.items;
  return Object.fromEntries(
    links.map((l: any) => [l.slug, { clickCount: l.clickCount, uniqueCount: l.uniqueCount, botCount: l.botCount }]),
  );
};
const each = (counts: Record<string, number>) => Object.fromEntries(SLUGS.map((slug) => [slug, counts]));

async function importInto(to: Side) {
  const started = await api(to.t, 'POST', '/imports', {
    key: to.key,
    body: { source: 'slink', url: source.origin, token: source.key },
  });
  expect(started.status).toBe(202);
  const run = await ended(async () => (await api(to.t, 'GET', `/imports/${started.body.id}`, { key: to.key })).body);
  expect(run).toMatchObject({ status: 'done', errors: [] });
  await flushOk(to.t);
  return run;
}

test('a later export imported over an earlier one ends with the source’s counts, never counted twice', async () => {
  const targets = await Promise.all(ENGINES.map((engine) => side(engine)));
  sides.push(...targets);
  const start = source.t.clock.now();
  // Two visitors' first clicks: the first export carries them as lines.
  await click(UA.chromeWin, '81.2.69.142');
  await click(UA.safariIphone, '89.160.20.112');
  await flushOk(source.t);
  for (const to of targets) {
    await importInto(to);
    expect(await countsAt(to)).toEqual(each({ clickCount: 2, uniqueCount: 2, botCount: 0 }));
  }
  // Five days on, a human and a bot; forty days on, one more human: the later export holds only
  // that one as a line, the rest (retention removed them) as countedOnly.
  source.t.clock.set(start + 5 * DAY);
  await click(UA.firefoxLinux, '216.160.83.56');
  await click(UA.googlebot, '216.160.83.56');
  source.t.clock.set(start + 40 * DAY);
  await click(UA.chromeAndroid, '2.125.160.216');
  await flushOk(source.t);
  const there = await countsAt(source);
  expect(there).toEqual(each({ clickCount: 4, uniqueCount: 4, botCount: 1 }));
  for (const to of targets) {
    expect((await importInto(to)).clicks.imported).toBe(2 * 3);
    expect(await countsAt(to)).toEqual(there);
    // The same export again: nothing added.
    expect((await importInto(to)).clicks.imported).toBe(0);
    expect(await countsAt(to)).toEqual(there);
  }
});
