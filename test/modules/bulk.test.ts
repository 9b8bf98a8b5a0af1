/**
 * Bulk operations (docs/behaviour.md): POST /links/bulk/preview, /links/bulk/create, /links/bulk/params
 * and /links/bulk/project, through the real app on a migrated SQLite file. Created and changed
 * links are checked through the API (GET /links, GET /links/{id}, GET /projects) and through
 * the short host's redirect (the in-memory slug index), never by trusting the bulk answer alone.
 */
import { afterEach, beforeEach, describe, expect, spyOn, test } from 'bun:test';
import { BULK_CHUNK } from '../../src/modules/bulk/plan';
import { LinkModel } from '../../src/modules/links/model';
import { type ApiResult, api, disposeTestApp, makeKey, makeTestApp, T0, type TestApp } from '../helpers/app';
import { engineBlind, forEachEngine } from '../helpers/engines';
import { expectError, expectExactKeys, expectSchema } from '../helpers/schema';
import { countRows, linkCounterRows, refuseLinkInserts } from '../helpers/stored';
import { clickRequest } from './clicks/support';

const SHORT_HOST = 'https://sl.test';

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
const LINE_KEYS = [
  'line',
  'input',
  'status',
  'message',
  'destination',
  'title',
  'params',
  'duplicateOfLine',
  'duplicateOfLink',
] as const;

let t: TestApp;
/** superuser write key */
let su: string;

