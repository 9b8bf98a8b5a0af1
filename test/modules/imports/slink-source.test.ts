/**
 * The `slink` source through real HTTP (SQLite: what is tested here is the runner's, not an
 * engine's): a link and its variants are one unit, so a run stopped between the link's write and
 * its variants' leaves a resume that completes the link; a dry run decides the links on the
 * export's domains as a real run, which makes those domains, does.
 */
import { expect, test } from 'bun:test';
import { ExportServer, header, idOf, importApp, linkLine, TOKEN } from './support';

const source = new ExportServer();
const app = importApp({ fakes: [source] });
const call = app.call;

async function run(body: Record<string, unknown>) {
  return app.run({ source: 'slink', token: TOKEN, domain: 'sl.test', ...body });
}

/** The next call of `target[method]` throws `message` (null: does nothing), every later one is the real one, which is answered. */
function onceInstead<T extends object, K extends keyof T>(target: T, method: K, message: string | null): T[K] {
  const real = target[method];
  target[method] = (async () => {
    target[method] = real;
    if (message !== null) throw new Error(message);
  }) as T[K];
  return real;
}

test('a run stopped between a link and its variants: the resume makes the variants, none twice', async () => {
  const variants = [
    { code: 'va', params: { utm_content: 'a' } },
    { code: 'vb', params: { utm_content: 'b' } },
  ];
  const { url } = source.serve('variants', [header(), linkLine({ slug: 'kv-one', variants })]);
  // The process dies right after the link was written, before its first variant is.
  const writes = app.t.deps.stores.linkWrites;
  const insertVariant = onceInstead(writes, 'insertVariant', 'killed');
  const first = await run({ url });
  expect(first.status).toBe('failed');
  expect(writes.insertVariant).toBe(insertVariant);
  // The failed run logged its error: the one expected here.
  expect(app.t.errors).toEqual([expect.stringContaining('Error: killed')]);
  app.t.errors.length = 0;

  // The link the failed run made and never reported: this run's, created.
  const again = await run({ url });
  expect(again).toMatchObject({ status: 'done', links: { created: 1, skipped: 0, failed: 0 } });
  const link = (await call('GET', '/links?q=kv-one')).body.items[0];
  // Made in one instant: their order is their ids'.
  const made = link.variants.map((v: any) => [v.code, v.params]).sort();
  expect(made).toEqual([
    ['va', { utm_content: 'a' }],
    ['vb', { utm_content: 'b' }],
  ]);
  // Whole now: a third run makes nothing more.
  expect(await run({ url })).toMatchObject({ status: 'done', links: { created: 0 } });
  expect((await call('GET', `/links/${link.id}`)).body.variants.length).toBe(2);
});

test('a link asking for a password comes only with its hash; rules Slink refuses skip the link, with the reason', async () => {
  const { url } = source.serve('protected', [
    header(),
    linkLine({ slug: 'pw-nohash', passwordProtected: true }),
    linkLine({ slug: 'pw-plain', passwordProtected: true, passwordHash: 'open sesame' }),
    linkLine({ slug: 'bad-rules', rules: [{ when: { device: ['toaster'] }, destination: 'https://example.com/t' }] }),
    linkLine({ slug: 'open' }),
  ]);
  const done = await run({ url });
  expect(done).toMatchObject({ status: 'done', links: { created: 1, skipped: 3 } });
  expect(done.errors.map((e: any) => e.reason)).toEqual([
    'password: it asks for a password whose hash the source did not give: set it here by hand',
    'password: it asks for a password whose hash the source did not give: set it here by hand',
    expect.stringContaining('rules[0].when.device'),
  ]);
  expect((await call('GET', '/links?q=pw-')).body.items).toEqual([]);
});

