/**
 * GET /api/v1/export through real HTTP (a listening server, fetch): NDJSON lines of the
 * workspace's domains, projects, links and, with clicks=1, raw clicks, compared with what the
 * API answers for the same objects; who is refused; a password hash never leaves.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createApiKey } from '../../../src/modules/auth/keys';
import { api, disposeTestApp, makeAccount, makeKey, T0 } from '../../helpers/app';
import { engineBlind, forEachEngine } from '../../helpers/engines';
import { storedClicks } from '../../helpers/stored-clicks';
import { type Ctx, clickRequest, createLink, createVariant, flushOk, setup, UA } from '../clicks/support';

type Line = Record<string, any> & { type: string };

forEachEngine((engine) => {
  let c: Ctx;
  let base: string;
  const refused: Record<string, { key: string | null; status: number; code: string }> = {};

  beforeAll(async () => {
    c = await setup({}, engine);
    c.t.clock.set(T0);
    c.t.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false });
    base = `http://127.0.0.1:${c.t.app.server!.port}/api/v1`;
    const editor = await makeKey(c.t, 'write');
    const viewer = await makeAccount(c.t, { role: 'viewer' });
    const viewerKey = await createApiKey(c.t.deps, { accountId: viewer.id, scope: 'read' });
    const admin = await makeAccount(c.t, { role: 'admin' });
    const limitedKey = await createApiKey(c.t.deps, { accountId: admin.id, scope: 'read', domains: ['sl.test'] });
    refused.anonymous = { key: null, status: 401, code: 'key_missing' };
    refused.editor = { key: editor.key, status: 403, code: 'superuser_required' };
    refused.viewer = { key: viewerKey.key, status: 403, code: 'superuser_required' };
    refused['limited admin'] = { key: limitedKey.key, status: 403, code: 'insufficient_scope' };
  });
  afterAll(() => disposeTestApp(c.t));

  async function exported(
    query = '',
    key: string | null = c.key,
  ): Promise<{ res: Response; lines: Line[]; text: string }> {
    const res = await fetch(`${base}/export${query}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });
    const text = await res.text();
    if (res.status !== 200) return { res, lines: [], text };
    expect(text.endsWith('\n')).toBe(true);
    return {
      res,
      text,
      lines: text
        .slice(0, -1)
        .split('\n')
        .map((l) => JSON.parse(l) as Line),
    };
  }

  const ofType = (lines: Line[], type: string) => lines.filter((l) => l.type === type);
  const without = ({ type: _, ...rest }: Line) => rest;

  test('an empty workspace exports the header and its domain only', async () => {
    const { res, lines } = await exported('?clicks=1');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    expect(lines).toEqual([
      { type: 'export', version: 1, exportedAt: T0, source: 'slink', clicks: true },
      {
        type: 'domain',
        host: 'sl.test',
        origin: 'https://sl.test',
        default: true,
        rootUrl: null,
        notFoundUrl: null,
        expiredUrl: null,
        upstream: null,
        appleAppSiteAssociation: null,
        assetLinks: null,
        lastSeenAt: null,
        createdAt: expect.any(Number),
      },
    ]);
  });

  test('domains, projects and links, each link as the API answers it with its password hash, never the password', async () => {
    const project = await api(c.t, 'POST', '/projects', { key: c.key, body: { name: 'Launch' } });
    expect(project.status).toBe(201);
    const made = [
      await createLink(c, { title: 'plain', tags: ['a', 'b'] }),
      await createLink(c, { projectId: project.body.id, password: 'correct horse battery' }),
      await createLink(c, { destination: 'https://example.org/x' }),
    ];
    await createVariant(c, made[0].id, { code: 'v1', params: { utm_source: 'mail' } });
    const domain = await api(c.t, 'POST', '/domains', {
      key: c.key,
      body: {
        origin: 'https://go.example.com',
        rootUrl: 'https://example.com/home',
        assetLinks: [{ relation: ['delegate_permission/common.handle_all_urls'] }],
      },
    });
    expect(domain.status).toBe(201);
    const { lines, text } = await exported();
    expect(lines.map((l) => l.type)).toEqual(['export', 'domain', 'domain', 'project', 'link', 'link', 'link']);
    // Each domain as GET /domains has it, but for its link count (the links say where they live).
    const listed = (await api(c.t, 'GET', '/domains', { key: c.key })).body.domains;
    expect(ofType(lines, 'domain').map(without)).toEqual(listed.map(({ linkCount: _, ...d }: any) => d));
    expect(lines[0]).toEqual({ type: 'export', version: 1, exportedAt: T0, source: 'slink', clicks: false });
    expect(without(ofType(lines, 'project')[0]!)).toEqual({
      id: project.body.id,
      name: 'Launch',
      createdAt: T0,
      updatedAt: T0,
    });
    const links = ofType(lines, 'link');
    expect(links.map((l) => l.id)).toEqual(made.map((l) => l.id).sort());
    for (const link of links) {
      const one = await api(c.t, 'GET', `/links/${link.id}`, { key: c.key });
      const { passwordHash: _, ...answered } = without(link);
      expect(answered).toEqual(one.body);
    }
    // A protected link carries its password's hash (another Slink importing the file asks for the
    // same password), never the password; the others carry none.
    expect(links.map((l) => [l.id === made[1].id, l.passwordProtected, l.passwordHash ?? null])).toEqual(
      links.map((l) =>
        l.id === made[1].id ? [true, true, expect.stringMatching(/^\$argon2id\$/)] : [false, false, null],
      ),
    );
    expect(text).not.toContain('correct horse battery');
    expect(ofType(lines, 'click')).toEqual([]);
  });

  test('clicks=1 adds every raw click stored, humans and bots, as the clicks list has them, and whether each was a unique', async () => {
    const links = (await api(c.t, 'GET', '/links?limit=100', { key: c.key })).body.items as {
      id: string;
      slug: string;
    }[];
    let n = 0;
    for (const link of links) {
      for (const [i, ua] of [UA.chromeWin, UA.googlebot, UA.chromeWin].entries()) {
        c.t.clock.set(T0 + ++n * 1000);
        const res = await c.t.app.handle(clickRequest(`/${link.slug}${i === 2 ? '?utm_medium=x' : ''}`, { ua }));
        await res.arrayBuffer();
      }
    }
    await flushOk(c.t);
    const { lines } = await exported('?clicks=1');
    const clicks = ofType(lines, 'click');
    const listed = [];
    for (const link of [...links].sort((a, b) => (a.id < b.id ? -1 : 1))) {
      const page = await api(c.t, 'GET', `/links/${link.id}/clicks?range=all&bots=1&limit=100`, { key: c.key });
      expect(page.status).toBe(200);
      listed.push(...page.body.items);
    }
    // The password-protected link's visits get its form, not a click: at least the others'.
    expect(listed.length).toBeGreaterThanOrEqual(6);
    // The clicks list's record, then `unique` (a first visit of its day), last.
    const record = ({ unique: _, ...rest }: Line) => without(rest);
    expect(clicks.map(record)).toEqual(listed);
    // Field for field in the clicks list's order (the lines are written in the export Worker).
    expect(clicks.map((click) => JSON.stringify(record(click)))).toEqual(listed.map((l) => JSON.stringify(l)));
    expect(clicks.every((click) => Object.keys(click).at(-1) === 'unique')).toBe(true);
    // Per link: the human's first click of the day is its unique; the bot's and the same human's second are not.
    const byLink = Map.groupBy(clicks, (click) => click.linkId as string);
    for (const [linkId, own] of byLink) {
      const firsts = own.filter((click) => click.unique === true);
      expect({ linkId, firsts: firsts.map((click) => click.id) }).toEqual({ linkId, firsts: [own.at(-1)!.id] });
    }
    const linkLines = ofType(lines, 'link');
    for (const [linkId, own] of byLink)
      expect(linkLines.find((l) => l.id === linkId)!.uniqueCount).toBe(own.filter((click) => click.unique).length);
    // The default domain was just asked for: its lastSeenAt is this process's, as GET /domains says.
    const domains = (await api(c.t, 'GET', '/domains', { key: c.key })).body.domains;
    expect(domains[0].lastSeenAt).not.toBeNull();
    expect(ofType(lines, 'domain').map(without)).toEqual(domains.map(({ linkCount: _, ...d }: any) => d));
    const stored = (await storedClicks(c.t)).map((s) => s.id).sort((a, b) => a - b);
    expect(clicks.map((click) => click.id as number).sort((a, b) => a - b)).toEqual(stored);
    // Each click comes after its link's line.
    for (const click of clicks) {
      expect(lines.findIndex((l) => l.type === 'link' && l.id === click.linkId)).toBeLessThan(lines.indexOf(click));
    }
  });

  test('clicks recorded while an export runs are not in it', async () => {
    const link = await createLink(c, { destination: 'https://example.com/during' });
    // Through the app's handler, not a socket: a listening server pulls the body as fast as the
    // socket takes it, so only here does the next page wait for this reader.
    const res = await c.t.app.handle(
      new Request('http://localhost/api/v1/export?clicks=1', { headers: { authorization: `Bearer ${c.key}` } }),
    );
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    // The first chunk read: the export has begun, its snapshot of the clicks taken.
    const first = await reader.read();
    c.t.clock.set(T0 + 3_600_000);
    const hit = await c.t.app.handle(clickRequest(`/${link.slug}`));
    await hit.arrayBuffer();
    await flushOk(c.t);
    let text = new TextDecoder().decode(first.value);
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += new TextDecoder().decode(r.value);
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);
    expect(lines.filter((l) => l.type === 'link' && l.id === link.id)).toHaveLength(1);
    expect(lines.filter((l) => l.type === 'click' && l.linkId === link.id)).toEqual([]);
    expect(await storedClicks(c.t, link.id)).toHaveLength(1);
    const after = await exported('?clicks=1');
    expect(ofType(after.lines, 'click').filter((l) => l.linkId === link.id)).toHaveLength(1);
  });

  test('links and clicks beyond one page each: every one exactly once, links in id order', async () => {
    const before = ofType((await exported()).lines, 'link').length;
    // Two bulk creates of 125 (at most 200 a call): more than one page of links (200).
    const made = [];
    for (const half of [0, 1]) {
      const text = Array.from({ length: 125 }, (_, i) => `https://example.com/many/${half}/${i}`).join('\n');
      const bulk = await api(c.t, 'POST', '/links/bulk/create', { key: c.key, body: { text } });
      expect(bulk.status).toBe(201);
      made.push(...bulk.body.created);
    }
    expect(made).toHaveLength(250);
    const busy = made[0].link;
    for (let i = 0; i < 1005; i++) {
      c.t.clock.set(T0 + 7_200_000 + i);
      const res = await c.t.app.handle(clickRequest(`/${busy.slug}`));
      await res.arrayBuffer();
    }
    await flushOk(c.t);
    const { lines } = await exported('?clicks=1');
    const links = ofType(lines, 'link').map((l) => l.id as string);
    expect(links).toHaveLength(before + 250);
    expect(links).toEqual([...new Set(links)].sort());
    const clicks = ofType(lines, 'click')
      .filter((l) => l.linkId === busy.id)
      .map((l) => l.id as number);
    expect(clicks).toHaveLength(1005);
    const stored = (await storedClicks(c.t, busy.id)).map((s) => s.id).sort((a, b) => b - a);
    expect(clicks).toEqual(stored);
  });

  engineBlind(engine)('non-admins, limited callers and anonymous requests are refused by the matrix', async () => {
    for (const [who, r] of Object.entries(refused)) {
      const { res, text } = await exported('', r.key);
      expect({ who, status: res.status, code: JSON.parse(text).error.code }).toEqual({
        who,
        status: r.status,
        code: r.code,
      });
    }
  });

  engineBlind(engine)('clicks other than 0 or 1 is a 400 naming the field', async () => {
    const { res, text } = await exported('?clicks=yes');
    expect({ status: res.status, error: JSON.parse(text).error }).toMatchObject({
      status: 400,
      error: { code: 'invalid_request', field: 'clicks' },
    });
  });
});
