/**
 * POST/GET/DELETE /api/v1/imports and report.csv through real HTTP on both engines, reading
 * another Slink's export served over HTTP: links made by Slink's rules and audited, bad links
 * skipped with their reasons without stopping the run, slugs taken skipped or renamed, a re-run
 * making nothing twice, a dry run writing nothing, cancel, one run at a time per source, 400s
 * naming the field. The token is never stored nor answered.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { OPERATOR } from '../../../src/modules/access/public';
import { createApiKey } from '../../../src/modules/auth/keys';
import { startImport } from '../../../src/modules/imports/public';
import { disposeTestApp, makeAccount, makeTestApp, type TestApp } from '../../helpers/app';
import { SAME_ORIGIN } from '../../helpers/dashboard';
import { engineBlind, forEachEngine } from '../../helpers/engines';
import { sessionFor } from '../../helpers/session';
import { parseCsv } from './e2e-support';
import { ExportServer, ended, header, idOf, linkLine, TOKEN } from './support';

forEachEngine((engine) => {
  let t: TestApp;
  let base: string;
  let admin: string;
  let editor: string;
  const source = new ExportServer();

  beforeAll(async () => {
    t = await makeTestApp({ SLINK_UPSTREAM_ALLOW_PRIVATE: '1' }, { engine });
    t.app.listen({ port: 0, hostname: '127.0.0.1', reusePort: false });
    base = `http://127.0.0.1:${t.app.server!.port}/api/v1`;
    const account = await makeAccount(t, { role: 'admin' });
    admin = (await createApiKey(t.deps, { accountId: account.id, scope: 'write' })).key;
    const editorAccount = await makeAccount(t, { role: 'editor' });
    editor = (await createApiKey(t.deps, { accountId: editorAccount.id, scope: 'write' })).key;
  });
  afterAll(async () => {
    source.stop();
    await disposeTestApp(t);
  });

  async function call(method: string, path: string, body?: unknown, key = admin) {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    let parsed: any = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    return { status: res.status, body: parsed, text, headers: res.headers };
  }

  async function run(body: Record<string, unknown>) {
    const started = await call('POST', '/imports', { source: 'slink', token: TOKEN, domain: 'sl.test', ...body });
    expect({ status: started.status, body: started.body }).toEqual({ status: 202, body: { id: expect.any(String) } });
    const id = started.body.id as string;
    const final = await ended(async () => (await call('GET', `/imports/${id}`)).body);
    return { id, final };
  }

  const report = async (id: string) => {
    const res = await call('GET', `/imports/${id}/report.csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    return parseCsv(res.text);
  };

  test('links become Slink links, audited via api; a re-run makes nothing twice', async () => {
    const lines = [
      linkLine({ slug: 'imp-a', title: 'A', tags: ['x', 'y'], destination: 'https://example.com/a?utm_source=news' }),
      linkLine({ slug: 'imp-b', status: 'archived', expiresAt: Date.UTC(2027, 0, 1), clickLimit: 10 }),
      linkLine({ slug: 'imp-c' }),
    ];
    const { url } = source.serve('plain', [header(), ...lines]);
    const { id, final } = await run({ url });
    expect(final).toEqual({
      id,
      source: 'slink',
      url,
      status: 'done',
      links: { seen: 3, created: 3, skipped: 0, existing: 0, failed: 0 },
      clicks: { imported: 0 },
      errors: [],
      options: { domain: 'sl.test', projectId: null, history: 'clicks', onConflict: 'skip', dryRun: false },
      startedAt: expect.any(Number),
      endedAt: expect.any(Number),
    });
    const a = (await call('GET', '/links?q=imp-a')).body.items[0];
    expect(a).toMatchObject({
      slug: 'imp-a',
      domain: 'sl.test',
      shortUrl: 'https://sl.test/imp-a',
      destination: 'https://example.com/a',
      params: { utm_source: 'news' },
      title: 'A',
      tags: ['x', 'y'],
      status: 'active',
    });
    const b = (await call('GET', '/links?q=imp-b&status=archived')).body.items[0];
    expect(b).toMatchObject({ slug: 'imp-b', status: 'archived', expiresAt: Date.UTC(2027, 0, 1), clickLimit: 10 });
    expect(await report(id)).toEqual([
      ['sourceId', 'outcome', 'shortUrl', 'reason'],
      [idOf(lines[0]!), 'created', 'https://sl.test/imp-a', ''],
      [idOf(lines[1]!), 'created', 'https://sl.test/imp-b', ''],
      [idOf(lines[2]!), 'created', 'https://sl.test/imp-c', ''],
    ]);
    // Every link made is in the audit log, through the API.
    const audit = (await call('GET', `/audit?action=link.create&targetId=${a.id}`)).body.items;
    expect(audit).toEqual([
      expect.objectContaining({ action: 'link.create', via: 'api', target: { type: 'link', id: a.id } }),
    ]);

    t.clock.set(t.clock.now() + 1000);
    const again = await run({ url });
    expect(again.final).toMatchObject({
      status: 'done',
      links: { seen: 3, created: 0, skipped: 3, existing: 3, failed: 0 },
    });
    expect((await report(again.id)).slice(1)).toEqual([
      [idOf(lines[0]!), 'existing', 'https://sl.test/imp-a', 'imported before'],
      [idOf(lines[1]!), 'existing', 'https://sl.test/imp-b', 'imported before'],
      [idOf(lines[2]!), 'existing', 'https://sl.test/imp-c', 'imported before'],
    ]);
    expect((await call('GET', '/links/count?q=imp-')).body.count).toBe(2);
    // The token reached the source and nothing answered it back; the list has both runs, newest first.
    const list = (await call('GET', '/imports')).body.items.map((r: any) => r.id);
    expect(list.indexOf(again.id)).toBeLessThan(list.indexOf(id));
    expect(JSON.stringify((await call('GET', '/imports')).body)).not.toContain(TOKEN);
  });

  test('a link Slink would refuse is skipped with its reason; the run goes on', async () => {
    const lines = [
      linkLine({ slug: 'bad-js', destination: 'javascript:alert(1)' }),
      linkLine({ slug: 'api' }),
      linkLine({ slug: 'has space' }),
      linkLine({ slug: 'bad-self', destination: 'https://sl.test/loop' }),
      linkLine({ slug: 'bad-fallback', fallbackUrl: 'https://sl.test/gone' }),
      linkLine({ slug: 'good-one', title: '=HYPERLINK("x")\u0007 bell' }),
    ];
    const { url } = source.serve('bad', [header(), ...lines]);
    const { id, final } = await run({ url });
    expect(final).toMatchObject({ status: 'done', links: { seen: 6, created: 1, skipped: 5, failed: 0 } });
    expect(final.errors).toEqual([
      { source: idOf(lines[0]!), reason: expect.stringMatching(/^destination: /) },
      { source: idOf(lines[1]!), reason: 'slug: "api" is reserved' },
      { source: idOf(lines[2]!), reason: expect.stringMatching(/^slug: Slug must be/) },
      { source: idOf(lines[3]!), reason: expect.stringMatching(/^destination: Destination points at this Slink/) },
      // The field named once, where the message begins with it.
      { source: idOf(lines[4]!), reason: expect.stringMatching(/^fallbackUrl points at this Slink itself/) },
    ]);
    const rows = await report(id);
    expect(rows.map((r) => r[1])).toEqual([
      'outcome',
      'skipped',
      'skipped',
      'skipped',
      'skipped',
      'skipped',
      'created',
    ]);
    // A title's control characters are cleaned, not refused; CSV cells never start a formula.
    const good = (await call('GET', '/links?q=good-one')).body.items[0];
    expect(good.title).toBe('=HYPERLINK("x")  bell');
  });

  test('a link the database refuses when the page is written fails alone; the page’s others are made', async () => {
    // Refused only when written (after its decision): as a slug another writer took meanwhile.
    const refused = 'https://refused.example/x';
    const pg = engine === 'postgres' ? new (Bun.SQL as any)((t.deps.stores.address as { url: string }).url) : null;
    if (pg)
      await pg.unsafe(
        `ALTER TABLE links ADD CONSTRAINT import_test_refuses CHECK (destination <> '${refused}') NOT VALID`,
      );
    else
      t.deps.db.$client.run(
        `CREATE TRIGGER import_test_refuses BEFORE INSERT ON links WHEN NEW.destination = '${refused}'
         BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
      );
    try {
      const lines = [
        linkLine({ slug: 'row-ok-1' }),
        linkLine({ slug: 'row-refused', destination: refused }),
        linkLine({ slug: 'row-ok-2' }),
      ];
      const { url } = source.serve('row-refused', [header(), ...lines]);
      const { id, final } = await run({ url });
      expect(final).toMatchObject({ status: 'done', links: { seen: 3, created: 2, skipped: 0, failed: 1 } });
      expect(final.errors).toEqual([{ source: idOf(lines[1]!), reason: expect.stringMatching(/refuse/) }]);
      expect((await report(id)).slice(1).map((r) => [r[0], r[1], r[2]])).toEqual([
        [idOf(lines[0]!), 'created', 'https://sl.test/row-ok-1'],
        [idOf(lines[1]!), 'failed', ''],
        [idOf(lines[2]!), 'created', 'https://sl.test/row-ok-2'],
      ]);
      expect((await call('GET', '/links/count?q=row-')).body.count).toBe(2);
    } finally {
      if (pg) {
        await pg.unsafe('ALTER TABLE links DROP CONSTRAINT import_test_refuses');
        await pg.close();
      } else t.deps.db.$client.run('DROP TRIGGER import_test_refuses');
    }
  });

  test('a link whose mapping the database refuses is not made either (one transaction); a re-run makes it once', async () => {
    const lines = [linkLine({ slug: 'map-ok-1' }), linkLine({ slug: 'map-refused' }), linkLine({ slug: 'map-ok-2' })];
    const refused = idOf(lines[1]!);
    const pg = engine === 'postgres' ? new (Bun.SQL as any)((t.deps.stores.address as { url: string }).url) : null;
    const refuse = `CHECK (source_id <> '${refused}') NOT VALID`;
    if (pg) await pg.unsafe(`ALTER TABLE import_links ADD CONSTRAINT import_test_refuses ${refuse}`);
    else
      t.deps.db.$client.run(
        `CREATE TRIGGER import_test_refuses BEFORE INSERT ON import_links WHEN NEW.source_id = '${refused}'
         BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
      );
    const { url } = source.serve('map-refused', [header(), ...lines]);
    try {
      const { final } = await run({ url });
      expect(final).toMatchObject({ status: 'done', links: { seen: 3, created: 2, skipped: 0, failed: 1 } });
      expect(final.errors).toEqual([{ source: refused, reason: expect.stringMatching(/refuse|import_test_refuses/) }]);
      // Its link went with its mapping: none made that a re-run would not know.
      expect((await call('GET', '/links/count?q=map-')).body.count).toBe(2);
    } finally {
      if (pg) {
        await pg.unsafe('ALTER TABLE import_links DROP CONSTRAINT import_test_refuses');
        await pg.close();
      } else t.deps.db.$client.run('DROP TRIGGER import_test_refuses');
    }
    const { final } = await run({ url });
    expect(final).toMatchObject({ status: 'done', links: { seen: 3, created: 1, skipped: 2, failed: 0 } });
    expect((await call('GET', '/links/count?q=map-')).body.count).toBe(3);
  });

  test('a link on a domain that is not Slink’s is skipped unless --domain names one', async () => {
    const lines = [linkLine({ slug: 'elsewhere', domain: 'other.test' })];
    const { url } = source.serve('foreign', [header(), ...lines]);
    const started = await call('POST', '/imports', { source: 'slink', url, token: TOKEN });
    const final = await ended(async () => (await call('GET', `/imports/${started.body.id}`)).body);
    expect(final.errors).toEqual([
      {
        source: idOf(lines[0]!),
        reason: "its domain other.test is not one of this Slink's domains: add it, or name the domain to import into",
      },
    ]);
  });

  test('a slug taken on the target domain is skipped, or renamed with onConflict=rename', async () => {
    expect((await call('POST', '/links', { destination: 'https://example.com/mine', slug: 'taken' })).status).toBe(201);
    const lines = [linkLine({ slug: 'taken', destination: 'https://example.com/theirs' })];
    const { url } = source.serve('conflict', [header(), ...lines]);
    const skipped = await run({ url });
    expect(skipped.final.errors).toEqual([{ source: idOf(lines[0]!), reason: 'slug "taken" is taken on sl.test' }]);
    const renamed = await run({ url, onConflict: 'rename' });
    expect(renamed.final).toMatchObject({ links: { created: 1, skipped: 0 } });
    const [, row] = await report(renamed.id);
    expect(row).toEqual([
      idOf(lines[0]!),
      'created',
      expect.stringMatching(/^https:\/\/sl\.test\/[A-Za-z0-9]{7}$/),
      'slug "taken" was taken: renamed',
    ]);
    const mine = (await call('GET', '/links?q=taken')).body.items.map((l: any) => l.destination);
    expect(mine).toContain('https://example.com/mine');
  });

  test('a source link given again on a later page (its pages shifted) is the same link: existing, never made twice', async () => {
    const again = linkLine({ slug: 'twice' });
    const other = linkLine({ slug: 'twice-next' });
    const click = (text: string) =>
      `${JSON.stringify({ type: 'click', id: 1, linkId: idOf(text), timestamp: Date.UTC(2026, 0, 2) })}\n`;
    // Click lines end a page: the second page gives the first page's link again.
    const { url } = source.serve('shifted', [header(true), again, click(again), again, other]);
    const { id, final } = await run({ url, onConflict: 'rename' });
    expect(final).toMatchObject({ status: 'done', links: { seen: 3, created: 2, skipped: 1, failed: 0 }, errors: [] });
    expect((await report(id)).slice(1)).toEqual([
      [idOf(again), 'created', 'https://sl.test/twice', ''],
      [idOf(again), 'existing', 'https://sl.test/twice', 'imported before'],
      [idOf(other), 'created', 'https://sl.test/twice-next', ''],
    ]);
    expect((await call('GET', '/links/count?q=twice')).body.count).toBe(2);
  });

  test('a dry run decides every link and writes none', async () => {
    const lines = [linkLine({ slug: 'dry-a' }), linkLine({ slug: 'api' })];
    const { url } = source.serve('dry', [header(), ...lines]);
    const { id, final } = await run({ url, dryRun: true });
    expect(final).toMatchObject({
      status: 'done',
      links: { seen: 2, created: 1, skipped: 1 },
      options: { dryRun: true },
    });
    expect((await report(id)).slice(1)).toEqual([
      [idOf(lines[0]!), 'created', 'https://sl.test/dry-a', 'dry run: would be created'],
      [idOf(lines[1]!), 'skipped', '', 'slug: "api" is reserved'],
    ]);
    expect((await call('GET', '/links/count?q=dry-a')).body.count).toBe(0);
    // Nothing was recorded as imported: the real run makes it.
    expect((await run({ url })).final).toMatchObject({ links: { created: 1 } });
  });

  const clickLine = (text: string) =>
    `${JSON.stringify({ type: 'click', id: 1, linkId: idOf(text), timestamp: Date.UTC(2026, 0, 2) })}\n`;

  /** A run of the `slink` source from a file to its end, onto sl.test: what the API says of it. */
  const fileRun = async (file: Blob) => {
    const { id, done } = await startImport(t.deps, OPERATOR, {
      source: 'slink',
      url: null,
      token: null,
      file,
      domain: 'sl.test',
      projectId: null,
      history: 'clicks',
      onConflict: 'skip',
      dryRun: false,
    });
    await done;
    return (await call('GET', `/imports/${id}`)).body;
  };

  /**
   * A file of four links (`<prefix>a0`-`a3` unless given) in two pages, three links and a click
   * then the rest, the second cut by a broken line: a run of it stops after its first page.
   */
  const stoppingFile = (
    prefix: string,
    a = Array.from({ length: 4 }, (_, i) => linkLine({ slug: `${prefix}a${i}` })),
  ) => [header(true), a[0]!, a[1]!, a[2]!, clickLine(a[0]!), a[3]!, 'not json\n'];

  test('DELETE cancels a running import at its next page boundary; a new run resumes after it', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    // Two pages: the export's pages are groups of links followed by their clicks.
    const first = Array.from({ length: 3 }, (_, i) => linkLine({ slug: `cancel-a${i}` }));
    const second = Array.from({ length: 2 }, (_, i) => linkLine({ slug: `cancel-b${i}` }));
    const lines = [header(true), ...first, clickLine(first[0]!), ...second];
    const { url } = source.serve('cancel', lines, { after: 1 + first.length + 1 + 1, release: held });
    const started = await call('POST', '/imports', { source: 'slink', url, token: TOKEN, domain: 'sl.test' });
    const id = started.body.id;
    // The first page is saved (its cursor with it) while the source holds the rest.
    await ended(async () => {
      const r = (await call('GET', `/imports/${id}`)).body;
      return { status: r.links.seen >= 3 ? 'page' : 'running' };
    }, 'the first page');
    const again = await call('POST', '/imports', { source: 'slink', url, token: TOKEN, domain: 'sl.test' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict', field: 'source' });
    const cancelled = await call('DELETE', `/imports/${id}`);
    expect(cancelled.status).toBe(200);
    const final = await ended(async () => (await call('GET', `/imports/${id}`)).body);
    expect(final).toMatchObject({ status: 'cancelled', links: { seen: 3, created: 3 } });
    release();
    // The next run of the source starts where the cancelled one stopped: the second page only.
    const resumed = await run({ url });
    expect(resumed.final).toMatchObject({ status: 'done', links: { seen: 2, created: 2, skipped: 0 } });
    expect((await call('GET', '/links/count?q=cancel-')).body.count).toBe(5);
  });

  test('a stopped run of a file is resumed by the same file only: another file starts at its beginning', async () => {
    const fileA = stoppingFile('file-');
    const fileB = [header(true), ...Array.from({ length: 2 }, (_, i) => linkLine({ slug: `file-b${i}` }))];
    const runOf = (lines: string[]) => fileRun(new Blob(lines));
    // File A stops after its first page.
    expect(await runOf(fileA)).toMatchObject({ status: 'failed', links: { seen: 3, created: 3 } });
    // Another file of the same source: from its start, not from A's position.
    expect(await runOf(fileB)).toMatchObject({ status: 'done', links: { seen: 2, created: 2 } });
    // File A again: from where it stopped (its second page), not from its start.
    expect(await runOf(fileA)).toMatchObject({ status: 'failed', links: { seen: 0, created: 0 } });
    expect((await call('GET', '/links/count?q=file-')).body.count).toBe(5);
  });

  test('a file is read once, hashed as it is read; a stopped run resumes with the same file only', async () => {
    const a = Array.from({ length: 4 }, (_, i) => linkLine({ slug: `once-a${i}` }));
    const fileA = stoppingFile('once-', a);
    // The same but for one byte of a link of its first page (its title).
    const changed = [...fileA];
    changed[2] = a[1]!.replace('"title":null', '"title":"x"');
    expect(changed[2]).not.toBe(a[1]);
    /** A file whose reads are counted: the whole of it (stream) and a part (slice). */
    const counted = (lines: string[]) => {
      const reads = { whole: 0, parts: 0 };
      class CountedBlob extends Blob {
        override stream() {
          reads.whole++;
          return super.stream();
        }
        override slice(start?: number, end?: number) {
          reads.parts++;
          return super.slice(start, end);
        }
      }
      return { file: new CountedBlob(lines), reads };
    };
    const runOf = fileRun;
    const first = counted(fileA);
    expect(await runOf(first.file)).toMatchObject({ status: 'failed', links: { seen: 3, created: 3 } });
    // Read once, by the source: no read of its own for the hash (the parts read are the first
    // bytes of it compared with what earlier runs of the source had read).
    expect(first.reads.whole).toBe(1);
    // A file that differs in what the stopped run had read: from its beginning (its links exist).
    const other = counted(changed);
    expect(await runOf(other.file)).toMatchObject({ status: 'failed', links: { seen: 3, created: 0, skipped: 3 } });
    // The same file: on from the stopped run's position (the newest run of that file), no link twice.
    const same = counted(fileA);
    expect(await runOf(same.file)).toMatchObject({ status: 'failed', links: { seen: 0, created: 0 } });
    // Its first bytes read once more to know it (only as many as the stopped run had read).
    expect({ whole: same.reads.whole, parts: same.reads.parts > 0 }).toEqual({ whole: 1, parts: true });
    expect((await call('GET', '/links/count?q=once-')).body.count).toBe(3);
  });

  test('a stopped run of a file is resumed however many runs of the source came since', async () => {
    const fileA = stoppingFile('many-');
    // Another file with the same first line (the same header), of one link.
    const fileB = [header(true), linkLine({ slug: 'many-b' })];
    const runOf = async (lines: string[]) => {
      // Each run after the last: which is the newest is their start's order.
      t.clock.advance(1);
      return fileRun(new Blob(lines));
    };
    const stopped = await runOf(fileA);
    expect(stopped).toMatchObject({ status: 'failed', links: { seen: 3, created: 3 } });
    // More runs of the source since than a listing holds (100), each a file of the same first line.
    for (let i = 0; i < 120; i++) expect((await runOf(fileB)).status).toBe('done');
    expect((await call('GET', '/imports')).body.items.some((r: any) => r.id === stopped.id)).toBe(false);
    // File A again: from where it stopped (its second page), not from its start.
    expect(await runOf(fileA)).toMatchObject({ status: 'failed', links: { seen: 0, created: 0 } });
    expect((await call('GET', '/links/count?q=many-')).body.count).toBe(4);
  });

  engineBlind(engine)('a file comes as a multipart form, through the API and the dashboard’s door', async () => {
    const lines = [linkLine({ slug: 'uploaded' }), linkLine({ slug: 'uploaded-dry' })];
    const form = (name: string, line: string, dryRun: string) => {
      const data = new FormData();
      data.set('source', 'slink');
      data.set('domain', 'sl.test');
      data.set('dryRun', dryRun);
      data.set('file', new File([header(), line], name, { type: 'application/x-ndjson' }));
      return data;
    };
    const res = await fetch(`${base}/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
      body: form('export.ndjson', lines[0]!, 'false'),
    });
    const started = (await res.json()) as any;
    expect({ status: res.status, started }).toEqual({ status: 202, started: { id: expect.any(String) } });
    const { id } = started as { id: string };
    expect(await ended(async () => (await call('GET', `/imports/${id}`)).body)).toMatchObject({
      status: 'done',
      url: null,
      links: { created: 1 },
    });
    expect((await call('GET', '/links/count?q=uploaded')).body.count).toBe(1);
    // The dashboard's door: a session, from the dashboard itself; another site's form is refused.
    const session = await sessionFor(t, { role: 'admin' });
    const app = `http://127.0.0.1:${t.app.server!.port}/api/app/imports`;
    const cross = await fetch(app, {
      method: 'POST',
      headers: { cookie: session.cookie, 'sec-fetch-site': 'cross-site' },
      body: form('x.ndjson', lines[1]!, 'true'),
    });
    expect(cross.status).toBe(403);
    const door = await fetch(app, {
      method: 'POST',
      headers: { cookie: session.cookie, ...SAME_ORIGIN },
      body: form('x.ndjson', lines[1]!, 'true'),
    });
    expect(door.status).toBe(202);
    const doorId = ((await door.json()) as { id: string }).id;
    const read = async () =>
      (await (await fetch(`${app}/${doorId}`, { headers: { cookie: session.cookie } })).json()) as any;
    expect(await ended(read)).toMatchObject({ status: 'done', options: { dryRun: true }, links: { created: 1 } });
    // A file for a source read through its API is refused naming the field.
    const wrong = await fetch(`${base}/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}` },
      body: (() => {
        const data = form('x.ndjson', lines[1]!, 'false');
        data.set('source', 'kutt');
        return data;
      })(),
    });
    expect(wrong.status).toBe(400);
    expect(((await wrong.json()) as any).error).toMatchObject({ code: 'invalid_request', field: 'file' });
  });

  engineBlind(engine)('an upload past the bound sent without a length is refused 413 as it streams', async () => {
    // Chunked: no content-length for the size check before the body; the bound is counted as it arrives.
    const mib = new Uint8Array(1 << 20).fill(0x61);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent === 0)
          controller.enqueue(
            new TextEncoder().encode(
              '--b0\r\ncontent-disposition: form-data; name="source"\r\n\r\ncsv\r\n' +
                '--b0\r\ncontent-disposition: form-data; name="file"; filename="big.csv"\r\n\r\nurl\r\n',
            ),
          );
        if (sent === 65) {
          controller.enqueue(new TextEncoder().encode('\r\n--b0--\r\n'));
          controller.close();
          return;
        }
        sent++;
        controller.enqueue(mib);
      },
    });
    const res = await fetch(`${base}/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'multipart/form-data; boundary=b0' },
      body,
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as any).error).toMatchObject({ code: 'payload_too_large' });
  });

  engineBlind(engine)(
    'a file of exactly the bound is taken, with the form around it; one byte more is 413',
    async () => {
      // Rows of 32 bytes, the header's included: 64 MiB of them.
      const row = new TextEncoder().encode('https://example.com/bound/00000\n');
      const rows = (bytes: number) => {
        const text = new Uint8Array(bytes).fill(0x61);
        text.set(new TextEncoder().encode('url,slug,title_\n'));
        for (let at = 16; at + row.length <= bytes; at += row.length) text.set(row, at);
        return text;
      };
      const upload = (bytes: number) => {
        const form = new FormData();
        form.set('source', 'csv');
        form.set('dryRun', 'true');
        form.set('file', new Blob([rows(bytes)]), 'bound.csv');
        return fetch(`${base}/imports`, { method: 'POST', headers: { authorization: `Bearer ${admin}` }, body: form });
      };
      const taken = await upload(64 * 1024 * 1024);
      const answer = (await taken.json()) as any;
      expect({ status: taken.status, body: answer }).toEqual({ status: 202, body: { id: expect.any(String) } });
      // Stopped at once: only the size was in question.
      expect((await call('DELETE', `/imports/${answer.id}`)).status).toBe(200);
      await ended(async () => (await call('GET', `/imports/${answer.id}`)).body);
      const refused = await upload(64 * 1024 * 1024 + 1);
      expect({ status: refused.status, code: ((await refused.json()) as any).error.code }).toEqual({
        status: 413,
        code: 'payload_too_large',
      });
    },
  );

  engineBlind(engine)('bad requests are 400 naming the field; editors are refused', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ source: 'nope' }, 'source'],
      [{ source: 'slink', url: 'ftp://x' }, 'url'],
      [{ source: 'slink', url: 'http://127.0.0.1:9', history: 'all' }, 'history'],
      [{ source: 'slink', url: 'http://127.0.0.1:9', onConflict: 'merge' }, 'onConflict'],
      [{ source: 'slink', url: 'http://127.0.0.1:9', domain: 'nowhere.test' }, 'domain'],
      [{ source: 'slink', url: 'http://127.0.0.1:9', projectId: 'prj_none' }, 'projectId'],
      [{ source: 'slink' }, 'file'],
      [{ source: 'csv' }, 'file'],
      [{ source: 'slink', url: 'http://127.0.0.1:9', dryRun: 'yes' }, 'dryRun'],
      [{ source: 'slink', url: `${source.origin}/none`, token: 'wrong' }, 'url'],
    ];
    for (const [body, field] of cases) {
      const res = await call('POST', '/imports', body);
      expect({ body, status: res.status, code: res.body.error?.code, field: res.body.error?.field }).toEqual({
        body,
        status: 400,
        code: 'invalid_request',
        field,
      });
    }
    const { url } = source.serve('refused', [header()]);
    const refused = await call('POST', '/imports', { source: 'slink', url, token: 'wrong' });
    expect(refused.body.error).toMatchObject({ code: 'invalid_request', field: 'token' });
    expect(refused.text).not.toContain('wrong');
    expect((await call('GET', '/imports/imp_none')).status).toBe(404);
    const editorTry = await call('POST', '/imports', { source: 'slink', url }, editor);
    expect(editorTry.status).toBe(403);
  });
});
