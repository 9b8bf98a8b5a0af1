/**
 * /links: create, read, update, delete, list filters and tag counts, through the real app on
 * each engine. Counters that only the click pipeline moves are written straight into the
 * database (test/helpers/stored.ts: clicks do not flow through this module).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import type { Engine } from '../../src/db/address';
import { LinkListModel, LinkModel, TagCountsModel } from '../../src/modules/links/model';
import { api, makeKey, makeTestApp, T0, type TestApp } from '../helpers/app';
import { engineBlind, forEachEngine } from '../helpers/engines';
import { expectError, expectExactKeys, expectSchema } from '../helpers/schema';
import { countRows, linkCounterRows, setLinkCounters } from '../helpers/stored';

const SHORT_HOST = 'https://sl.test';

/** The Link fields of the interface description, no more, no less. */
const LINK_KEYS = [
  'id',
  'slug',
  'shortUrl',
  'domain',
  'destination',
  'title',
  'tags',
  'status',
  'availability',
  'params',
  'variants',
  'projectId',
  'projectName',
  'clickCount',
  'uniqueCount',
  'botCount',
  'expiresAt',
  'clickLimit',
  'fallbackUrl',
  'redirectStatus',
  'forwardQuery',
  'passwordProtected',
  'rules',
  'preview',
  'lastClickedAt',
  'fallbackCount',
  'imported',
  'createdAt',
  'updatedAt',
] as const;

/** Elysia's t.Integer also admits numeric strings, so integers are checked by type as well. */
function expectLink(body: any): void {
  expectSchema(LinkModel, body);
  expectExactKeys(body, LINK_KEYS);
  for (const k of ['clickCount', 'uniqueCount', 'botCount', 'fallbackCount', 'createdAt', 'updatedAt'] as const) {
    expect(Number.isSafeInteger(body[k])).toBe(true);
  }
  for (const k of ['expiresAt', 'clickLimit', 'lastClickedAt'] as const) {
    expect(body[k] === null || Number.isSafeInteger(body[k])).toBe(true);
  }
  expect(body.shortUrl).toBe(`${SHORT_HOST}/${body.slug}`);
}

interface Ctx {
  t: TestApp;
  /** superuser write key */
  su: string;
}

async function fresh(engine: Engine): Promise<Ctx> {
  const t = await makeTestApp({}, { engine });
  const { key } = await makeKey(t, 'write', { superuser: true });
  return { t, su: key };
}

async function createLink(c: Ctx, body: Record<string, unknown>): Promise<any> {
  const res = await api(c.t, 'POST', '/links', { key: c.su, body });
  expect(res.status).toBe(201);
  expectLink(res.body);
  return res.body;
}

async function listAll(c: Ctx, query = ''): Promise<any[]> {
  const res = await api(c.t, 'GET', `/links${query}`, { key: c.su });
  expect(res.status).toBe(200);
  expectSchema(LinkListModel, res.body);
  expectExactKeys(res.body, ['items', 'cursor']);
  expect(res.body.cursor).toBeNull();
  return res.body.items;
}

function countLinks(c: Ctx): Promise<number> {
  return countRows(c.t, 'links');
}

async function slugsOf(c: Ctx, query = ''): Promise<string[]> {
  return (await listAll(c, query)).map((l) => l.slug).sort();
}