forEachEngine((engine) => {
  // Text parsing, request validation and scopes (`blind`) do not depend on the store: SQLite
  // only. What reads or writes links (creates, duplicates against stored links, transactions,
  // params and project changes, the redirect) runs on both engines.
  const blind = engineBlind(engine);
  // A fresh app per test: several tests count every link in the workspace.
  beforeEach(async () => {
    t = await makeTestApp({}, { engine });
    su = (await makeKey(t, 'write', { superuser: true })).key;
  });
  afterEach(() => disposeTestApp(t));

  // ---------------------------------------------------------------------------------------
  // Helpers

  const preview = (body: unknown, key = su) => api(t, 'POST', '/links/bulk/preview', { key, body });
  const create = (body: unknown, key = su) => api(t, 'POST', '/links/bulk/create', { key, body });
  const bulkParams = (body: unknown, key = su) => api(t, 'POST', '/links/bulk/params', { key, body });
  const bulkProject = (body: unknown, key = su) => api(t, 'POST', '/links/bulk/project', { key, body });

  /** The status with the body shown on a mismatch, so a failing call says why. */
  function expectStatus(res: ApiResult, status: number): void {
    expect({ status: res.status, body: res.status === status ? null : res.body }).toEqual({ status, body: null });
  }

  function expectLink(link: any): void {
    expectSchema(LinkModel, link);
    expectExactKeys(link, LINK_KEYS);
    expect(link.shortUrl).toBe(`${SHORT_HOST}/${link.slug}`);
  }

  /** A 200 preview: exact shape, every line a BulkLine; returns the body. */
  async function previewOk(body: Record<string, unknown>): Promise<any> {
    const res = await preview(body);
    expectStatus(res, 200);
    expectExactKeys(res.body, ['lines', 'counts']);
    expectExactKeys(res.body.counts, ['create', 'repeat', 'duplicate', 'invalid']);
    for (const l of res.body.lines) expectBulkLine(l);
    return res.body;
  }

  /** A 201 create: exact shape, every created link a full Link, every skipped line a BulkLine. */
  async function createOk(body: Record<string, unknown>): Promise<any> {
    const res = await create(body);
    expectStatus(res, 201);
    expectExactKeys(res.body, ['created', 'skipped', 'counts']);
    expectExactKeys(res.body.counts, ['created', 'repeat', 'duplicate', 'invalid']);
    for (const c of res.body.created) {
      expectExactKeys(c, ['line', 'link']);
      expectLink(c.link);
    }
    for (const l of res.body.skipped) {
      expectBulkLine(l);
      expect(l.status).not.toBe('create');
    }
    return res.body;
  }

  function expectBulkLine(l: any): void {
    expectExactKeys(l, LINE_KEYS);
    expect(Number.isSafeInteger(l.line) && l.line >= 1).toBe(true);
    expect(['create', 'repeat', 'duplicate', 'invalid']).toContain(l.status);
    // message: null exactly when the line is created, otherwise a reason.
    if (l.status === 'create') expect(l.message).toBeNull();
    else expect(typeof l.message === 'string' && l.message.length > 0).toBe(true);
    if (l.status === 'invalid') expect([l.destination, l.params]).toEqual([null, null]);
  }

  /**
   * The BulkLine we expect: defaults for a valid line (message null only for create, title
   * null, params {}, no duplicate pointers) overridden by `extra`.
   */
  function line(
    n: number,
    input: string,
    status: 'create' | 'repeat' | 'duplicate',
    destination: string,
    extra: Record<string, unknown> = {},
  ) {
    return {
      line: n,
      input,
      status,
      message: status === 'create' ? null : expect.any(String),
      destination,
      title: null,
      params: {},
      duplicateOfLine: null,
      duplicateOfLink: null,
      ...extra,
    };
  }

  /** The spec does not say what `title` is on an invalid line, so it is not compared. */
  const UNSPECIFIED = '(title of an invalid line: unspecified)';
  function invalidLine(n: number, input: string) {
    return {
      line: n,
      input,
      status: 'invalid',
      message: expect.any(String),
      destination: null,
      title: UNSPECIFIED,
      params: null,
      duplicateOfLine: null,
      duplicateOfLink: null,
    };
  }
  function comparable(lines: any[]): any[] {
    return lines.map((l) => (l.status === 'invalid' ? { ...l, title: UNSPECIFIED } : l));
  }

  function linkCount(): Promise<number> {
    return countRows(t, 'links');
  }

  /** Every link id the list endpoint shows (all statuses), so "nothing created" is seen through the API too. */
  async function listedIds(): Promise<string[]> {
    const ids: string[] = [];
    for (const status of ['', '&status=archived']) {
      const res = await api(t, 'GET', `/links?limit=100${status}`, { key: su });
      expectStatus(res, 200);
      expect(res.body.cursor).toBeNull();
      ids.push(...res.body.items.map((l: any) => l.id));
    }
    return ids.sort();
  }

  async function createLink(body: Record<string, unknown>): Promise<any> {
    const res = await api(t, 'POST', '/links', { key: su, body: { destination: 'https://example.com/', ...body } });
    expectStatus(res, 201);
    return res.body;
  }

  async function getLink(id: string): Promise<any> {
    const res = await api(t, 'GET', `/links/${id}`, { key: su });
    expectStatus(res, 200);
    expectLink(res.body);
    return res.body;
  }

  async function createProject(name: string): Promise<any> {
    const res = await api(t, 'POST', '/projects', { key: su, body: { name } });
    expectStatus(res, 201);
    return res.body;
  }

  async function listProjects(): Promise<any> {
    const res = await api(t, 'GET', '/projects', { key: su });
    expectStatus(res, 200);
    return res.body;
  }

  /** A click on the short link (the redirect hook, slug index only): status and Location. */
  async function redirect(slug: string): Promise<{ status: number; location: string | null }> {
    const res = await t.app.handle(clickRequest(`/${slug}`));
    await res.arrayBuffer();
    return { status: res.status, location: res.headers.get('location') };
  }

  /** A Location split into everything before the query and its query pairs, sorted (param order is not specified). */
  function splitLocation(location: string | null): { base: string; query: [string, string][] } {
    expect(location).not.toBeNull();
    const url = new URL(location!);
    const query = [...url.searchParams.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return { base: `${url.origin}${url.pathname}`, query };
  }

  // ---------------------------------------------------------------------------------------

  describe('bulk text: one line per link', () => {
    blind('a tab splits URL and title; further tabs become spaces; a trailing tab leaves no title', async () => {
      const text = [
        'https://example.com/a\tTitle A',
        'https://example.com/b\tTitle\tmore',
        'https://example.com/c\t',
        'https://example.com/d\t\t  Padded title  ',
        'https://example.com/e',
      ].join('\n');
      const body = await previewOk({ text });
      expect(body.lines).toEqual([
        line(1, 'https://example.com/a\tTitle A', 'create', 'https://example.com/a', { title: 'Title A' }),
        line(2, 'https://example.com/b\tTitle\tmore', 'create', 'https://example.com/b', { title: 'Title more' }),
        // The line is trimmed first, so the trailing tab is gone from `input` and there is no title.
        line(3, 'https://example.com/c', 'create', 'https://example.com/c', { title: null }),
        // Rest "\t  Padded title  " -> spaces for the tab, then trimmed.
        line(4, 'https://example.com/d\t\t  Padded title', 'create', 'https://example.com/d', {
          title: 'Padded title',
        }),
        line(5, 'https://example.com/e', 'create', 'https://example.com/e', { title: null }),
      ]);
      expect(body.counts).toEqual({ create: 5, repeat: 0, duplicate: 0, invalid: 0 });

      // The created links carry the same titles.
      const created = await createOk({ text });
      expect(created.created.map((c: any) => [c.line, c.link.destination, c.link.title])).toEqual([
        [1, 'https://example.com/a', 'Title A'],
        [2, 'https://example.com/b', 'Title more'],
        [3, 'https://example.com/c', null],
        [4, 'https://example.com/d', 'Padded title'],
        [5, 'https://example.com/e', null],
      ]);
    });

    test('no line and no request field sets the redirect options or link rules: every created link has their defaults', async () => {
      const body = await createOk({
        text: 'https://example.com/a?redirectStatus=301&forwardQuery=true\tredirectStatus: 301\nhttps://example.com/b',
        redirectStatus: 301,
        forwardQuery: true,
        fallbackUrl: 'https://example.com/over',
        password: 'secret-password',
        rules: [{ when: {}, destination: 'https://example.com/rule' }],
        preview: { title: 'Over' },
      });
      expect(body.created).toHaveLength(2);
      for (const { link } of body.created)
        expect({
          fallbackUrl: link.fallbackUrl,
          redirectStatus: link.redirectStatus,
          forwardQuery: link.forwardQuery,
          passwordProtected: link.passwordProtected,
          rules: link.rules,
          preview: link.preview,
        }).toEqual({
          fallbackUrl: null,
          redirectStatus: 302,
          forwardQuery: false,
          passwordProtected: false,
          rules: [],
          preview: null,
        });
      const slug = body.created[0].link.slug;
      const res = await t.app.handle(
        new Request(`${SHORT_HOST}/${slug}?x=1`, { headers: { 'user-agent': 'Mozilla/5.0' } }),
      );
      expect({ status: res.status, location: res.headers.get('location') }).toEqual({
        status: 302,
        location: 'https://example.com/a?redirectStatus=301&forwardQuery=true',
      });
    });

    blind('blank and whitespace-only lines are skipped but still count for the line numbers', async () => {
      const text = '\n  https://example.com/one  \n   \n\t\n \t \nhttps://example.com/two\n\n\n';
      const body = await previewOk({ text });
      expect(body.lines).toEqual([
        line(2, 'https://example.com/one', 'create', 'https://example.com/one'),
        line(6, 'https://example.com/two', 'create', 'https://example.com/two'),
      ]);
      expect(body.counts).toEqual({ create: 2, repeat: 0, duplicate: 0, invalid: 0 });
    });

    blind('CRLF, LF and CR all end a line; CRLF is one break, CR CR is two', async () => {
      const text =
        'https://example.com/1\r\nhttps://example.com/2\rhttps://example.com/3\nhttps://example.com/4\r\n\r\nhttps://example.com/6\r\rhttps://example.com/8\r\n';
      const body = await previewOk({ text });
      expect(body.lines.map((l: any) => [l.line, l.input, l.status])).toEqual([
        [1, 'https://example.com/1', 'create'],
        [2, 'https://example.com/2', 'create'],
        [3, 'https://example.com/3', 'create'],
        [4, 'https://example.com/4', 'create'],
        [6, 'https://example.com/6', 'create'],
        [8, 'https://example.com/8', 'create'],
      ]);
      // No stray \r is left in what becomes the destination.
      for (const l of body.lines) expect(l.destination).toBe(l.input);
    });

    blind(
      'unicode: an IDN host becomes punycode, a unicode path is percent-encoded like POST /links, the title is kept',
      async () => {
        const input = 'https://bücher.example/straße/日本?q=ü\tStraße 日本 ☕ — café';
        const created = await createOk({ text: `${input}\n` });
        expect(created.skipped).toEqual([]);
        expect(created.created).toHaveLength(1);
        const { line: n, link } = created.created[0];
        expect(n).toBe(1);
        expect(link.destination).toBe('https://xn--bcher-kva.example/stra%C3%9Fe/%E6%97%A5%E6%9C%AC?q=%C3%BC');
        expect(link.title).toBe('Straße 日本 ☕ — café');
        // The same URL through POST /links normalizes to the same destination.
        const single = await createLink({ destination: 'https://bücher.example/straße/日本?q=ü' });
        expect(single.destination).toBe(link.destination);
        // The preview keeps the raw line as input (now a duplicate of the two links).
        const body = await previewOk({ text: input });
        expect(body.lines).toEqual([
          line(1, input, 'duplicate', link.destination, {
            title: 'Straße 日本 ☕ — café',
            duplicateOfLink: expect.any(String),
          }),
        ]);
        expect([link.id, single.id]).toContain(body.lines[0].duplicateOfLink);
        // And the link redirects to the ASCII form.
        expect(await redirect(link.slug)).toEqual({ status: 302, location: link.destination });
      },
    );

    blind(
      'an exact repeat of an earlier line (after trimming) is "repeat" pointing at it, and is not created',
      async () => {
        const text = [
          'https://example.com/r\tSame', //       1 create
          'https://example.com/other', //         2 create
          '   https://example.com/r\tSame  ', //  3 repeat of 1 (same input once trimmed)
          'https://example.com/r\tDifferent', //  4 not a repeat: same destination as 1 -> duplicate of line 1
        ].join('\n');
        const body = await previewOk({ text });
        expect(body.counts).toEqual({ create: 2, repeat: 1, duplicate: 1, invalid: 0 });
        // A repeat is not invalid, so (BulkLine) its destination and params are not null; its title is the line's.
        expect(body.lines).toEqual([
          line(1, 'https://example.com/r\tSame', 'create', 'https://example.com/r', { title: 'Same' }),
          line(2, 'https://example.com/other', 'create', 'https://example.com/other'),
          line(3, 'https://example.com/r\tSame', 'repeat', 'https://example.com/r', {
            title: 'Same',
            duplicateOfLine: 1,
          }),
          line(4, 'https://example.com/r\tDifferent', 'duplicate', 'https://example.com/r', {
            title: 'Different',
            duplicateOfLine: 1,
          }),
        ]);
      },
    );

    blind('repeats are never created, even with skipDuplicates false', async () => {
      const text = 'https://example.com/x\nhttps://example.com/x\nhttps://example.com/x\tT';
      const res = await createOk({ text, skipDuplicates: false });
      // Line 3 has another input (a title), so it is a second link; line 2 is a repeat.
      expect(res.created.map((c: any) => [c.line, c.link.destination, c.link.title])).toEqual([
        [1, 'https://example.com/x', null],
        [3, 'https://example.com/x', 'T'],
      ]);
      expect(res.counts).toEqual({ created: 2, repeat: 1, duplicate: 0, invalid: 0 });
      expect(await linkCount()).toBe(2);
      expect(res.skipped).toEqual([
        line(2, 'https://example.com/x', 'repeat', 'https://example.com/x', { duplicateOfLine: 1 }),
      ]);
    });

    blind("utm_ keys are lifted out of the line; the line's utm_ values win over the request params", async () => {
      const params = { utm_source: 'req', ref: 'x' };
      const text = [
        'https://example.com/u?utm_source=line&keep=1', //   utm_source overridden by the line
        'https://example.com/v', //                          request params only
        'https://example.com/w?utm_medium=mail&utm_campaign=spring%20sale', // adds utm keys, destination loses its query
      ].join('\n');
      const body = await previewOk({ text, params });
      expect(body.lines).toEqual([
        line(1, 'https://example.com/u?utm_source=line&keep=1', 'create', 'https://example.com/u?keep=1', {
          params: { utm_source: 'line', ref: 'x' },
        }),
        line(2, 'https://example.com/v', 'create', 'https://example.com/v', {
          params: { utm_source: 'req', ref: 'x' },
        }),
        line(3, 'https://example.com/w?utm_medium=mail&utm_campaign=spring%20sale', 'create', 'https://example.com/w', {
          params: { utm_source: 'req', ref: 'x', utm_medium: 'mail', utm_campaign: 'spring sale' },
        }),
      ]);

      const created = await createOk({ text, params });
      const [u, v, w] = created.created.map((c: any) => c.link);
      expect([u.destination, u.params]).toEqual(['https://example.com/u?keep=1', { utm_source: 'line', ref: 'x' }]);
      expect([v.destination, v.params]).toEqual(['https://example.com/v', { utm_source: 'req', ref: 'x' }]);
      expect([w.destination, w.params]).toEqual([
        'https://example.com/w',
        { utm_source: 'req', ref: 'x', utm_medium: 'mail', utm_campaign: 'spring sale' },
      ]);
      for (const l of [u, v, w]) expect(l.destination).not.toContain('utm_');
      // The redirect applies the effective params.
      const loc = await redirect(u.slug);
      expect(loc.status).toBe(302);
      expect(splitLocation(loc.location)).toEqual({
        base: 'https://example.com/u',
        query: [
          ['keep', '1'],
          ['ref', 'x'],
          ['utm_source', 'line'],
        ],
      });
    });

    test('200 non-blank lines are accepted and created', async () => {
      const text = Array.from({ length: 200 }, (_, i) => `https://example.com/n/${i}`).join('\n');
      const body = await previewOk({ text });
      expect(body.lines).toHaveLength(200);
      expect(body.counts).toEqual({ create: 200, repeat: 0, duplicate: 0, invalid: 0 });
      const created = await createOk({ text });
      expect(created.counts).toEqual({ created: 200, repeat: 0, duplicate: 0, invalid: 0 });
      expect(created.created.map((c: any) => c.line)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
      expect(new Set(created.created.map((c: any) => c.link.slug)).size).toBe(200);
      expect(await linkCount()).toBe(200);
    });

    blind('201 non-blank lines -> 400 field text, nothing created', async () => {
      const text = Array.from({ length: 201 }, (_, i) => `https://example.com/n/${i}`).join('\n');
      expectError(await preview({ text }), 400, 'invalid_request', 'text');
      expectError(await create({ text }), 400, 'invalid_request', 'text');
      expect(await linkCount()).toBe(0);
    });

    blind('201 lines that are all invalid still count: -> 400 field text', async () => {
      const text = Array.from({ length: 201 }, (_, i) => `not a url ${i}`).join('\n');
      expectError(await create({ text }), 400, 'invalid_request', 'text');
    });

    blind('200 lines with blank lines between them are fine; numbers stay physical', async () => {
      const text = Array.from({ length: 200 }, (_, i) => `https://example.com/n/${i}`).join('\n \n');
      const created = await createOk({ text });
      expect(created.counts).toEqual({ created: 200, repeat: 0, duplicate: 0, invalid: 0 });
      expect(created.created.map((c: any) => c.line)).toEqual(Array.from({ length: 200 }, (_, i) => 2 * i + 1));
      expect(created.created.at(-1).line).toBe(399);
    });

    test('invalid lines are reported with their line numbers and the valid lines are still created', async () => {
      const long = `https://example.com/${'a'.repeat(2048 - 'https://example.com/'.length)}`;
      const lines = [
        'https://example.com/ok1', //                           1 ok
        'ftp://example.com/file', //                            2 scheme
        'not a url', //                                         3
        'http://user:pw@example.com/', //                       4 credentials
        'https://example.com/a b', //                           5 space inside the URL
        'javascript:alert(1)', //                               6 scheme
        '', //                                                  7 blank
        'https://example.com/a b\tWith title', //               8 space inside the URL part
        `https://example.com/t\t${'x'.repeat(501)}`, //        9 title over 500
        'https://example.com/c\tbad\u0007title', //            10 control character in the title
        `${long}x`, //                                         11 2049 characters
        'example.com/no-scheme', //                            12
        'https://example.com/ok2\tFine', //                    13 ok
        long, //                                               14 exactly 2048: ok
        `https://example.com/t500\t${'y'.repeat(500)}`, //     15 title of exactly 500: ok
        'https://user@example.com/', //                        16 user only
        'https://example.com/ctl\u0001x', //                   17 control character in the URL
      ];
      const text = lines.join('\n');
      const expected = [
        line(1, 'https://example.com/ok1', 'create', 'https://example.com/ok1'),
        invalidLine(2, lines[1]!),
        invalidLine(3, lines[2]!),
        invalidLine(4, lines[3]!),
        invalidLine(5, lines[4]!),
        invalidLine(6, lines[5]!),
        invalidLine(8, lines[7]!),
        invalidLine(9, lines[8]!),
        invalidLine(10, lines[9]!),
        invalidLine(11, lines[10]!),
        invalidLine(12, lines[11]!),
        line(13, 'https://example.com/ok2\tFine', 'create', 'https://example.com/ok2', { title: 'Fine' }),
        line(14, long, 'create', long),
        line(15, lines[14]!, 'create', 'https://example.com/t500', { title: 'y'.repeat(500) }),
        invalidLine(16, lines[15]!),
        invalidLine(17, lines[16]!),
      ];
      const body = await previewOk({ text });
      expect(comparable(body.lines)).toEqual(expected);
      expect(body.counts).toEqual({ create: 4, repeat: 0, duplicate: 0, invalid: 12 });

      const created = await createOk({ text });
      expect(created.created.map((c: any) => [c.line, c.link.destination])).toEqual([
        [1, 'https://example.com/ok1'],
        [13, 'https://example.com/ok2'],
        [14, long],
        [15, 'https://example.com/t500'],
      ]);
      expect(comparable(created.skipped)).toEqual(expected.filter((l) => l.status === 'invalid'));
      expect(created.counts).toEqual({ created: 4, repeat: 0, duplicate: 0, invalid: 12 });
      expect(await linkCount()).toBe(4);
    });

    blind('a text with only invalid lines answers 201 with nothing created', async () => {
      const res = await createOk({ text: 'nope\nftp://x.example/' });
      expect(res.created).toEqual([]);
      expect(comparable(res.skipped)).toEqual([invalidLine(1, 'nope'), invalidLine(2, 'ftp://x.example/')]);
      expect(res.counts).toEqual({ created: 0, repeat: 0, duplicate: 0, invalid: 2 });
      expect(await linkCount()).toBe(0);
    });

    const emptyTexts: [string, unknown][] = [
      ['empty', ''],
      ['only blank lines', ' \n\t\r\n  \r'],
    ];
    for (const [what, text] of emptyTexts) {
      blind(`a text that is ${what} -> 400 field text`, async () => {
        expectError(await preview({ text }), 400, 'invalid_request', 'text');
        expectError(await create({ text }), 400, 'invalid_request', 'text');
        expect(await linkCount()).toBe(0);
      });
    }
  });

  // ---------------------------------------------------------------------------------------

  describe('skipDuplicates', () => {
    test('bulk creates of the same destinations at once make each link once', async () => {
      const text = Array.from({ length: 30 }, (_, i) => `https://example.com/race/${i}`).join('\n');
      // Five at once, with single creates of the same destinations among them.
      const results = await Promise.all([
        ...Array.from({ length: 5 }, () => create({ text, skipDuplicates: true })),
        ...Array.from({ length: 10 }, (_, i) =>
          api(t, 'POST', '/links', { key: su, body: { destination: `https://example.com/race/${i}` } }),
        ),
      ]);
      for (const res of results) expect(res.status).toBe(201);
      const bulkCreated = results.slice(0, 5).reduce((n, r) => n + r.body.counts.created, 0);
      // No destination made twice by the bulk creates between them.
      expect(bulkCreated).toBeLessThanOrEqual(30);
      const listed = await api(t, 'GET', '/links?q=example.com/race&limit=100', { key: su });
      expect(listed.status).toBe(200);
      const destinations = listed.body.items.map((l: { destination: string }) => l.destination);
      // Single creates never skip: the 10 of them are links whatever the bulk creates did; every
      // other destination has exactly one link, made by one of the bulk creates.
      expect(destinations.length).toBe(bulkCreated + 10);
      expect(new Set(destinations).size).toBe(30);
      expect(bulkCreated).toBeGreaterThanOrEqual(20);
    });

    /** Existing links (one archived: any status counts) and a text that hits them and itself. */
    async function seed() {
      const existing = await createLink({ destination: 'https://example.com/exists' });
      const archived = await createLink({ destination: 'https://example.com/archived' });
      expectStatus(await api(t, 'PATCH', `/links/${archived.id}`, { key: su, body: { status: 'archived' } }), 200);
      const idn = await createLink({ destination: 'https://bücher.example/' });
      const text = [
        'https://example.com/exists', //                  1 duplicate of existing
        'https://example.com/exists?utm_source=x', //     2 same destination once utm_ is lifted -> existing
        'https://example.com/new', //                     3 create
        'https://example.com/new\tOther title', //        4 same destination as created line 3
        'https://example.com/new?utm_medium=y', //        5 same again
        'https://example.com/archived', //                6 duplicate of the archived link
        'https://xn--bcher-kva.example/', //              7 the IDN link, compared normalized
        'https://example.com/exists\tT', //               8 existing again (not a repeat: other input)
      ].join('\n');
      return { existing, archived, idn, text };
    }

    test('default (true): existing destinations -> duplicateOfLink, later lines of a created destination -> duplicateOfLine', async () => {
      const { existing, archived, idn, text } = await seed();
      const expected = [
        line(1, 'https://example.com/exists', 'duplicate', 'https://example.com/exists', {
          duplicateOfLink: existing.id,
        }),
        line(2, 'https://example.com/exists?utm_source=x', 'duplicate', 'https://example.com/exists', {
          params: { utm_source: 'x' },
          duplicateOfLink: existing.id,
        }),
        line(3, 'https://example.com/new', 'create', 'https://example.com/new'),
        line(4, 'https://example.com/new\tOther title', 'duplicate', 'https://example.com/new', {
          title: 'Other title',
          duplicateOfLine: 3,
        }),
        line(5, 'https://example.com/new?utm_medium=y', 'duplicate', 'https://example.com/new', {
          params: { utm_medium: 'y' },
          duplicateOfLine: 3,
        }),
        line(6, 'https://example.com/archived', 'duplicate', 'https://example.com/archived', {
          duplicateOfLink: archived.id,
        }),
        line(7, 'https://xn--bcher-kva.example/', 'duplicate', 'https://xn--bcher-kva.example/', {
          duplicateOfLink: idn.id,
        }),
        line(8, 'https://example.com/exists\tT', 'duplicate', 'https://example.com/exists', {
          title: 'T',
          duplicateOfLink: existing.id,
        }),
      ];
      const body = await previewOk({ text });
      expect(body.lines).toEqual(expected);
      expect(body.counts).toEqual({ create: 1, repeat: 0, duplicate: 7, invalid: 0 });

      const before = await linkCount();
      const created = await createOk({ text });
      expect(created.created.map((c: any) => [c.line, c.link.destination])).toEqual([[3, 'https://example.com/new']]);
      expect(created.skipped).toEqual(expected.filter((l) => l.status !== 'create'));
      expect(created.counts).toEqual({ created: 1, repeat: 0, duplicate: 7, invalid: 0 });
      expect(await linkCount()).toBe(before + 1);

      // Sent again, line 3 is now a duplicate of the link it created.
      const again = await previewOk({ text });
      expect(again.lines[2]).toEqual(
        line(3, 'https://example.com/new', 'duplicate', 'https://example.com/new', {
          duplicateOfLink: created.created[0].link.id,
        }),
      );
      expect(again.counts).toEqual({ create: 0, repeat: 0, duplicate: 8, invalid: 0 });
    });

    test('explicit true behaves like the default', async () => {
      const { text } = await seed();
      const implicit = await previewOk({ text });
      const explicit = await previewOk({ text, skipDuplicates: true });
      expect(explicit).toEqual(implicit);
    });

    test('false: every such line is created', async () => {
      const { text } = await seed();
      const before = await linkCount();
      const body = await previewOk({ text, skipDuplicates: false });
      expect(body.lines.map((l: any) => [l.line, l.status, l.duplicateOfLine, l.duplicateOfLink])).toEqual(
        [1, 2, 3, 4, 5, 6, 7, 8].map((n) => [n, 'create', null, null]),
      );
      expect(body.counts).toEqual({ create: 8, repeat: 0, duplicate: 0, invalid: 0 });

      const created = await createOk({ text, skipDuplicates: false });
      expect(created.created.map((c: any) => [c.line, c.link.destination, c.link.title, c.link.params])).toEqual([
        [1, 'https://example.com/exists', null, {}],
        [2, 'https://example.com/exists', null, { utm_source: 'x' }],
        [3, 'https://example.com/new', null, {}],
        [4, 'https://example.com/new', 'Other title', {}],
        [5, 'https://example.com/new', null, { utm_medium: 'y' }],
        [6, 'https://example.com/archived', null, {}],
        [7, 'https://xn--bcher-kva.example/', null, {}],
        [8, 'https://example.com/exists', 'T', {}],
      ]);
      expect(created.skipped).toEqual([]);
      expect(created.counts).toEqual({ created: 8, repeat: 0, duplicate: 0, invalid: 0 });
      expect(await linkCount()).toBe(before + 8);
      // Distinct links with distinct slugs.
      expect(new Set(created.created.map((c: any) => c.link.slug)).size).toBe(8);
    });

    test('a line is not a duplicate of an earlier line that was itself skipped as invalid', async () => {
      // Line 1 is invalid (title too long); line 2 has the same destination and is created.
      const text = `https://example.com/z\t${'x'.repeat(501)}\nhttps://example.com/z`;
      const body = await previewOk({ text });
      expect(comparable(body.lines)).toEqual([
        invalidLine(1, `https://example.com/z\t${'x'.repeat(501)}`),
        line(2, 'https://example.com/z', 'create', 'https://example.com/z'),
      ]);
    });
  });

  // ---------------------------------------------------------------------------------------

  describe('preview', () => {
    test('creates nothing, and its statuses are exactly what create then does', async () => {
      const project = await createProject('Launch');
      const existing = await createLink({ destination: 'https://example.com/old' });
      const text = [
        'https://example.com/a\tA',
        '',
        'https://example.com/old',
        'https://example.com/a\tA',
        'bad url',
        'https://example.com/b?utm_campaign=c1',
        'https://example.com/a?x=1',
        'https://example.com/b\tB',
      ].join('\r\n');
      const request = { text, tags: ['q4'], projectId: project.id, params: { ref: 'bulk' } };
      const idsBefore = await listedIds();
      const countBefore = await linkCount();
      const indexBefore = t.deps.linkIndex.size;

      const p = await previewOk(request);
      expect(await listedIds()).toEqual(idsBefore);
      expect(await linkCount()).toBe(countBefore);
      expect(t.deps.linkIndex.size).toBe(indexBefore);
      expect((await listProjects()).projects.find((x: any) => x.id === project.id).linkCount).toBe(0);
      // Previewing twice gives the same answer (the first preview recorded nothing).
      expect(await previewOk(request)).toEqual(p);

      // The repeat line's destination/title/params are the repeat test's business; here its status and pointer.
      const statusOnly = (l: any) =>
        l.status === 'repeat'
          ? { line: l.line, input: l.input, status: l.status, duplicateOfLine: l.duplicateOfLine }
          : l;
      expect(comparable(p.lines).map(statusOnly)).toEqual([
        line(1, 'https://example.com/a\tA', 'create', 'https://example.com/a', { title: 'A', params: { ref: 'bulk' } }),
        line(3, 'https://example.com/old', 'duplicate', 'https://example.com/old', {
          params: { ref: 'bulk' },
          duplicateOfLink: existing.id,
        }),
        { line: 4, input: 'https://example.com/a\tA', status: 'repeat', duplicateOfLine: 1 },
        invalidLine(5, 'bad url'),
        line(6, 'https://example.com/b?utm_campaign=c1', 'create', 'https://example.com/b', {
          params: { ref: 'bulk', utm_campaign: 'c1' },
        }),
        line(7, 'https://example.com/a?x=1', 'create', 'https://example.com/a?x=1', { params: { ref: 'bulk' } }),
        line(8, 'https://example.com/b\tB', 'duplicate', 'https://example.com/b', {
          title: 'B',
          params: { ref: 'bulk' },
          duplicateOfLine: 6,
        }),
      ]);
      expect(p.counts).toEqual({ create: 3, repeat: 1, duplicate: 2, invalid: 1 });

      const c = await createOk(request);
      // Created lines = preview's create lines, with the same destination, title and params.
      const previewCreates = p.lines.filter((l: any) => l.status === 'create');
      expect(
        c.created.map((x: any) => ({
          line: x.line,
          destination: x.link.destination,
          title: x.link.title,
          params: x.link.params,
        })),
      ).toEqual(
        previewCreates.map((l: any) => ({
          line: l.line,
          destination: l.destination,
          title: l.title,
          params: l.params,
        })),
      );
      // Skipped = preview's other lines, identical.
      expect(c.skipped).toEqual(p.lines.filter((l: any) => l.status !== 'create'));
      expect(c.counts).toEqual({
        created: p.counts.create,
        repeat: p.counts.repeat,
        duplicate: p.counts.duplicate,
        invalid: p.counts.invalid,
      });
      expect(await linkCount()).toBe(countBefore + 3);
    });

    blind('request-level errors are the same as for create', async () => {
      expectError(
        await preview({ text: 'https://example.com/', projectId: 'prj_nope' }),
        400,
        'invalid_request',
        'projectId',
      );
      expectError(await preview({ text: 'https://example.com/', params: { n: 1 } }), 400, 'invalid_request', 'params');
      expectError(await preview({ text: 'https://example.com/', tags: 'x' }), 400, 'invalid_request', 'tags');
      expectError(
        await preview({ text: 'https://example.com/', skipDuplicates: 'yes' }),
        400,
        'invalid_request',
        'skipDuplicates',
      );
    });

    blind('a read key gets 403 (it is a POST)', async () => {
      const { key } = await makeKey(t, 'read');
      expectError(await preview({ text: 'https://example.com/' }, key), 403, 'insufficient_scope', null);
    });
  });

  // ---------------------------------------------------------------------------------------

  describe('POST /links/bulk/create', () => {
    test('201: full Link objects with generated slugs, tags, project, params and title; they redirect at once', async () => {
      const project = await createProject('Spring');
      const text = 'https://example.com/one\tFirst\nhttps://example.com/two?utm_source=line&keep=1';
      const body = await createOk({
        text,
        tags: ['q4', 'launch'],
        projectId: project.id,
        params: { ref: 'bulk', utm_source: 'req' },
      });
      expect(body.counts).toEqual({ created: 2, repeat: 0, duplicate: 0, invalid: 0 });
      expect(body.skipped).toEqual([]);
      expect(body.created.map((c: any) => c.line)).toEqual([1, 2]);
      const [one, two] = body.created.map((c: any) => c.link);
      for (const link of [one, two]) {
        expect(link.slug).toMatch(/^[A-Za-z0-9]{7}$/);
        expect(link.id.length).toBeGreaterThan(0);
        expect([...link.tags].sort()).toEqual(['launch', 'q4']);
        expect(link).toMatchObject({
          status: 'active',
          variants: [],
          projectId: project.id,
          projectName: 'Spring',
          clickCount: 0,
          uniqueCount: 0,
          botCount: 0,
          expiresAt: null,
          clickLimit: null,
          lastClickedAt: null,
          fallbackCount: 0,
          createdAt: T0,
          updatedAt: T0,
        });
        // What GET says is what create answered.
        expect(await getLink(link.id)).toEqual(link);
      }
      // Each has its counters row, written with it, every count at zero.
      const counterRows = [];
      for (const id of [one.id, two.id].sort()) counterRows.push(...(await linkCounterRows(t, id)));
      expect(counterRows).toEqual(
        [one.id, two.id].sort().map((id) => ({ link_id: id, clicks: 0, uniques: 0, bots: 0, last_clicked_at: null })),
      );
      expect(one.slug).not.toBe(two.slug);
      expect([one.destination, one.title, one.params]).toEqual([
        'https://example.com/one',
        'First',
        { ref: 'bulk', utm_source: 'req' },
      ]);
      expect([two.destination, two.title, two.params]).toEqual([
        'https://example.com/two?keep=1',
        null,
        { ref: 'bulk', utm_source: 'line' },
      ]);

      // The slug index knows them right away.
      const r1 = await redirect(one.slug);
      expect(r1.status).toBe(302);
      expect(splitLocation(r1.location)).toEqual({
        base: 'https://example.com/one',
        query: [
          ['ref', 'bulk'],
          ['utm_source', 'req'],
        ],
      });
      const r2 = await redirect(two.slug);
      expect(r2.status).toBe(302);
      expect(splitLocation(r2.location)).toEqual({
        base: 'https://example.com/two',
        query: [
          ['keep', '1'],
          ['ref', 'bulk'],
          ['utm_source', 'line'],
        ],
      });

      // The project counts them; the tag list too.
      const projects = await listProjects();
      expect(projects.projects.find((p: any) => p.id === project.id).linkCount).toBe(2);
      const byTag = await api(t, 'GET', '/links?tag=launch', { key: su });
      expectStatus(byTag, 200);
      expect(byTag.body.items.map((l: any) => l.id).sort()).toEqual([one.id, two.id].sort());
    });

    blind('without tags, project or params the links are bare', async () => {
      const body = await createOk({ text: 'https://example.com/bare' });
      const link = body.created[0].link;
      expect(link).toMatchObject({
        destination: 'https://example.com/bare',
        title: null,
        tags: [],
        params: {},
        projectId: null,
        projectName: null,
      });
      expect(await redirect(link.slug)).toEqual({ status: 302, location: 'https://example.com/bare' });
    });

    test('projectId null is accepted (unfiled)', async () => {
      const body = await createOk({ text: 'https://example.com/n', projectId: null });
      expect([body.created[0].link.projectId, body.created[0].link.projectName]).toEqual([null, null]);
    });

    test('unknown projectId -> 400 field projectId, nothing created', async () => {
      expectError(
        await create({ text: 'https://example.com/a\nhttps://example.com/b', projectId: 'prj_doesnotexist' }),
        400,
        'invalid_request',
        'projectId',
      );
      expect(await linkCount()).toBe(0);
      expect(await listedIds()).toEqual([]);
    });

    const badParams: [string, unknown][] = [
      ['a number value', { n: 1 }],
      ['a nested object', { a: { b: 'c' } }],
      ['a control character', { k: 'bad\nvalue' }],
      ['a key over 128 characters', { ['k'.repeat(129)]: 'v' }],
      ['51 keys', Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']))],
      ['an array', ['a']],
      ['a string', 'a=b'],
    ];
    for (const [what, params] of badParams) {
      blind(`params with ${what} -> 400 field params, nothing created`, async () => {
        expectError(await create({ text: 'https://example.com/a', params }), 400, 'invalid_request', 'params');
        expect(await linkCount()).toBe(0);
      });
    }

    blind('50 request params are accepted', async () => {
      const params = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
      const body = await createOk({ text: 'https://example.com/a', params });
      expect(body.created[0].link.params).toEqual(params);
    });

    const badRequests: [string, Record<string, unknown>, string][] = [
      ['text missing', {}, 'text'],
      ['text a number', { text: 5 }, 'text'],
      ['text an array', { text: ['https://example.com/'] }, 'text'],
      ['tags a string', { text: 'https://example.com/', tags: 'launch' }, 'tags'],
      ['tags with an empty tag', { text: 'https://example.com/', tags: [''] }, 'tags'],
      ['tags with a number', { text: 'https://example.com/', tags: [1] }, 'tags'],
      ['skipDuplicates a string', { text: 'https://example.com/', skipDuplicates: 'false' }, 'skipDuplicates'],
      ['skipDuplicates a number', { text: 'https://example.com/', skipDuplicates: 0 }, 'skipDuplicates'],
      ['projectId a number', { text: 'https://example.com/', projectId: 7 }, 'projectId'],
    ];
    for (const [what, body, field] of badRequests) {
      blind(`${what} -> 400 field ${field}, nothing created`, async () => {
        expectError(await create(body), 400, 'invalid_request', field);
        expect(await linkCount()).toBe(0);
      });
    }

    blind('a read key gets 403 insufficient_scope and nothing is created', async () => {
      const { key } = await makeKey(t, 'read');
      expectError(await create({ text: 'https://example.com/a' }, key), 403, 'insufficient_scope', null);
      expect(await linkCount()).toBe(0);
    });

    blind('a non-superuser write key may bulk create (slugs are generated)', async () => {
      const { key } = await makeKey(t, 'write');
      const res = await create({ text: 'https://example.com/a' }, key);
      expectStatus(res, 201);
      expect(res.body.created).toHaveLength(1);
      expect(res.body.created[0].link.slug).toMatch(/^[A-Za-z0-9]{7}$/);
    });

    test('one transaction: a failure part-way leaves nothing, answers 500, and the slug index learns nothing', async () => {
      const indexBefore = t.deps.linkIndex.size;
      const allowInserts = await refuseLinkInserts(t, 'https://fail.example/');
      const text = [
        'https://example.com/t1',
        'https://example.com/t2',
        'https://fail.example/',
        'https://example.com/t4',
        'https://example.com/t5',
      ].join('\n');
      const request = { text, tags: ['tx'], params: { ref: 'tx' } };
      const res = await create(request);
      expectError(res, 500, 'internal_error', null);
      // The 500 branch logged it; cleared so disposeTestApp's "no errors" check covers the rest.
      expect(t.errors.length).toBeGreaterThan(0);
      t.errors.length = 0;

      expect(await linkCount()).toBe(0);
      expect(await countRows(t, 'link_tags')).toBe(0);
      expect(await listedIds()).toEqual([]);
      // Lines 1 and 2 were inserted before the abort: the index must not hold them.
      expect(t.deps.linkIndex.size).toBe(indexBefore);

      // Without the trigger the same request creates all five, and they redirect.
      await allowInserts();
      const ok = await createOk(request);
      expect(ok.created.map((c: any) => [c.line, c.link.destination])).toEqual([
        [1, 'https://example.com/t1'],
        [2, 'https://example.com/t2'],
        [3, 'https://fail.example/'],
        [4, 'https://example.com/t4'],
        [5, 'https://example.com/t5'],
      ]);
      expect(await linkCount()).toBe(5);
      expect(t.deps.linkIndex.size).toBe(indexBefore + 5);
      for (const c of ok.created) {
        const r = await redirect(c.link.slug);
        expect(r.status).toBe(302);
        expect(splitLocation(r.location)).toEqual({ base: c.link.destination, query: [['ref', 'tx']] });
      }
    });
  });

  describe('a long create shares the event loop', () => {
    const lines = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => `https://example.com/${tag}/${i}\tTitle ${i}`).join('\n');

    /** Calls `onTurn` at every turn of the event loop until `until` settles; returns how many turns. */
    async function turnsDuring<T>(
      until: Promise<T>,
      onTurn: (turn: number) => void,
    ): Promise<{ value: T; turns: number }> {
      let turns = 0;
      let done = false;
      const spin = () => {
        if (done) return;
        onTurn(++turns);
        setImmediate(spin);
      };
      setImmediate(spin);
      const value = await until;
      done = true;
      return { value, turns };
    }

    test('200 lines: the event loop turns between chunks of 25, and redirects are answered meanwhile', async () => {
      const target = await createOk({ text: 'https://example.com/target' });
      const slug = target.created[0].link.slug;
      let redirected = 0;
      let settled = false;
      const { value: res, turns } = await turnsDuring(create({ text: lines(200, 'many'), tags: ['t'] }), () => {
        void redirect(slug).then((r) => {
          if (!settled && r.status === 302) redirected++;
        });
      });
      settled = true;
      expectStatus(res, 201);
      expect(res.body.counts).toEqual({ created: 200, repeat: 0, duplicate: 0, invalid: 0 });
      expect(await linkCount()).toBe(201);
      // Reading the lines, drawing the slugs and reading the answer back: 8 chunks each at least.
      expect(turns).toBeGreaterThanOrEqual((200 / BULK_CHUNK) * 2);
      expect(redirected).toBeGreaterThanOrEqual(200 / BULK_CHUNK);
    });

    test('what changes while it waits is checked again in its transaction: a deleted project, a new duplicate', async () => {
      const project = await api(t, 'POST', '/projects', { key: su, body: { name: 'Spring' } });
      expectStatus(project, 201);
      // Once slugs are being drawn (the clock is read per new link), the lines have been read and
      // checked: then the project goes, and another request creates a link of its own.
      let reads = 0;
      const now = t.deps.clock.now.bind(t.deps.clock);
      t.deps.clock.now = () => {
        reads++;
        return now();
      };
      // The bulk write waits for the request made meanwhile to have answered: on a database
      // server its round trips take longer than the turns the create yields.
      let pending: Promise<ApiResult> | null = null;
      const insertBulk = t.deps.stores.linkWrites.insertBulk.bind(t.deps.stores.linkWrites);
      spyOn(t.deps.stores.linkWrites, 'insertBulk').mockImplementation(async (items, options, at) => {
        if (pending) expectStatus(await pending, 201);
        return insertBulk(items, options, at);
      });
      let meanwhile: Promise<ApiResult> | null = null;
      const { value: res } = await turnsDuring(create({ text: lines(100, 'gone'), projectId: project.body.id }), () => {
        if (meanwhile === null && reads > BULK_CHUNK) {
          meanwhile = (async () => {
            expectStatus(await api(t, 'DELETE', `/projects/${project.body.id}`, { key: su }), 200);
            return api(t, 'POST', '/links', { key: su, body: { destination: 'https://example.com/meanwhile' } });
          })();
          pending = meanwhile;
        }
      });
      expect(meanwhile).not.toBeNull();
      expectError(res, 400, 'invalid_request', 'projectId');
      // Nothing of the bulk create; the other request's link is its own, committed.
      expectStatus((await meanwhile)!, 201);
      expect(await listedIds()).toHaveLength(1);
      expect(await linkCount()).toBe(1);

      // A link made meanwhile to a destination of the text makes that line a duplicate.
      let made: Promise<ApiResult> | null = null;
      reads = 0;
      const { value: second } = await turnsDuring(create({ text: lines(100, 'dup') }), () => {
        if (!made && reads > BULK_CHUNK) {
          made = api(t, 'POST', '/links', { key: su, body: { destination: 'https://example.com/dup/99' } });
          pending = made;
        }
      });
      expect(made).not.toBeNull();
      expectStatus(second, 201);
      expect(second.body.counts).toEqual({ created: 99, repeat: 0, duplicate: 1, invalid: 0 });
      expect(second.body.skipped.map((l: any) => [l.line, l.status])).toEqual([[100, 'duplicate']]);
      expect(await linkCount()).toBe(101);
    });
  });

  // ---------------------------------------------------------------------------------------

  describe('POST /links/bulk/params', () => {
    test('merge (the default): current params overlaid by the new ones', async () => {
      const a = await createLink({ destination: 'https://example.com/a', params: { a: '1', b: '2' } });
      const b = await createLink({ destination: 'https://example.com/b' });
      const untouched = await createLink({ destination: 'https://example.com/u', params: { keep: 'me' } });
      const res = await bulkParams({ ids: [a.id, b.id], params: { b: '20', c: '3' } });
      expectStatus(res, 200);
      expect(res.body).toEqual({ updated: 2, notFound: [] });
      expect((await getLink(a.id)).params).toEqual({ a: '1', b: '20', c: '3' });
      expect((await getLink(b.id)).params).toEqual({ b: '20', c: '3' });
      expect(await getLink(untouched.id)).toEqual(untouched);
    });

    blind('mode merge explicitly, with an empty params object, changes nothing but counts the links', async () => {
      const a = await createLink({ params: { a: '1' } });
      const res = await bulkParams({ ids: [a.id], params: {}, mode: 'merge' });
      expectStatus(res, 200);
      expect(res.body).toEqual({ updated: 1, notFound: [] });
      expect((await getLink(a.id)).params).toEqual({ a: '1' });
    });

    test('replace: params become exactly the ones sent; {} clears them', async () => {
      const a = await createLink({ destination: 'https://example.com/a', params: { a: '1', b: '2' } });
      const b = await createLink({ destination: 'https://example.com/b', params: { x: 'y' } });
      const res = await bulkParams({ ids: [a.id, b.id], params: { z: '9' }, mode: 'replace' });
      expectStatus(res, 200);
      expect(res.body).toEqual({ updated: 2, notFound: [] });
      expect((await getLink(a.id)).params).toEqual({ z: '9' });
      expect((await getLink(b.id)).params).toEqual({ z: '9' });

      const cleared = await bulkParams({ ids: [a.id], params: {}, mode: 'replace' });
      expectStatus(cleared, 200);
      expect(cleared.body).toEqual({ updated: 1, notFound: [] });
      expect((await getLink(a.id)).params).toEqual({});
      expect((await getLink(b.id)).params).toEqual({ z: '9' });
    });

    test('unknown ids are reported in request order, once each; repeated ids count once', async () => {
      const a = await createLink({ params: {} });
      const res = await bulkParams({
        ids: ['lnk_missing1', a.id, 'lnk_missing2', a.id, 'lnk_missing1'],
        params: { p: 'v' },
      });
      expectStatus(res, 200);
      expect(res.body).toEqual({ updated: 1, notFound: ['lnk_missing1', 'lnk_missing2'] });
      expect((await getLink(a.id)).params).toEqual({ p: 'v' });
    });

    blind('only unknown ids: 200 with updated 0', async () => {
      const res = await bulkParams({ ids: ['lnk_nope'], params: { p: 'v' } });
      expectStatus(res, 200);
      expect(res.body).toEqual({ updated: 0, notFound: ['lnk_nope'] });
    });

    test('200 ids are accepted; 0 or 201 ids -> 400 field ids', async () => {
      const created = await createOk({
        text: Array.from({ length: 200 }, (_, i) => `https://example.com/p/${i}`).join('\n'),
      });
      const ids = created.created.map((c: any) => c.link.id);
      const ok = await bulkParams({ ids, params: { batch: '1' } });
      expectStatus(ok, 200);
      expect(ok.body).toEqual({ updated: 200, notFound: [] });
      expect((await getLink(ids[199])).params).toEqual({ batch: '1' });

      expectError(await bulkParams({ ids: [], params: { batch: '2' } }), 400, 'invalid_request', 'ids');
      expectError(
        await bulkParams({ ids: [...ids, 'lnk_extra'], params: { batch: '2' } }),
        400,
        'invalid_request',
        'ids',
      );
      expect((await getLink(ids[0])).params).toEqual({ batch: '1' });
    });

    const badBodies: [string, (id: string) => Record<string, unknown>, string][] = [
      ['ids missing', () => ({ params: { a: 'b' } }), 'ids'],
      ['ids a string', (id) => ({ ids: id, params: { a: 'b' } }), 'ids'],
      ['ids with a number', (id) => ({ ids: [id, 5], params: { a: 'b' } }), 'ids'],
      ['params missing', (id) => ({ ids: [id] }), 'params'],
      ['params with a number value', (id) => ({ ids: [id], params: { a: 1 } }), 'params'],
      ['params with a control character', (id) => ({ ids: [id], params: { a: 'x\u0000y' } }), 'params'],
      ['params as an array', (id) => ({ ids: [id], params: ['a'] }), 'params'],
      [
        'params with 51 keys (replace)',
        (id) => ({
          ids: [id],
          mode: 'replace',
          params: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])),
        }),
        'params',
      ],
      ['mode unknown', (id) => ({ ids: [id], params: { a: 'b' }, mode: 'append' }), 'mode'],
      ['mode null', (id) => ({ ids: [id], params: { a: 'b' }, mode: null }), 'mode'],
      ['mode in capitals', (id) => ({ ids: [id], params: { a: 'b' }, mode: 'MERGE' }), 'mode'],
    ];
    for (const [what, body, field] of badBodies) {
      blind(`${what} -> 400 field ${field}, nothing changes`, async () => {
        const link = await createLink({ params: { orig: '1' } });
        expectError(await bulkParams(body(link.id)), 400, 'invalid_request', field);
        expect(await getLink(link.id)).toEqual(link);
      });
    }

    blind('a merge that would give a link 51 params -> 400 field params and no link changes', async () => {
      const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
      const full = await createLink({ destination: 'https://example.com/full', params: fifty });
      const small = await createLink({ destination: 'https://example.com/small', params: { a: '1' } });
      // `small` comes first: an implementation that writes link by link would already have changed it.
      expectError(
        await bulkParams({ ids: [small.id, full.id], params: { extra: 'x' } }),
        400,
        'invalid_request',
        'params',
      );
      expect(await getLink(small.id)).toEqual(small);
      expect(await getLink(full.id)).toEqual(full);
      expect(await redirect(small.slug)).toEqual({ status: 302, location: 'https://example.com/small?a=1' });

      // Overwriting an existing key keeps it at 50: fine.
      const ok = await bulkParams({ ids: [small.id, full.id], params: { k0: 'changed' } });
      expectStatus(ok, 200);
      expect(ok.body).toEqual({ updated: 2, notFound: [] });
      expect((await getLink(full.id)).params).toEqual({ ...fifty, k0: 'changed' });
      expect((await getLink(small.id)).params).toEqual({ a: '1', k0: 'changed' });
      // Replace with 50 is fine too (the 50 limit is about the result).
      const replaced = await bulkParams({ ids: [full.id], params: fifty, mode: 'replace' });
      expectStatus(replaced, 200);
    });

    test('the redirect uses the new params immediately', async () => {
      const link = await createLink({ destination: 'https://example.com/p?fixed=1', params: { a: '1' } });
      expect(splitLocation((await redirect(link.slug)).location)).toEqual({
        base: 'https://example.com/p',
        query: [
          ['a', '1'],
          ['fixed', '1'],
        ],
      });

      expectStatus(await bulkParams({ ids: [link.id], params: { a: '2', b: 'x y' } }), 200);
      const merged = await redirect(link.slug);
      expect(merged.status).toBe(302);
      expect(splitLocation(merged.location)).toEqual({
        base: 'https://example.com/p',
        query: [
          ['a', '2'],
          ['b', 'x y'],
          ['fixed', '1'],
        ],
      });

      expectStatus(await bulkParams({ ids: [link.id], params: { c: '3' }, mode: 'replace' }), 200);
      const replaced = await redirect(link.slug);
      expect(replaced.status).toBe(302);
      expect(splitLocation(replaced.location)).toEqual({
        base: 'https://example.com/p',
        query: [
          ['c', '3'],
          ['fixed', '1'],
        ],
      });
      expect(replaced.location).toBe('https://example.com/p?fixed=1&c=3');
    });

    test('variants keep their own params on top of the new link params', async () => {
      const link = await createLink({ destination: 'https://example.com/v', params: { a: '1' } });
      expectStatus(
        await api(t, 'POST', `/links/${link.id}/variants`, {
          key: su,
          body: { code: 'fb', params: { utm_source: 'facebook' } },
        }),
        201,
      );
      expectStatus(await bulkParams({ ids: [link.id], params: { a: '2' } }), 200);
      const res = await redirect(`${link.slug}/fb`);
      expect(res.status).toBe(302);
      expect(splitLocation(res.location)).toEqual({
        base: 'https://example.com/v',
        query: [
          ['a', '2'],
          ['utm_source', 'facebook'],
        ],
      });
    });

    blind('a read key gets 403 and nothing changes', async () => {
      const link = await createLink({ params: { a: '1' } });
      const { key } = await makeKey(t, 'read');
      expectError(await bulkParams({ ids: [link.id], params: { a: '2' } }, key), 403, 'insufficient_scope', null);
      expect(await getLink(link.id)).toEqual(link);
    });
  });

  // ---------------------------------------------------------------------------------------

  describe('POST /links/bulk/project', () => {
    async function projectCounts(): Promise<{ byName: Record<string, number>; unfiled: number; total: number }> {
      const list = await listProjects();
      return {
        byName: Object.fromEntries(list.projects.map((p: any) => [p.name, p.linkCount])),
        unfiled: list.unfiledCount,
        total: list.totalCount,
      };
    }

    test('moves links into a project: moved and unchanged counts, projectName on GET, project counts follow', async () => {
      const p = await createProject('P');
      const q = await createProject('Q');
      const l1 = await createLink({ destination: 'https://example.com/1' });
      const l2 = await createLink({ destination: 'https://example.com/2', projectId: q.id });
      const l3 = await createLink({ destination: 'https://example.com/3', projectId: p.id });
      const other = await createLink({ destination: 'https://example.com/other' });
      expect(await projectCounts()).toEqual({ byName: { P: 1, Q: 1 }, unfiled: 2, total: 4 });

      const res = await bulkProject({ ids: [l1.id, l2.id, l3.id], projectId: p.id });
      expectStatus(res, 200);
      expect(res.body).toEqual({ moved: 2, unchanged: 1, notFound: [] });
      for (const l of [l1, l2, l3])
        expect([(await getLink(l.id)).projectId, (await getLink(l.id)).projectName]).toEqual([p.id, 'P']);
      expect((await getLink(other.id)).projectId).toBeNull();
      expect(await projectCounts()).toEqual({ byName: { P: 3, Q: 0 }, unfiled: 1, total: 4 });

      // The list filter sees them too.
      const listed = await api(t, 'GET', `/links?project=${p.id}`, { key: su });
      expectStatus(listed, 200);
      expect(listed.body.items.map((l: any) => l.id).sort()).toEqual([l1.id, l2.id, l3.id].sort());

      // Sent again: all unchanged.
      const again = await bulkProject({ ids: [l1.id, l2.id, l3.id], projectId: p.id });
      expectStatus(again, 200);
      expect(again.body).toEqual({ moved: 0, unchanged: 3, notFound: [] });
    });

    test('projectId null unfiles', async () => {
      const p = await createProject('P');
      const l1 = await createLink({ projectId: p.id });
      const l2 = await createLink({ projectId: p.id });
      const loose = await createLink({});
      const res = await bulkProject({ ids: [l1.id, loose.id], projectId: null });
      expectStatus(res, 200);
      expect(res.body).toEqual({ moved: 1, unchanged: 1, notFound: [] });
      expect([(await getLink(l1.id)).projectId, (await getLink(l1.id)).projectName]).toEqual([null, null]);
      expect((await getLink(l2.id)).projectName).toBe('P');
      expect(await projectCounts()).toEqual({ byName: { P: 1 }, unfiled: 2, total: 3 });
    });

    blind('an omitted projectId unfiles too', async () => {
      const p = await createProject('P');
      const l1 = await createLink({ projectId: p.id });
      const l2 = await createLink({ projectId: p.id });
      const res = await bulkProject({ ids: [l1.id, l2.id] });
      expectStatus(res, 200);
      expect(res.body).toEqual({ moved: 2, unchanged: 0, notFound: [] });
      expect((await getLink(l1.id)).projectId).toBeNull();
      expect((await getLink(l2.id)).projectId).toBeNull();
      expect(await projectCounts()).toEqual({ byName: { P: 0 }, unfiled: 2, total: 2 });
    });

    test('unknown projectId -> 400 field projectId, nothing changes', async () => {
      const p = await createProject('P');
      const l1 = await createLink({ projectId: p.id });
      const l2 = await createLink({});
      expectError(
        await bulkProject({ ids: [l1.id, l2.id], projectId: 'prj_doesnotexist' }),
        400,
        'invalid_request',
        'projectId',
      );
      expect(await getLink(l1.id)).toEqual(l1);
      expect(await getLink(l2.id)).toEqual(l2);
      expect(await projectCounts()).toEqual({ byName: { P: 1 }, unfiled: 1, total: 2 });
    });

    test('unknown ids are reported in request order, once each; repeated ids count once', async () => {
      const p = await createProject('P');
      const l1 = await createLink({});
      const res = await bulkProject({ ids: ['lnk_gone1', l1.id, l1.id, 'lnk_gone2', 'lnk_gone1'], projectId: p.id });
      expectStatus(res, 200);
      expect(res.body).toEqual({ moved: 1, unchanged: 0, notFound: ['lnk_gone1', 'lnk_gone2'] });
      expect((await getLink(l1.id)).projectName).toBe('P');
      expect(await projectCounts()).toEqual({ byName: { P: 1 }, unfiled: 0, total: 1 });
    });

    test('0 or 201 ids -> 400 field ids, nothing changes; 200 are fine', async () => {
      const p = await createProject('P');
      const created = await createOk({
        text: Array.from({ length: 200 }, (_, i) => `https://example.com/q/${i}`).join('\n'),
      });
      const ids = created.created.map((c: any) => c.link.id);
      expectError(await bulkProject({ ids: [], projectId: p.id }), 400, 'invalid_request', 'ids');
      expectError(await bulkProject({ ids: [...ids, 'lnk_extra'], projectId: p.id }), 400, 'invalid_request', 'ids');
      expect(await projectCounts()).toEqual({ byName: { P: 0 }, unfiled: 200, total: 200 });
      const ok = await bulkProject({ ids, projectId: p.id });
      expectStatus(ok, 200);
      expect(ok.body).toEqual({ moved: 200, unchanged: 0, notFound: [] });
      expect(await projectCounts()).toEqual({ byName: { P: 200 }, unfiled: 0, total: 200 });
    });

    blind('ids missing or not strings -> 400 field ids; projectId a number -> 400 field projectId', async () => {
      const l1 = await createLink({});
      expectError(await bulkProject({ projectId: null }), 400, 'invalid_request', 'ids');
      expectError(await bulkProject({ ids: l1.id }), 400, 'invalid_request', 'ids');
      expectError(await bulkProject({ ids: [7] }), 400, 'invalid_request', 'ids');
      expectError(await bulkProject({ ids: [l1.id], projectId: 7 }), 400, 'invalid_request', 'projectId');
      expect(await getLink(l1.id)).toEqual(l1);
    });

    blind('a read key gets 403 and nothing changes', async () => {
      const p = await createProject('P');
      const l1 = await createLink({});
      const { key } = await makeKey(t, 'read');
      expectError(await bulkProject({ ids: [l1.id], projectId: p.id }, key), 403, 'insufficient_scope', null);
      expect(await getLink(l1.id)).toEqual(l1);
    });
  });
});