const domainLine = (host: string, isDefault: boolean, settings: Record<string, unknown> = {}) =>
  `${JSON.stringify({
    type: 'domain',
    host,
    origin: `https://${host}`,
    default: isDefault,
    rootUrl: isDefault ? null : 'https://example.com/home',
    notFoundUrl: null,
    expiredUrl: null,
    upstream: null,
    appleAppSiteAssociation: null,
    assetLinks: null,
    ...settings,
  })}\n`;

async function report(id: string) {
  const res = await call('GET', `/imports/${id}/report.csv`);
  expect(res.status).toBe(200);
  return res.text
    .trim()
    .split(/\r?\n/)
    .slice(1)
    .map((row) => row.split(','));
}

test('a dry run counts the links on the domains it would make as created, as the real run then makes them', async () => {
  const links = [
    linkLine({ slug: 'dry-home' }),
    linkLine({ slug: 'dry-there', domain: 'go.dry.test', shortUrl: 'https://go.dry.test/dry-there' }),
  ];
  const { url } = source.serve('dry-domains', [
    header(),
    domainLine('other.test', true),
    domainLine('go.dry.test', false),
    ...links,
  ]);
  // Every link where its own domain says, as a real run: no domain named.
  const dry = await run({ url, domain: undefined, dryRun: true });
  expect(dry).toMatchObject({ status: 'done', links: { seen: 2, created: 2, skipped: 0, failed: 0 }, errors: [] });
  expect(await report(dry.id)).toEqual([
    [idOf(links[0]!), 'created', 'https://sl.test/dry-home', 'dry run: would be created'],
    [idOf(links[1]!), 'created', 'https://go.dry.test/dry-there', 'dry run: would be created'],
  ]);
  // Nothing made: neither the domain nor a link.
  const hosts = async () => (await call('GET', '/domains')).body.domains.map((d: any) => d.host);
  expect(await hosts()).not.toContain('go.dry.test');
  expect((await call('GET', '/links/count?q=dry-')).body.count).toBe(0);

  const real = await run({ url, domain: undefined });
  expect(real).toMatchObject({ status: 'done', links: { seen: 2, created: 2, skipped: 0, failed: 0 }, errors: [] });
  expect((await report(real.id)).map((row) => row.slice(0, 3))).toEqual([
    [idOf(links[0]!), 'created', 'https://sl.test/dry-home'],
    [idOf(links[1]!), 'created', 'https://go.dry.test/dry-there'],
  ]);
  expect(await hosts()).toContain('go.dry.test');
});

test('a dry run refuses the domains the real run would refuse, by the same checks, with the same reasons', async () => {
  const links = [
    linkLine({ slug: 'chk-self', domain: 'go.self.test', shortUrl: 'https://go.self.test/chk-self' }),
    linkLine({ slug: 'chk-app', domain: 'app.sl.test', shortUrl: 'https://app.sl.test/chk-app' }),
    linkLine({ slug: 'chk-loop', domain: 'go.loop.test', shortUrl: 'https://go.loop.test/chk-loop' }),
    linkLine({ slug: 'chk-fine', domain: 'go.fine.test', shortUrl: 'https://go.fine.test/chk-fine' }),
  ];
  // Each valid by the schema: refused by what adding the domain (then setting it) checks.
  const { url } = source.serve('checked-domains', [
    header(),
    domainLine('other.test', true),
    // Its root sends its visitors back to it.
    domainLine('go.self.test', false, { rootUrl: 'https://go.self.test/home' }),
    // This Slink's app host.
    domainLine('app.sl.test', false),
    // Made, but its upstream is itself (one of this Slink's hosts once made): refused, the domain stays.
    domainLine('go.loop.test', false, { upstream: 'https://go.loop.test' }),
    domainLine('go.fine.test', false),
    ...links,
  ]);
  const dry = await run({ url, domain: undefined, dryRun: true });
  const hosts = async () => (await call('GET', '/domains')).body.domains.map((d: any) => d.host);
  expect(await hosts()).not.toContain('go.loop.test');
  const real = await run({ url, domain: undefined });
  expect(real).toMatchObject({ status: 'done', links: { seen: 4, created: 2, skipped: 2, failed: 0 } });
  expect(real.errors.map((e: any) => [e.source, e.reason])).toEqual([
    ['go.self.test', expect.stringContaining('domain not made: rootUrl points at the domain itself')],
    ['app.sl.test', expect.stringContaining("domain not made: origin: app.sl.test is the app's host")],
    // Made (its links are), without the setting refused: said so, not "not made".
    ['go.loop.test', expect.stringMatching(/^domain made without its settings: upstream points at this Slink itself/)],
    [idOf(links[0]!), expect.stringContaining("its domain go.self.test is not one of this Slink's domains")],
    [idOf(links[1]!), expect.stringContaining("its domain app.sl.test is not one of this Slink's domains")],
  ]);
  expect(await hosts()).toEqual(expect.arrayContaining(['go.loop.test', 'go.fine.test']));
  // The dry run said all of it: the same counts, errors and outcomes.
  expect({ links: dry.links, errors: dry.errors }).toEqual({ links: real.links, errors: real.errors });
  const realRows = await report(real.id);
  expect((await report(dry.id)).map((row) => row.slice(0, 3))).toEqual(realRows.map((row) => row.slice(0, 3)));
  expect(realRows.map((row) => row[1])).toEqual(['skipped', 'skipped', 'created', 'created']);
});

test('a link line whose countedOnly is out of bounds fails that link, naming the field; the run goes on', async () => {
  const counted = (slug: string, countedOnly: unknown) => linkLine({ slug, clickCount: 9, countedOnly });
  const links = [
    counted('co-uniq', { clicks: 3, uniques: 4, bots: 0 }),
    counted('co-neg', { clicks: 3, uniques: 0, bots: -1 }),
    counted('co-frac', { clicks: 2.5, uniques: 0, bots: 0 }),
    counted('co-text', '5'),
    // Bots are apart from the human clicks: more of them than clicks is a count like any other.
    counted('co-fine', { clicks: 2, uniques: 2, bots: 7 }),
  ];
  const { url } = source.serve('counted-bounds', [header(true), ...links]);
  const done = await run({ url });
  expect(done).toMatchObject({ status: 'done', links: { seen: 5, created: 1, skipped: 0, failed: 4 } });
  expect(done.errors).toEqual([
    { source: idOf(links[0]!), reason: expect.stringContaining('countedOnly.uniques') },
    { source: idOf(links[1]!), reason: expect.stringContaining('countedOnly.bots') },
    { source: idOf(links[2]!), reason: expect.stringContaining('countedOnly.clicks') },
    { source: idOf(links[3]!), reason: expect.stringContaining('countedOnly: must be an object') },
  ]);
  expect((await report(done.id)).map((row) => row[1])).toEqual(['failed', 'failed', 'failed', 'failed', 'created']);
  expect((await call('GET', '/links/count?q=co-')).body.count).toBe(1);
  const fine = (await call('GET', '/links?q=co-fine')).body.items[0];
  expect(fine).toMatchObject({ clickCount: 2, uniqueCount: 2, botCount: 7 });
});

test('a page whose links were made when its run stopped before saving it: the resume counts them created, once', async () => {
  const links = Array.from({ length: 3 }, (_, i) => linkLine({ slug: `unsaved-${i}` }));
  const { url } = source.serve('unsaved-page', [header(), ...links]);
  // The process dies once the page's links are written, before the page is saved: nothing of
  // the run is saved after (it is left running, a dead process's run: read, it is interrupted).
  const store = app.t.deps.stores.imports;
  onceInstead(store, 'savePage', 'killed');
  // Its end is not saved either: nothing happens instead.
  onceInstead(store, 'finish', null);
  const first = await run({ url });
  expect(first).toMatchObject({
    status: 'failed',
    links: { seen: 0, created: 0 },
    errors: [{ source: '', reason: 'interrupted: run it again to resume' }],
  });
  expect(app.t.errors).toEqual([expect.stringContaining('Error: killed')]);
  app.t.errors.length = 0;
  expect((await call('GET', '/links/count?q=unsaved-')).body.count).toBe(3);

  // The page read again: the links the stopped run made and never reported are this run's.
  const dry = await run({ url, dryRun: true });
  expect(dry).toMatchObject({ status: 'done', links: { seen: 3, created: 3, skipped: 0 } });
  const again = await run({ url });
  expect(again).toMatchObject({ status: 'done', links: { seen: 3, created: 3, skipped: 0, failed: 0 } });
  expect((await report(again.id)).map((row) => [row[0], row[1], row[3]])).toEqual(
    links.map((l) => [idOf(l), 'created', '']),
  );
  // Reported once: a later run finds them imported before.
  const third = await run({ url });
  expect(third).toMatchObject({ status: 'done', links: { seen: 3, created: 0, skipped: 3 } });
  expect(new Set((await report(third.id)).map((row) => row[3]))).toEqual(new Set(['imported before']));
  expect((await call('GET', '/links/count?q=unsaved-')).body.count).toBe(3);
});

test('a page whose save fails: the run counts it out, as its report does; the next run counts its links created, once', async () => {
  const links = Array.from({ length: 2 }, (_, i) => linkLine({ slug: `save-failed-${i}` }));
  const { url } = source.serve('save-failed', [header(), ...links]);
  const store = app.t.deps.stores.imports;
  onceInstead(store, 'savePage', 'disk full');
  const first = await run({ url });
  expect(first).toMatchObject({
    status: 'failed',
    links: { seen: 0, created: 0, skipped: 0, failed: 0 },
    errors: [{ source: '', reason: 'unexpected error: disk full' }],
  });
  expect(await report(first.id)).toEqual([]);
  expect(app.t.errors).toEqual([expect.stringContaining('Error: disk full')]);
  app.t.errors.length = 0;
  const again = await run({ url });
  expect(again).toMatchObject({ status: 'done', links: { seen: 2, created: 2, skipped: 0 } });
});

test('a click line with no time, one before 1970 or one past tomorrow is not imported: no time is made up', async () => {
  const now = app.t.clock.now();
  const link = linkLine({ slug: 'when-1', domain: 'sl.test', shortUrl: 'https://sl.test/when-1', clickCount: 5 });
  const click = (id: number, timestamp?: number) =>
    `${JSON.stringify({ type: 'click', id, linkId: idOf(link), timestamp, bot: false })}\n`;
  const day = 86_400_000;
  const { url } = source.serve('click-times', [
    header(true),
    link,
    click(1, now - day),
    click(2),
    click(3, -5),
    click(4, 1e17),
    click(5, now + 2 * day),
  ]);
  const done = await run({ url });
  expect({ status: done.status, clicks: done.clicks }).toEqual({ status: 'done', clicks: { imported: 1 } });
  const made = (await call('GET', '/links?q=when-1')).body.items[0];
  expect({ clickCount: made.clickCount, lastClickedAt: made.lastClickedAt }).toEqual({
    clickCount: 1,
    lastClickedAt: now - day,
  });
});