forEachEngine((engine) => {
  // Request validation, slug and URL rules, utm_ lifting and scopes (`blind`) are decided before
  // the store: SQLite only. What is stored and read back runs on both engines.
  const blind = engineBlind(engine);

  // ---------------------------------------------------------------------------------------

  describe('POST /links', () => {
    let c: Ctx;
    // One app for the whole group (keys cost an argon2 hash each): tests that look at the
    // whole table compare row counts before and after instead of expecting it empty.
    beforeAll(async () => {
      c = await fresh(engine);
    });
    afterAll(() => c.t.close());

    test('201 with every Link field and the documented defaults', async () => {
      const res = await api(c.t, 'POST', '/links', { key: c.su, body: { destination: 'https://example.com/pricing' } });
      expect(res.status).toBe(201);
      expectLink(res.body);
      const { id, slug, ...rest } = res.body;
      expect(id).toEqual(expect.any(String));
      expect(id.length).toBeGreaterThan(0);
      expect(rest).toEqual({
        shortUrl: `${SHORT_HOST}/${slug}`,
        domain: 'sl.test',
        destination: 'https://example.com/pricing',
        title: null,
        tags: [],
        status: 'active',
        availability: 'live',
        params: {},
        variants: [],
        projectId: null,
        projectName: null,
        clickCount: 0,
        uniqueCount: 0,
        botCount: 0,
        expiresAt: null,
        clickLimit: null,
        fallbackUrl: null,
        redirectStatus: 302,
        forwardQuery: false,
        passwordProtected: false,
        rules: [],
        preview: null,
        lastClickedAt: null,
        fallbackCount: 0,
        imported: null,
        createdAt: T0,
        updatedAt: T0,
      });
      // Its counters row is written with it, every count at zero.
      expect(await linkCounterRows(c.t, id)).toEqual([
        { link_id: id, clicks: 0, uniques: 0, bots: 0, last_clicked_at: null },
      ]);
    });

    blind('utm_ keys are lifted into params; functional keys stay on the destination byte for byte', async () => {
      const link = await createLink(c, {
        destination:
          'https://example.com/pricing?plan=pro&utm_source=newsletter&ref=a%2Fb&q=x+y&flag&utm_campaign=spring%20sale&empty=&utm_medium=e+mail&Plan=2#top',
      });
      expect(link.destination).toBe('https://example.com/pricing?plan=pro&ref=a%2Fb&q=x+y&flag&empty=&Plan=2#top');
      expect(link.params).toEqual({ utm_source: 'newsletter', utm_campaign: 'spring sale', utm_medium: 'e mail' });
      expect(link.shortUrl).toBe(`${SHORT_HOST}/${link.slug}`);
      expect(link.shortUrl).not.toContain('?');
      expect(link.shortUrl).not.toContain('utm');
    });

    blind('a destination with only utm_ keys loses its query entirely', async () => {
      const link = await createLink(c, { destination: 'https://example.com/landing?utm_source=x&utm_medium=y' });
      expect(link.destination).toBe('https://example.com/landing');
      expect(link.params).toEqual({ utm_source: 'x', utm_medium: 'y' });
    });

    blind('a destination without utm_ keys is kept as written', async () => {
      const destination = 'https://example.com/a/b?id=42&sort=desc&tags=a,b&x=%20y';
      const link = await createLink(c, { destination });
      expect(link.destination).toBe(destination);
      expect(link.params).toEqual({});
    });

    blind('destination utm_ values win over body params of the same key; other body params stay', async () => {
      const link = await createLink(c, {
        destination: 'https://example.com/?utm_source=dest&keep=1',
        params: { utm_source: 'body', utm_medium: 'body-medium', ref: 'abc' },
      });
      expect(link.destination).toBe('https://example.com/?keep=1');
      expect(link.params).toEqual({ utm_source: 'dest', utm_medium: 'body-medium', ref: 'abc' });
      // The shared link never carries them.
      expect(link.shortUrl).toBe(`${SHORT_HOST}/${link.slug}`);
    });

    blind('generated slugs are 7 characters of [A-Za-z0-9] and differ across creates', async () => {
      const slugs: string[] = [];
      for (let i = 0; i < 25; i++) {
        const link = await createLink(c, { destination: 'https://example.com/same' });
        expect(link.slug).toMatch(/^[A-Za-z0-9]{7}$/);
        expect(link.shortUrl).toBe(`${SHORT_HOST}/${link.slug}`);
        slugs.push(link.slug);
      }
      expect(new Set(slugs).size).toBe(25);
    });

    blind('tags are trimmed and repeats dropped; title is trimmed', async () => {
      const link = await createLink(c, {
        destination: 'https://example.com/',
        tags: ['  launch ', 'q4', 'launch', 'q4 ', 'ads'],
        title: '  Launch page  ',
      });
      expect([...link.tags].sort()).toEqual(['ads', 'launch', 'q4']);
      expect(link.title).toBe('Launch page');
    });

    test('expiresAt, clickLimit, params and title are stored and read back', async () => {
      const link = await createLink(c, {
        destination: 'https://example.com/',
        title: 'Spring',
        params: { src: 'mail', empty: '' },
        expiresAt: T0 + 86_400_000,
        clickLimit: 10,
      });
      expect(link).toMatchObject({
        title: 'Spring',
        params: { src: 'mail', empty: '' },
        expiresAt: T0 + 86_400_000,
        clickLimit: 10,
      });
      const got = await api(c.t, 'GET', `/links/${link.id}`, { key: c.su });
      expect(got.status).toBe(200);
      expect(got.body).toEqual(link);
    });

    test('explicit nulls are accepted for the nullable fields', async () => {
      const link = await createLink(c, {
        destination: 'https://example.com/',
        title: null,
        projectId: null,
        expiresAt: null,
        clickLimit: null,
      });
      expect(link).toMatchObject({
        title: null,
        projectId: null,
        projectName: null,
        expiresAt: null,
        clickLimit: null,
      });
    });

    blind('an internationalised host is stored as punycode', async () => {
      const link = await createLink(c, { destination: 'https://bücher.example/katalog?q=1' });
      expect(link.destination).toBe('https://xn--bcher-kva.example/katalog?q=1');
      const other = await createLink(c, { destination: 'http://münchen.de/' });
      expect(other.destination).toBe('http://xn--mnchen-3ya.de/');
    });

    test('a destination of exactly 2048 characters is accepted', async () => {
      const destination = `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`;
      expect(destination.length).toBe(2048);
      const link = await createLink(c, { destination });
      expect(link.destination).toBe(destination);
    });

    const badDestinations: [string, unknown][] = [
      ['javascript: scheme', 'javascript:alert(1)'],
      ['data: scheme', 'data:text/html,<script>alert(1)</script>'],
      ['ftp: scheme', 'ftp://example.com/file'],
      ['mailto: scheme', 'mailto:someone@example.com'],
      ['relative path', '/x'],
      ['no scheme', 'example.com'],
      ['protocol-relative', '//example.com/x'],
      ['scheme without host', 'http://'],
      ['single slash', 'http:/example.com'],
      ['user and password', 'https://user:pass@example.com/'],
      ['user only', 'https://user@example.com/'],
      ['newline inside', 'https://example.com/a\nb'],
      ['tab inside', 'https://example.com/a\tb'],
      ['NUL inside', 'https://example.com/a\u0000b'],
      ['trailing newline (not trimmed away)', 'https://example.com/a\n'],
      ['leading tab', '\thttps://example.com/a'],
      ['carriage return inside', 'https://exa\rmple.com/'],
      ['DEL inside', 'https://example.com/a\u007fb'],
      ['over 2048 characters', `https://example.com/${'a'.repeat(2049 - 'https://example.com/'.length)}`],
      ['empty', ''],
      ['blank', '   '],
      ['a number', 42],
      ['null', null],
      ['an object', { url: 'https://example.com' }],
    ];
    for (const [name, destination] of badDestinations) {
      blind(`destination ${name} -> 400 invalid_request (field destination)`, async () => {
        const before = await countLinks(c);
        const res = await api(c.t, 'POST', '/links', { key: c.su, body: { destination } });
        expectError(res, 400, 'invalid_request', 'destination');
        expect(await countLinks(c)).toBe(before);
      });
    }

    blind('a missing destination -> 400 naming destination', async () => {
      const res = await api(c.t, 'POST', '/links', { key: c.su, body: { title: 'no destination' } });
      expectError(res, 400, 'invalid_request', 'destination');
    });

    describe('custom slugs', () => {
      test('a superuser key may choose one, letters, digits, - and _ allowed', async () => {
        const link = await createLink(c, { destination: 'https://example.com/', slug: 'Spring-Sale_2026' });
        expect(link.slug).toBe('Spring-Sale_2026');
        expect(link.shortUrl).toBe(`${SHORT_HOST}/Spring-Sale_2026`);
      });

      blind('a non-superuser key gets 403 superuser_required (field slug) and nothing is created', async () => {
        const { key } = await makeKey(c.t, 'write');
        const before = await countLinks(c);
        const res = await api(c.t, 'POST', '/links', {
          key,
          body: { destination: 'https://example.com/', slug: 'mine' },
        });
        expectError(res, 403, 'superuser_required', 'slug');
        expect(await countLinks(c)).toBe(before);
        // The same key may still create a link with a generated slug.
        const ok = await api(c.t, 'POST', '/links', { key, body: { destination: 'https://example.com/' } });
        expect(ok.status).toBe(201);
        expectLink(ok.body);
        expect(ok.body.slug).toMatch(/^[A-Za-z0-9]{7}$/);
      });

      test('64 characters is the longest slug', async () => {
        const slug = 'a'.repeat(64);
        const link = await createLink(c, { destination: 'https://example.com/', slug });
        expect(link.slug).toBe(slug);
      });

      const badSlugs: [string, unknown][] = [
        ['65 characters', 'b'.repeat(65)],
        ['empty', ''],
        ['a space', 'two words'],
        ['a slash', 'a/b'],
        ['a dot', 'a.b'],
        ['a question mark', 'a?b'],
        ['a percent sign', 'a%20b'],
        ['a non-ASCII letter', 'café'],
        ['a leading space', ' abc'],
        ['a number', 123],
        ['null', null],
      ];
      for (const [name, slug] of badSlugs) {
        blind(`slug with ${name} -> 400 invalid_request (field slug)`, async () => {
          const before = await countLinks(c);
          const res = await api(c.t, 'POST', '/links', {
            key: c.su,
            body: { destination: 'https://example.com/', slug },
          });
          expectError(res, 400, 'invalid_request', 'slug');
          expect(await countLinks(c)).toBe(before);
        });
      }

      for (const slug of [
        'api',
        'API',
        'Api',
        'app',
        'APP',
        'healthz',
        'HealthZ',
        'metrics',
        'Metrics',
        'favicon.ico',
        'Favicon.ICO',
        'robots.txt',
        'ROBOTS.TXT',
      ]) {
        blind(`reserved slug "${slug}" -> 400 invalid_request (field slug)`, async () => {
          const res = await api(c.t, 'POST', '/links', {
            key: c.su,
            body: { destination: 'https://example.com/', slug },
          });
          expectError(res, 400, 'invalid_request', 'slug');
        });
      }

      blind('words that merely contain a reserved word are fine', async () => {
        for (const slug of ['apis', 'my-app', 'healthz2', 'favicon']) {
          const link = await createLink(c, { destination: 'https://example.com/', slug });
          expect(link.slug).toBe(slug);
        }
      });

      test('a taken slug -> 409 conflict (field slug)', async () => {
        const first = await createLink(c, { destination: 'https://example.com/1', slug: 'taken-slug' });
        const res = await api(c.t, 'POST', '/links', {
          key: c.su,
          body: { destination: 'https://example.com/2', slug: 'taken-slug' },
        });
        expectError(res, 409, 'conflict', 'slug');
        const all = await listAll(c, '?q=taken-slug');
        expect(all.map((l) => l.id)).toEqual([first.id]);
        expect(all[0].destination).toBe('https://example.com/1');
      });

      test('slugs are case-sensitive: "Abc" and "abc" are two links', async () => {
        const upper = await createLink(c, { destination: 'https://example.com/upper', slug: 'Abc' });
        const lower = await createLink(c, { destination: 'https://example.com/lower', slug: 'abc' });
        expect(upper.id).not.toBe(lower.id);
        expect(upper.slug).toBe('Abc');
        expect(lower.slug).toBe('abc');
        const gotUpper = await api(c.t, 'GET', `/links/${upper.id}`, { key: c.su });
        const gotLower = await api(c.t, 'GET', `/links/${lower.id}`, { key: c.su });
        expect([gotUpper.status, gotUpper.body.slug, gotUpper.body.destination]).toEqual([
          200,
          'Abc',
          'https://example.com/upper',
        ]);
        expect([gotLower.status, gotLower.body.slug, gotLower.body.destination]).toEqual([
          200,
          'abc',
          'https://example.com/lower',
        ]);
        const again = await api(c.t, 'POST', '/links', {
          key: c.su,
          body: { destination: 'https://example.com/', slug: 'ABC' },
        });
        expect(again.status).toBe(201);
        expect(again.body.slug).toBe('ABC');
      });
    });

    test('an unknown projectId -> 400 invalid_request (field projectId)', async () => {
      const before = await countLinks(c);
      const res = await api(c.t, 'POST', '/links', {
        key: c.su,
        body: { destination: 'https://example.com/', projectId: 'prj_doesnotexist' },
      });
      expectError(res, 400, 'invalid_request', 'projectId');
      expect(await countLinks(c)).toBe(before);
    });

    const badNumbers: [string, string, unknown][] = [
      ['expiresAt', 'a numeric string', '1795262400000'],
      ['expiresAt', 'a word', 'tomorrow'],
      ['expiresAt', 'a negative number', -1],
      ['expiresAt', 'a float', 1.5],
      ['expiresAt', 'a boolean', true],
      ['expiresAt', 'an object', {}],
      ['clickLimit', 'a numeric string', '5'],
      ['clickLimit', 'a negative number', -3],
      ['clickLimit', 'zero', 0],
      ['clickLimit', 'a float', 2.5],
      ['clickLimit', 'a boolean', false],
    ];
    for (const [field, name, value] of badNumbers) {
      blind(`${field} as ${name} -> 400 naming ${field}`, async () => {
        const before = await countLinks(c);
        const res = await api(c.t, 'POST', '/links', {
          key: c.su,
          body: { destination: 'https://example.com/', [field]: value },
        });
        expectError(res, 400, 'invalid_request', field);
        expect(await countLinks(c)).toBe(before);
      });
    }

    test('clickLimit 1 and expiresAt 0 are the smallest accepted values', async () => {
      const link = await createLink(c, { destination: 'https://example.com/', clickLimit: 1, expiresAt: 0 });
      expect(link.clickLimit).toBe(1);
      expect(link.expiresAt).toBe(0);
    });

    const otherBadFields: [string, unknown][] = [
      ['title', 'x'.repeat(501)],
      ['title', 12],
      ['tags', 'launch'],
      ['tags', ['ok', '']],
      ['tags', ['   ']],
      ['tags', ['x'.repeat(65)]],
      ['tags', [1]],
      ['params', { n: 1 }],
      ['params', { nested: { a: 'b' } }],
      ['params', { ['k'.repeat(129)]: 'v' }],
      ['params', { k: 'v'.repeat(1025) }],
      ['params', { 'bad\tkey': 'v' }],
      ['params', { key: 'bad\nvalue' }],
      ['projectId', 7],
    ];
    for (const [field, value] of otherBadFields) {
      blind(`${field} = ${JSON.stringify(value).slice(0, 40)} -> 400 naming ${field}`, async () => {
        const before = await countLinks(c);
        const res = await api(c.t, 'POST', '/links', {
          key: c.su,
          body: { destination: 'https://example.com/', [field]: value },
        });
        expectError(res, 400, 'invalid_request', field);
        expect(await countLinks(c)).toBe(before);
      });
    }

    // Elysia's default `normalize: true` ran exact-mirror over the body BEFORE validating it, which
    // turned a string or array into an object of its indices ("a=b" -> {"0":"a","1":"=","2":"b"})
    // and a number or boolean into {}: stored as garbage params with 201. createApp now uses
    // normalize: 'typebox'; these keep it that way.
    for (const params of [['a'], 'a=b', 5, true, null] as unknown[]) {
      blind(`params = ${JSON.stringify(params)} (not an object) -> 400 naming params`, async () => {
        const before = await countLinks(c);
        const res = await api(c.t, 'POST', '/links', {
          key: c.su,
          body: { destination: 'https://example.com/', params },
        });
        expectError(res, 400, 'invalid_request', 'params');
        expect(await countLinks(c)).toBe(before);
      });
    }

    // The params key schema must admit every string, so such keys reach the control-character check.
    blind('a param key with a newline -> 400 naming params (not silently dropped)', async () => {
      const before = await countLinks(c);
      const res = await api(c.t, 'POST', '/links', {
        key: c.su,
        body: { destination: 'https://example.com/', params: { 'bad\nkey': 'v', ok: '1' } },
      });
      expectError(res, 400, 'invalid_request', 'params');
      expect(await countLinks(c)).toBe(before);
    });

    test('a param key with U+2028 is kept, not silently dropped', async () => {
      const link = await createLink(c, { destination: 'https://example.com/', params: { 'a\u2028b': 'v' } });
      expect(link.params).toEqual({ 'a\u2028b': 'v' });
    });

    blind('unknown body fields are ignored, not stored', async () => {
      const link = await createLink(c, {
        destination: 'https://example.com/extra',
        clickCount: 99,
        status: 'archived',
        id: 'lnk_mine',
        bogus: 1,
      });
      expect(link).toMatchObject({ clickCount: 0, status: 'active' });
      expect(link.id).not.toBe('lnk_mine');
    });

    blind('a read key cannot create (403 insufficient_scope)', async () => {
      const { key } = await makeKey(c.t, 'read');
      const before = await countLinks(c);
      const res = await api(c.t, 'POST', '/links', { key, body: { destination: 'https://example.com/' } });
      expectError(res, 403, 'insufficient_scope', null);
      expect(await countLinks(c)).toBe(before);
    });
  });

  // ---------------------------------------------------------------------------------------

  describe('GET /links/{id}', () => {
    let c: Ctx;
    beforeAll(async () => {
      c = await fresh(engine);
    });
    afterAll(() => c.t.close());

    test('200 with the link, for a write and a read key alike', async () => {
      const link = await createLink(c, { destination: 'https://example.com/get?x=1', title: 'Get me', tags: ['a'] });
      const res = await api(c.t, 'GET', `/links/${link.id}`, { key: c.su });
      expect(res.status).toBe(200);
      expectLink(res.body);
      expect(res.body).toEqual(link);
      const { key } = await makeKey(c.t, 'read');
      const asReader = await api(c.t, 'GET', `/links/${link.id}`, { key });
      expect(asReader.status).toBe(200);
      expect(asReader.body).toEqual(link);
    });

    test('404 not_found for an unknown id', async () => {
      const res = await api(c.t, 'GET', '/links/lnk_doesnotexist00', { key: c.su });
      expectError(res, 404, 'not_found', null);
    });

    test('404 for a slug used in place of an id', async () => {
      const link = await createLink(c, { destination: 'https://example.com/', slug: 'by-slug' });
      expect(link.id).not.toBe('by-slug');
      const res = await api(c.t, 'GET', '/links/by-slug', { key: c.su });
      expectError(res, 404, 'not_found', null);
    });
  });

  // ---------------------------------------------------------------------------------------

  describe('PATCH /links/{id}', () => {
    let c: Ctx;
    beforeEach(async () => {
      c = await fresh(engine);
    });
    afterEach(() => c.t.close());

    async function patch(id: string, body: unknown, key = c.su) {
      return api(c.t, 'PATCH', `/links/${id}`, { key, body });
    }

    async function full(): Promise<any> {
      return createLink(c, {
        destination: 'https://example.com/start?keep=1',
        slug: 'start',
        title: 'Start',
        tags: ['one', 'two'],
        params: { src: 'mail' },
        // Far enough for the clock these tests advance: the link stays live (availability).
        expiresAt: T0 + 3_600_000,
        clickLimit: 5,
      });
    }

    test('only the fields sent change; updatedAt moves with the clock, createdAt does not', async () => {
      const link = await full();
      c.t.clock.advance(5_000);
      const res = await patch(link.id, { title: 'Renamed' });
      expect(res.status).toBe(200);
      expectLink(res.body);
      expect(res.body).toEqual({ ...link, title: 'Renamed', updatedAt: T0 + 5_000 });
      const got = await api(c.t, 'GET', `/links/${link.id}`, { key: c.su });
      expect(got.body).toEqual(res.body);
    });

    test('every field can be changed on its own', async () => {
      const link = await full();
      const changes: [Record<string, unknown>, Record<string, unknown>][] = [
        [{ tags: ['three'] }, { tags: ['three'] }],
        [{ tags: [] }, { tags: [] }],
        [{ params: { ref: 'x' } }, { params: { ref: 'x' } }],
        [{ expiresAt: T0 + 9_000 }, { expiresAt: T0 + 9_000 }],
        [{ expiresAt: null }, { expiresAt: null }],
        [{ clickLimit: 7 }, { clickLimit: 7 }],
        [{ clickLimit: null }, { clickLimit: null }],
        [{ destination: 'https://other.example/path' }, { destination: 'https://other.example/path' }],
        [{ status: 'paused' }, { status: 'paused', availability: 'paused' }],
      ];
      let expected = link;
      for (const [body, delta] of changes) {
        c.t.clock.advance(1_000);
        const res = await patch(link.id, body);
        expect(res.status).toBe(200);
        expectLink(res.body);
        expected = { ...expected, ...delta, updatedAt: c.t.clock.now() };
        expect(res.body).toEqual(expected);
      }
    });

    test('title null clears the title', async () => {
      const link = await full();
      const res = await patch(link.id, { title: null });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...link, title: null });
    });

    test('an empty body changes nothing, not even updatedAt', async () => {
      const link = await full();
      c.t.clock.advance(1_000);
      const res = await patch(link.id, {});
      expect(res.status).toBe(200);
      expect(res.body).toEqual(link);
    });

    test('status transitions: paused stays listed, archived is hidden unless status=archived', async () => {
      const a = await createLink(c, { destination: 'https://example.com/a', slug: 'a' });
      const b = await createLink(c, { destination: 'https://example.com/b', slug: 'b' });
      const d = await createLink(c, { destination: 'https://example.com/d', slug: 'd' });

      const paused = await patch(b.id, { status: 'paused' });
      expect(paused.status).toBe(200);
      expect(paused.body.status).toBe('paused');
      const archived = await patch(d.id, { status: 'archived' });
      expect(archived.status).toBe(200);
      expect(archived.body.status).toBe('archived');

      expect(await slugsOf(c)).toEqual(['a', 'b']);
      expect(await slugsOf(c, '?status=active')).toEqual(['a']);
      expect(await slugsOf(c, '?status=paused')).toEqual(['b']);
      expect(await slugsOf(c, '?status=archived')).toEqual(['d']);

      // An archived link is still readable by id and can be brought back.
      const got = await api(c.t, 'GET', `/links/${d.id}`, { key: c.su });
      expect(got.status).toBe(200);
      expect(got.body.status).toBe('archived');
      const back = await patch(d.id, { status: 'active' });
      expect(back.status).toBe(200);
      expect(back.body.status).toBe('active');
      expect(await slugsOf(c)).toEqual(['a', 'b', 'd']);
      expect(a.status).toBe('active');
    });

    test('a PATCH that does not send status keeps a paused or archived link as it is', async () => {
      const link = await full();
      await patch(link.id, { status: 'paused' });
      const res = await patch(link.id, { title: 'Still paused' });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('paused');
      await patch(link.id, { status: 'archived' });
      const res2 = await patch(link.id, { tags: ['x'] });
      expect(res2.body.status).toBe('archived');
    });

    test('an unknown status -> 400 field status', async () => {
      const link = await full();
      const res = await patch(link.id, { status: 'deleted' });
      expectError(res, 400, 'invalid_request', 'status');
      const got = await api(c.t, 'GET', `/links/${link.id}`, { key: c.su });
      expect(got.body).toEqual(link);
    });

    test('slug rename by a superuser: 200, shortUrl follows, the old slug is free again', async () => {
      const link = await full();
      c.t.clock.advance(1_000);
      const res = await patch(link.id, { slug: 'renamed' });
      expect(res.status).toBe(200);
      expectLink(res.body);
      expect(res.body).toEqual({ ...link, slug: 'renamed', shortUrl: `${SHORT_HOST}/renamed`, updatedAt: T0 + 1_000 });
      const reuse = await createLink(c, { destination: 'https://example.com/new', slug: 'start' });
      expect(reuse.slug).toBe('start');
    });

    test('slug rename by a non-superuser -> 403 superuser_required (field slug), nothing changes', async () => {
      const link = await full();
      const { key } = await makeKey(c.t, 'write');
      const res = await patch(link.id, { slug: 'mine', title: 'sneaky' }, key);
      expectError(res, 403, 'superuser_required', 'slug');
      const got = await api(c.t, 'GET', `/links/${link.id}`, { key: c.su });
      expect(got.body).toEqual(link);
      // Other fields are theirs to change, and sending the current slug is not a rename.
      const same = await patch(link.id, { slug: 'start', title: 'Allowed' }, key);
      expect(same.status).toBe(200);
      expect(same.body).toEqual({ ...link, title: 'Allowed' });
    });

    test('slug rename to a taken slug -> 409 conflict; to an invalid or reserved one -> 400 slug', async () => {
      const link = await full();
      await createLink(c, { destination: 'https://example.com/', slug: 'other' });
      expectError(await patch(link.id, { slug: 'other' }), 409, 'conflict', 'slug');
      expectError(await patch(link.id, { slug: 'has space' }), 400, 'invalid_request', 'slug');
      expectError(await patch(link.id, { slug: '' }), 400, 'invalid_request', 'slug');
      expectError(await patch(link.id, { slug: 'x'.repeat(65) }), 400, 'invalid_request', 'slug');
      expectError(await patch(link.id, { slug: 'Healthz' }), 400, 'invalid_request', 'slug');
      const got = await api(c.t, 'GET', `/links/${link.id}`, { key: c.su });
      expect(got.body).toEqual(link);
      // Only case differs from the taken one: a different slug.
      const ok = await patch(link.id, { slug: 'Other' });
      expect(ok.status).toBe(200);
      expect(ok.body.slug).toBe('Other');
    });

    test('a new destination has its utm_ keys lifted over the current params', async () => {
      const link = await full();
      const res = await patch(link.id, { destination: 'https://new.example/p?utm_source=new&x=1&utm_medium=mail' });
      expect(res.status).toBe(200);
      expect(res.body.destination).toBe('https://new.example/p?x=1');
      expect(res.body.params).toEqual({ src: 'mail', utm_source: 'new', utm_medium: 'mail' });
      expect(res.body.shortUrl).toBe(`${SHORT_HOST}/start`);
    });

    test('destination and params sent together: params replaced, destination utm_ values win', async () => {
      const link = await full();
      const res = await patch(link.id, {
        destination: 'https://new.example/?utm_source=dest',
        params: { utm_source: 'body', other: 'o' },
      });
      expect(res.status).toBe(200);
      expect(res.body.destination).toBe('https://new.example/');
      expect(res.body.params).toEqual({ utm_source: 'dest', other: 'o' });
    });

    test('a destination without utm_ keys leaves params alone', async () => {
      const link = await full();
      const res = await patch(link.id, { destination: 'https://new.example/plain?a=b' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...link, destination: 'https://new.example/plain?a=b' });
    });

    test('an invalid destination -> 400 field destination, nothing changes', async () => {
      const link = await full();
      for (const destination of [
        'javascript:alert(1)',
        'example.com',
        'https://u:p@example.com/',
        'https://e.com/\u0000',
        '',
      ]) {
        expectError(await patch(link.id, { destination, title: 'x' }), 400, 'invalid_request', 'destination');
      }
      const got = await api(c.t, 'GET', `/links/${link.id}`, { key: c.su });
      expect(got.body).toEqual(link);
    });

    test('invalid expiresAt, clickLimit, projectId -> 400 naming the field', async () => {
      const link = await full();
      expectError(await patch(link.id, { expiresAt: '5' }), 400, 'invalid_request', 'expiresAt');
      expectError(await patch(link.id, { expiresAt: -5 }), 400, 'invalid_request', 'expiresAt');
      expectError(await patch(link.id, { clickLimit: 0 }), 400, 'invalid_request', 'clickLimit');
      expectError(await patch(link.id, { clickLimit: 1.25 }), 400, 'invalid_request', 'clickLimit');
      expectError(await patch(link.id, { projectId: 'prj_nope' }), 400, 'invalid_request', 'projectId');
      const got = await api(c.t, 'GET', `/links/${link.id}`, { key: c.su });
      expect(got.body).toEqual(link);
    });

    test('tags are trimmed and deduplicated on update too', async () => {
      const link = await full();
      const res = await patch(link.id, { tags: [' b ', 'a', 'b'] });
      expect(res.status).toBe(200);
      expect([...res.body.tags].sort()).toEqual(['a', 'b']);
    });

    test('updatedAt never moves backwards when the clock does', async () => {
      const link = await full();
      c.t.clock.advance(10_000);
      await patch(link.id, { title: 'later' });
      c.t.clock.set(T0 + 2_000);
      const res = await patch(link.id, { title: 'earlier clock' });
      expect(res.status).toBe(200);
      expect(res.body.updatedAt).toBe(T0 + 10_000);
    });

    test('unknown id -> 404 not_found', async () => {
      expectError(await patch('lnk_doesnotexist00', { title: 'x' }), 404, 'not_found', null);
    });
  });

  // ---------------------------------------------------------------------------------------

  describe('DELETE /links/{id}', () => {
    let c: Ctx;
    beforeEach(async () => {
      c = await fresh(engine);
    });
    afterEach(() => c.t.close());

    test('200 {id, deleted:true}; afterwards 404 for GET, PATCH and DELETE', async () => {
      const link = await createLink(c, { destination: 'https://example.com/', slug: 'gone' });
      const keep = await createLink(c, { destination: 'https://example.com/keep' });
      const res = await api(c.t, 'DELETE', `/links/${link.id}`, { key: c.su });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: link.id, deleted: true });
      expectError(await api(c.t, 'GET', `/links/${link.id}`, { key: c.su }), 404, 'not_found', null);
      expectError(
        await api(c.t, 'PATCH', `/links/${link.id}`, { key: c.su, body: { title: 'x' } }),
        404,
        'not_found',
        null,
      );
      expectError(await api(c.t, 'DELETE', `/links/${link.id}`, { key: c.su }), 404, 'not_found', null);
      expect((await listAll(c)).map((l) => l.id)).toEqual([keep.id]);
      // The slug is free again.
      expect((await createLink(c, { destination: 'https://example.com/', slug: 'gone' })).slug).toBe('gone');
    });

    test('a link with recorded human clicks -> 409 delete_requires_dashboard and is kept', async () => {
      const link = await createLink(c, { destination: 'https://example.com/' });
      await setLinkCounters(c.t, link.id, { clicks: 1 });
      const res = await api(c.t, 'DELETE', `/links/${link.id}`, { key: c.su });
      expectError(res, 409, 'delete_requires_dashboard', null);
      const got = await api(c.t, 'GET', `/links/${link.id}`, { key: c.su });
      expect(got.status).toBe(200);
      expect(got.body).toEqual({ ...link, clickCount: 1 });
      // Archiving is the API's way out.
      const archived = await api(c.t, 'PATCH', `/links/${link.id}`, { key: c.su, body: { status: 'archived' } });
      expect(archived.status).toBe(200);
      expect(archived.body.status).toBe('archived');
      expectError(await api(c.t, 'DELETE', `/links/${link.id}`, { key: c.su }), 409, 'delete_requires_dashboard', null);
    });

    test('a link with only bot hits is deletable', async () => {
      const link = await createLink(c, { destination: 'https://example.com/' });
      await setLinkCounters(c.t, link.id, { bots: 12 });
      const res = await api(c.t, 'DELETE', `/links/${link.id}`, { key: c.su });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: link.id, deleted: true });
      expectError(await api(c.t, 'GET', `/links/${link.id}`, { key: c.su }), 404, 'not_found', null);
      // Its counters row went with it (the foreign key's cascade).
      expect(await linkCounterRows(c.t, link.id)).toEqual([]);
    });

    test('deleting a link drops its tags from the tag counts', async () => {
      const a = await createLink(c, { destination: 'https://example.com/a', tags: ['shared', 'only-a'] });
      await createLink(c, { destination: 'https://example.com/b', tags: ['shared'] });
      expect((await api(c.t, 'DELETE', `/links/${a.id}`, { key: c.su })).status).toBe(200);
      const tags = await api(c.t, 'GET', '/links/tags', { key: c.su });
      expect(tags.status).toBe(200);
      expect(tags.body).toEqual({ tags: [{ tag: 'shared', count: 1 }] });
    });

    test('unknown id -> 404 not_found', async () => {
      expectError(await api(c.t, 'DELETE', '/links/lnk_doesnotexist00', { key: c.su }), 404, 'not_found', null);
    });

    test('a read key cannot delete (403 insufficient_scope)', async () => {
      const link = await createLink(c, { destination: 'https://example.com/' });
      const { key } = await makeKey(c.t, 'read');
      expectError(await api(c.t, 'DELETE', `/links/${link.id}`, { key }), 403, 'insufficient_scope', null);
      expect((await api(c.t, 'GET', `/links/${link.id}`, { key })).status).toBe(200);
    });
  });

  // ---------------------------------------------------------------------------------------

  describe('GET /links filters', () => {
    let c: Ctx;
    let projectId: string;
    beforeAll(async () => {
      c = await fresh(engine);
      const project = await api(c.t, 'POST', '/projects', { key: c.su, body: { name: 'Campaigns' } });
      expect(project.status).toBe(201);
      projectId = project.body.id;
      await createLink(c, {
        destination: 'https://one.example/',
        slug: 'alpha-one',
        title: 'Quarterly Report',
        tags: ['red', 'blue'],
        projectId,
      });
      await createLink(c, { destination: 'https://two.example/Guide', slug: 'beta', title: '100% off', tags: ['red'] });
      await createLink(c, { destination: 'https://three.example/', slug: 'a_c', tags: ['Red'], projectId });
      await createLink(c, { destination: 'https://four.example/x', slug: 'abc', title: '100x off' });
      const paused = await createLink(c, { destination: 'https://five.example/', slug: 'paused-one', tags: ['red'] });
      const archived = await createLink(c, {
        destination: 'https://six.example/',
        slug: 'archived-one',
        title: 'Old report',
        tags: ['red'],
        projectId,
      });
      expect((await api(c.t, 'PATCH', `/links/${paused.id}`, { key: c.su, body: { status: 'paused' } })).status).toBe(
        200,
      );
      expect(
        (await api(c.t, 'PATCH', `/links/${archived.id}`, { key: c.su, body: { status: 'archived' } })).status,
      ).toBe(200);
    });
    afterAll(() => c.t.close());

    test('without filters: active and paused links, archived left out', async () => {
      expect(await slugsOf(c)).toEqual(['a_c', 'abc', 'alpha-one', 'beta', 'paused-one']);
    });

    const qCases: [string, string[]][] = [
      ['ALPHA', ['alpha-one']],
      ['report', ['alpha-one']],
      ['QUARTERLY', ['alpha-one']],
      ['guide', ['beta']],
      ['two.example', ['beta']],
      ['100%', ['beta']],
      ['%', ['beta']],
      ['a_c', ['a_c']],
      ['_', ['a_c']],
      ['example', ['a_c', 'abc', 'alpha-one', 'beta', 'paused-one']],
      ['\\', []],
      ["'", []],
      ['nothing-matches', []],
    ];
    for (const [q, expected] of qCases) {
      test(`q=${q} matches slug, title or destination, case-insensitively and literally`, async () => {
        expect(await slugsOf(c, `?q=${encodeURIComponent(q)}`)).toEqual(expected);
      });
    }

    test('q combines with status', async () => {
      expect(await slugsOf(c, '?q=report&status=archived')).toEqual(['archived-one']);
    });

    test('tag filters by exact tag', async () => {
      expect(await slugsOf(c, '?tag=red')).toEqual(['alpha-one', 'beta', 'paused-one']);
      expect(await slugsOf(c, '?tag=blue')).toEqual(['alpha-one']);
      expect(await slugsOf(c, '?tag=Red')).toEqual(['a_c']);
      expect(await slugsOf(c, '?tag=re')).toEqual([]);
      expect(await slugsOf(c, '?tag=red&status=archived')).toEqual(['archived-one']);
      expect(await slugsOf(c, '?tag=red&q=beta')).toEqual(['beta']);
    });

    test('project=<id> and project=none', async () => {
      expect(await slugsOf(c, `?project=${projectId}`)).toEqual(['a_c', 'alpha-one']);
      expect(await slugsOf(c, '?project=none')).toEqual(['abc', 'beta', 'paused-one']);
      expect(await slugsOf(c, `?project=${projectId}&status=archived`)).toEqual(['archived-one']);
      expect(await slugsOf(c, `?project=${projectId}&tag=red`)).toEqual(['alpha-one']);
      expect(await slugsOf(c, '?project=prj_unknown')).toEqual([]);
    });

    test('status filter', async () => {
      expect(await slugsOf(c, '?status=active')).toEqual(['a_c', 'abc', 'alpha-one', 'beta']);
      expect(await slugsOf(c, '?status=paused')).toEqual(['paused-one']);
      expect(await slugsOf(c, '?status=archived')).toEqual(['archived-one']);
    });

    test('a read key may list', async () => {
      const { key } = await makeKey(c.t, 'read');
      const res = await api(c.t, 'GET', '/links?status=paused', { key });
      expect(res.status).toBe(200);
      expect(res.body.items.map((l: any) => l.slug)).toEqual(['paused-one']);
    });

    const badQueries: [string, string][] = [
      ['status=deleted', 'status'],
      ['status=ACTIVE', 'status'],
      ['sort=newest', 'sort'],
      ['sort=', 'sort'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=2.5', 'limit'],
      ['cursor=garbage', 'cursor'],
      ['cursor=%25%25%25', 'cursor'],
      [`cursor=${Buffer.from(JSON.stringify(['created', 1.5, 'lnk_x'])).toString('base64url')}`, 'cursor'],
      [`cursor=${Buffer.from(JSON.stringify(['created', 1, 2])).toString('base64url')}`, 'cursor'],
      [`cursor=${Buffer.from(JSON.stringify({ sort: 'created' })).toString('base64url')}`, 'cursor'],
      [`q=${'q'.repeat(201)}`, 'q'],
    ];
    for (const [query, field] of badQueries) {
      test(`${query.slice(0, 40)} -> 400 field ${field}`, async () => {
        const res = await api(c.t, 'GET', `/links?${query}`, { key: c.su });
        expectError(res, 400, 'invalid_request', field);
      });
    }

    test('limit=1 and limit=100 are accepted', async () => {
      const one = await api(c.t, 'GET', '/links?limit=1', { key: c.su });
      expect(one.status).toBe(200);
      expect(one.body.items).toHaveLength(1);
      expect(one.body.cursor).toEqual(expect.any(String));
      const hundred = await api(c.t, 'GET', '/links?limit=100', { key: c.su });
      expect(hundred.status).toBe(200);
      expect(hundred.body.items).toHaveLength(5);
      expect(hundred.body.cursor).toBeNull();
    });

    test('every listed item is a full Link', async () => {
      for (const item of await listAll(c, '?status=archived')) expectLink(item);
      const items = await listAll(c);
      for (const item of items) expectLink(item);
      const alpha = items.find((l) => l.slug === 'alpha-one');
      expect(alpha).toMatchObject({ projectId, projectName: 'Campaigns', title: 'Quarterly Report' });
      expect([...alpha.tags].sort()).toEqual(['blue', 'red']);
    });
  });

  // ---------------------------------------------------------------------------------------

  describe('GET /links/tags', () => {
    let c: Ctx;
    beforeEach(async () => {
      c = await fresh(engine);
    });
    afterEach(() => c.t.close());

    test('empty workspace: no tags', async () => {
      const res = await api(c.t, 'GET', '/links/tags', { key: c.su });
      expect(res.status).toBe(200);
      expectSchema(TagCountsModel, res.body);
      expect(res.body).toEqual({ tags: [] });
    });

    test('tags in use with link counts, most used first, archived links counted', async () => {
      await createLink(c, { destination: 'https://example.com/1', tags: ['b', 'a', 'c'] });
      await createLink(c, { destination: 'https://example.com/2', tags: ['b', 'a'] });
      const third = await createLink(c, { destination: 'https://example.com/3', tags: ['b', ' b '] });
      await createLink(c, { destination: 'https://example.com/4' });
      await api(c.t, 'PATCH', `/links/${third.id}`, { key: c.su, body: { status: 'archived' } });
      const res = await api(c.t, 'GET', '/links/tags', { key: c.su });
      expect(res.status).toBe(200);
      expectSchema(TagCountsModel, res.body);
      expectExactKeys(res.body, ['tags']);
      for (const entry of res.body.tags) expectExactKeys(entry, ['tag', 'count']);
      expect(res.body).toEqual({
        tags: [
          { tag: 'b', count: 3 },
          { tag: 'a', count: 2 },
          { tag: 'c', count: 1 },
        ],
      });
    });

    test('counts follow tag changes made through PATCH', async () => {
      const link = await createLink(c, { destination: 'https://example.com/1', tags: ['old'] });
      await createLink(c, { destination: 'https://example.com/2', tags: ['old', 'keep'] });
      const res = await api(c.t, 'PATCH', `/links/${link.id}`, { key: c.su, body: { tags: ['new'] } });
      expect(res.status).toBe(200);
      const tags = await api(c.t, 'GET', '/links/tags', { key: c.su });
      expect(tags.status).toBe(200);
      expect(tags.body).toEqual({
        tags: [
          { tag: 'keep', count: 1 },
          { tag: 'new', count: 1 },
          { tag: 'old', count: 1 },
        ],
      });
    });

    test('/links/tags is not mistaken for a link id', async () => {
      const { key } = await makeKey(c.t, 'read');
      const res = await api(c.t, 'GET', '/links/tags', { key });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ tags: [] });
    });
  });
});
