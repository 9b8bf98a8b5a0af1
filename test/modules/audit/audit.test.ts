/**
 * The audit log through real HTTP on both engines: each kind of change writes exactly its entry
 * (action, target, fields, actor, via) in the change's own transaction, a refused change writes
 * none, no entry holds a secret; GET /audit's filters, cursor and validation; pruning by the clock.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Pg } from '../../../src/db/postgres/client';
import { DAY_MS } from '../../../src/lib/time';
import { AuditPageModel } from '../../../src/modules/audit/model';
import { AUDIT_PRUNE_ROWS } from '../../../src/modules/audit/prune';
import { api, apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../../helpers/app';
import { dash } from '../../helpers/dashboard';
import { forEachEngine } from '../../helpers/engines';
import { expectError, expectSchema } from '../../helpers/schema';
import { sessionFor, type TestSession } from '../../helpers/session';

interface Entry {
  id: number;
  at: number;
  actor: { accountId: string | null; keyId: string | null };
  via: string;
  action: string;
  target: { type: string; id: string };
  fields: string[];
}

forEachEngine((engine) => {
  let t: TestApp;
  let admin: Awaited<ReturnType<typeof makeKey>>;
  let editor: Awaited<ReturnType<typeof makeKey>>;
  let person: TestSession;

  beforeAll(async () => {
    t = await makeTestApp({ SLINK_WEBHOOKS_ALLOW_PRIVATE: '1' }, { engine });
    admin = await makeKey(t, 'write', { superuser: true });
    editor = await makeKey(t, 'write');
    person = await sessionFor(t, { superuser: true });
  });
  afterAll(() => disposeTestApp(t));

  /** Every entry of a target, newest first (and checked against the published schema). */
  async function entriesOf(targetId: string): Promise<Entry[]> {
    const page = await apiExpecting(t, admin.key, 'GET', `/audit?targetId=${encodeURIComponent(targetId)}`);
    expectSchema(AuditPageModel, page);
    return page.items;
  }

  /** What an entry says, without its id and time. */
  const said = (e: Entry) => ({ action: e.action, target: e.target, fields: e.fields, actor: e.actor, via: e.via });
  const byEditor = () => ({ accountId: editor.account.id, keyId: editor.keyId });
  const byAdmin = () => ({ accountId: admin.account.id, keyId: admin.keyId });

  async function newLink(body: Record<string, unknown> = {}): Promise<{ id: string; slug: string }> {
    return apiExpecting(t, editor.key, 'POST', '/links', { destination: 'https://example.com/a', ...body });
  }

  test('a link created, changed and deleted through the API: one entry each, the fields named', async () => {
    const link = await newLink({ title: 'Hello', tags: ['x'] });
    await apiExpecting(t, editor.key, 'PATCH', `/links/${link.id}`, { title: 'New', status: 'paused', tags: ['y'] });
    await apiExpecting(t, editor.key, 'PATCH', `/links/${link.id}`, { password: 'sesame-secret' });
    // A PATCH that changes nothing writes nothing.
    await apiExpecting(t, editor.key, 'PATCH', `/links/${link.id}`, {});
    await apiExpecting(t, editor.key, 'DELETE', `/links/${link.id}`);
    const entries = await entriesOf(link.id);
    expect(entries.map(said)).toEqual([
      { action: 'link.delete', target: { type: 'link', id: link.id }, fields: [], actor: byEditor(), via: 'api' },
      {
        action: 'link.update',
        target: { type: 'link', id: link.id },
        fields: ['password'],
        actor: byEditor(),
        via: 'api',
      },
      {
        action: 'link.update',
        target: { type: 'link', id: link.id },
        fields: ['status', 'tags', 'title'],
        actor: byEditor(),
        via: 'api',
      },
      {
        action: 'link.create',
        target: { type: 'link', id: link.id },
        fields: ['destination', 'tags', 'title'],
        actor: byEditor(),
        via: 'api',
      },
    ]);
    expect(entries[0]!.at).toBe(t.clock.now());
    // Never the password or its hash: only its name.
    const text = JSON.stringify(entries);
    expect(text).not.toContain('sesame');
    expect(text).not.toContain('argon2');
  });

  test('a change through the dashboard says via dashboard and no key; its delete with clicks too', async () => {
    const headers = { cookie: person.cookie, 'sec-fetch-site': 'same-origin' };
    const created = await api(t, 'POST', '/links', { headers, body: { destination: 'https://example.com/d' } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const gone = await dash(t, 'DELETE', `/links/${id}`, { cookie: person.cookie, body: { slug: created.body.slug } });
    expect(gone.status).toBe(204);
    const actor = { accountId: person.accountId, keyId: null };
    expect((await entriesOf(id)).map(said)).toEqual([
      { action: 'link.delete', target: { type: 'link', id }, fields: [], actor, via: 'dashboard' },
      { action: 'link.create', target: { type: 'link', id }, fields: ['destination'], actor, via: 'dashboard' },
    ]);
  });

  test('bulk verbs: one entry per link changed, none for a link left as it was', async () => {
    const made = await apiExpecting(t, editor.key, 'POST', '/links/bulk/create', {
      text: 'https://example.com/b1\nhttps://example.com/b2',
      tags: ['bulk'],
    });
    const [a, b] = made.created.map((c: { link: { id: string } }) => c.link.id) as [string, string];
    const project = await apiExpecting(t, editor.key, 'POST', '/projects', { name: 'Bulk audit' });
    await apiExpecting(t, editor.key, 'POST', '/links/bulk/params', { ids: [a, b], params: { p: '1' } }, 200);
    await apiExpecting(t, editor.key, 'POST', '/links/bulk/project', { ids: [a, b], projectId: project.id }, 200);
    // The second tags call finds `a` carrying the tag already: only `b` changes then.
    await apiExpecting(t, editor.key, 'POST', '/links/bulk/tags', { ids: [a], add: ['only-a'] }, 200);
    await apiExpecting(t, editor.key, 'POST', '/links/bulk/tags', { ids: [a, b], add: ['only-a'] }, 200);
    await apiExpecting(t, editor.key, 'POST', '/links/bulk/status', { ids: [a, b], status: 'paused' }, 200);
    await apiExpecting(t, editor.key, 'POST', '/links/bulk/delete', { ids: [a, b] }, 200);
    const actionsOf = async (id: string) => (await entriesOf(id)).map((e) => `${e.action} ${e.fields.join(',')}`);
    expect(await actionsOf(a)).toEqual([
      'link.delete ',
      'link.update status',
      'link.update tags',
      'link.update projectId',
      'link.update params',
      'link.create destination,params,tags,title',
    ]);
    expect(await actionsOf(b)).toEqual([
      'link.delete ',
      'link.update status',
      'link.update tags',
      'link.update projectId',
      'link.update params',
      'link.create destination,params,tags,title',
    ]);
  });

  test('a bulk create writes an entry for each link it made, none for a line it skipped', async () => {
    const maker = await makeKey(t, 'write');
    await apiExpecting(t, maker.key, 'POST', '/links', { destination: 'https://example.com/already' });
    const made = await apiExpecting(t, maker.key, 'POST', '/links/bulk/create', {
      text: 'https://example.com/already\nhttps://example.com/fresh-one\nhttps://example.com/fresh-one',
    });
    expect(made.counts).toMatchObject({ created: 1 });
    const mine = (await apiExpecting(t, admin.key, 'GET', `/audit?actor=${maker.account.id}`)).items as Entry[];
    expect(mine.map((e) => [e.action, e.target.id])).toEqual([
      ['link.create', made.created[0].link.id],
      ['link.create', expect.stringMatching(/^lnk_/)],
    ]);
  });

  test('variants and projects: create, update, delete each written once', async () => {
    const link = await newLink();
    const variant = await apiExpecting(t, editor.key, 'POST', `/links/${link.id}/variants`, { code: 'tw' });
    await apiExpecting(t, editor.key, 'PATCH', `/links/${link.id}/variants/${variant.id}`, { params: { a: 'b' } });
    await apiExpecting(t, editor.key, 'DELETE', `/links/${link.id}/variants/${variant.id}`);
    expect((await entriesOf(variant.id)).map((e) => [e.action, e.target.type, e.fields])).toEqual([
      ['variant.delete', 'variant', []],
      ['variant.update', 'variant', ['params']],
      ['variant.create', 'variant', ['code']],
    ]);
    const project = await apiExpecting(t, editor.key, 'POST', '/projects', { name: 'Audited' });
    await apiExpecting(t, editor.key, 'PATCH', `/projects/${project.id}`, { name: 'Audited 2' });
    await apiExpecting(t, editor.key, 'PATCH', `/projects/${project.id}`, { name: 'Audited 2' }); // unchanged
    await apiExpecting(t, editor.key, 'DELETE', `/projects/${project.id}`);
    expect((await entriesOf(project.id)).map((e) => [e.action, e.fields, e.via])).toEqual([
      ['project.delete', [], 'api'],
      ['project.update', ['name'], 'api'],
      ['project.create', ['name'], 'api'],
    ]);
  });

  test('domains: added, changed and deleted, named by host', async () => {
    const host = `audit-${engine}.example`;
    await apiExpecting(t, admin.key, 'POST', '/domains', {
      origin: `https://${host}`,
      rootUrl: 'https://example.com/',
    });
    await apiExpecting(t, admin.key, 'PATCH', `/domains/${host}`, { notFoundUrl: 'https://example.com/404' });
    await apiExpecting(t, admin.key, 'DELETE', `/domains/${host}`);
    expect((await entriesOf(host)).map(said)).toEqual([
      { action: 'domain.delete', target: { type: 'domain', id: host }, fields: [], actor: byAdmin(), via: 'api' },
      {
        action: 'domain.update',
        target: { type: 'domain', id: host },
        fields: ['notFoundUrl'],
        actor: byAdmin(),
        via: 'api',
      },
      {
        action: 'domain.create',
        target: { type: 'domain', id: host },
        fields: ['origin', 'rootUrl'],
        actor: byAdmin(),
        via: 'api',
      },
    ]);
  });

  test('webhooks: create, update, rotate, delete written without any secret; a test send changes nothing', async () => {
    const hook = await apiExpecting(t, admin.key, 'POST', '/webhooks', {
      url: 'http://127.0.0.1:9/hook',
      events: ['link.created'],
    });
    await apiExpecting(t, admin.key, 'PATCH', `/webhooks/${hook.id}`, { description: 'Audit', bots: true });
    const rotated = await apiExpecting(t, admin.key, 'POST', `/webhooks/${hook.id}/rotate-secret`, undefined, 200);
    const tested = await api(t, 'POST', `/webhooks/${hook.id}/test`, { key: admin.key });
    expect(tested.status).toBe(202);
    await apiExpecting(t, admin.key, 'DELETE', `/webhooks/${hook.id}`);
    const entries = await entriesOf(hook.id);
    expect(entries.map((e) => [e.action, e.fields])).toEqual([
      ['webhook.delete', []],
      ['webhook.rotate', ['secret']],
      ['webhook.update', ['bots', 'description']],
      ['webhook.create', ['events', 'url']],
    ]);
    const text = JSON.stringify(entries);
    expect(text).not.toContain(hook.secret);
    expect(text).not.toContain(rotated.secret);
    expect(text).not.toContain('whsec_');
  });

  test('a refused change writes no entry: 409 slug taken, 409 name taken, 404, 403', async () => {
    const before = (await apiExpecting(t, admin.key, 'GET', '/audit?limit=1')).items[0].id;
    await apiExpecting(t, admin.key, 'POST', '/links', { destination: 'https://example.com/', slug: 'taken-audit' });
    const again = await api(t, 'POST', '/links', {
      key: admin.key,
      body: { destination: 'https://example.com/', slug: 'taken-audit' },
    });
    expectError(again, 409, 'conflict', 'slug');
    await apiExpecting(t, admin.key, 'POST', '/projects', { name: 'Twice' });
    expectError(
      await api(t, 'POST', '/projects', { key: admin.key, body: { name: 'twice' } }),
      409,
      'conflict',
      'name',
    );
    expect((await api(t, 'DELETE', '/webhooks/whk_missing', { key: admin.key })).status).toBe(404);
    expect((await api(t, 'POST', '/domains', { key: editor.key, body: { origin: 'https://x.example' } })).status).toBe(
      403,
    );
    const after = (await apiExpecting(t, admin.key, 'GET', '/audit?limit=10')).items as Entry[];
    expect(after.filter((e) => e.id > before).map((e) => e.action)).toEqual(['project.create', 'link.create']);
  });

  describe('the entry is written in the change’s own transaction', () => {
    /** Makes every audit insert of `action` fail in the database, for the duration of `run`. */
    async function failingAudit(action: string, run: () => Promise<void>): Promise<void> {
      const pg = engine === 'postgres' ? pgOf(t) : null;
      if (pg) {
        await pg.unsafe(
          `ALTER TABLE audit_log ADD CONSTRAINT audit_test_refuses CHECK (action <> '${action}') NOT VALID`,
        );
      } else {
        t.deps.db.$client.run(
          `CREATE TRIGGER audit_test_refuses BEFORE INSERT ON audit_log WHEN NEW.action = '${action}'
           BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`,
        );
      }
      try {
        await run();
      } finally {
        if (pg) {
          await pg.unsafe('ALTER TABLE audit_log DROP CONSTRAINT audit_test_refuses');
          await pg.close();
        } else t.deps.db.$client.run('DROP TRIGGER audit_test_refuses');
        t.errors.length = 0; // the 500s this test caused on purpose
      }
    }

    test('a link update whose entry cannot be written does not happen', async () => {
      const link = await newLink({ title: 'Before' });
      await failingAudit('link.update', async () => {
        expect((await api(t, 'PATCH', `/links/${link.id}`, { key: editor.key, body: { title: 'After' } })).status).toBe(
          500,
        );
      });
      expect((await apiExpecting(t, editor.key, 'GET', `/links/${link.id}`)).title).toBe('Before');
    });

    test('a project, a webhook rotation and a domain change whose entry cannot be written do not happen', async () => {
      await failingAudit('project.create', async () => {
        expect((await api(t, 'POST', '/projects', { key: editor.key, body: { name: 'Never' } })).status).toBe(500);
      });
      const projects = await apiExpecting(t, editor.key, 'GET', '/projects');
      expect(projects.projects.some((p: { name: string }) => p.name === 'Never')).toBe(false);
      const hook = await apiExpecting(t, admin.key, 'POST', '/webhooks', {
        url: 'http://127.0.0.1:9/hook',
        events: ['link.created'],
      });
      await failingAudit('webhook.rotate', async () => {
        expect((await api(t, 'POST', `/webhooks/${hook.id}/rotate-secret`, { key: admin.key })).status).toBe(500);
      });
      expect((await apiExpecting(t, admin.key, 'GET', `/webhooks/${hook.id}`)).previousSecretUntil).toBeNull();
      const host = `tx-${engine}.example`;
      await apiExpecting(t, admin.key, 'POST', '/domains', { origin: `https://${host}` });
      await failingAudit('domain.update', async () => {
        const res = await api(t, 'PATCH', `/domains/${host}`, { key: admin.key, body: { rootUrl: 'https://e.com/' } });
        expect(res.status).toBe(500);
      });
      expect((await apiExpecting(t, admin.key, 'GET', `/domains/${host}`)).rootUrl).toBeNull();
    });
  });

  test('filters: actor (id or email), action, targetType, targetId, from/to; newest first; the cursor pages', async () => {
    const reader = await makeKey(t, 'write');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.advance(1000);
      ids.push((await apiExpecting(t, reader.key, 'POST', '/links', { destination: `https://example.com/f${i}` })).id);
    }
    const q = async (query: string) =>
      (await apiExpecting(t, admin.key, 'GET', `/audit?${query}`)) as {
        items: Entry[];
        nextCursor: string | null;
      };
    const mine = await q(`actor=${reader.account.id}`);
    expect(mine.items.map((e) => e.target.id)).toEqual([...ids].reverse());
    expect((await q(`actor=${encodeURIComponent(reader.account.email.toUpperCase())}`)).items).toEqual(mine.items);
    expect((await q('actor=nobody%40example.com')).items).toEqual([]);
    expect((await q(`actor=${reader.account.id}&action=link.update`)).items).toEqual([]);
    expect((await q(`targetType=link&targetId=${ids[2]}`)).items.map((e) => e.target.id)).toEqual([ids[2]!]);
    const third = mine.items[2]!;
    const window = await q(`actor=${reader.account.id}&from=${third.at}&to=${third.at + 1000}`);
    expect(window.items.map((e) => e.target.id)).toEqual([ids[3]!, ids[2]!]);
    // Pages of two: every entry once, in order.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: Entry[]; nextCursor: string | null } = await q(
        `actor=${reader.account.id}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((e) => e.target.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
  });

  test('bad input names its field; only admins read the log', async () => {
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['cursor=nonsense', 'cursor'],
      ['targetType=planet', 'targetType'],
      ['from=yesterday', 'from'],
      ['to=2026-02-30', 'to'],
      ['from=2026-11-22&to=2026-11-21', 'from'],
      ['actor=', 'actor'],
    ] as const) {
      expectError(await api(t, 'GET', `/audit?${query}`, { key: admin.key }), 400, 'invalid_request', field);
    }
    expectError(await api(t, 'GET', '/audit', { key: editor.key }), 403, 'superuser_required');
    expect((await api(t, 'GET', '/audit')).status).toBe(401);
  });

  test('the dashboard’s page names the actor’s email and a link’s slug', async () => {
    const link = await newLink();
    const page = await dash(t, 'GET', `/audit?targetId=${link.id}`, { cookie: person.cookie });
    expect(page.status).toBe(200);
    expect(page.body.items).toMatchObject([
      { action: 'link.create', email: editor.account.email, slug: link.slug, target: { id: link.id } },
    ]);
  });

  test('entries older than 365 days are pruned in steps; newer ones stay', async () => {
    const link = await newLink();
    const at = t.clock.now();
    t.clock.advance(365 * DAY_MS + 1);
    const fresh = await newLink();
    const pruned = await t.deps.auditPruner.step();
    expect(pruned).toBeGreaterThan(0);
    expect(pruned).toBeLessThanOrEqual(AUDIT_PRUNE_ROWS);
    expect(await entriesOf(link.id)).toEqual([]);
    expect((await entriesOf(fresh.id)).map((e) => e.action)).toEqual(['link.create']);
    expect(await t.deps.auditPruner.step()).toBe(0);
    const left = (await apiExpecting(t, admin.key, 'GET', `/audit?to=${at}`)).items;
    expect(left).toEqual([]);
  });
});

/** The pool the PostgreSQL stores use (a test's own statements on the test database). */
function pgOf(t: TestApp): Pg {
  const address = t.deps.stores.address;
  if (address.engine !== 'postgres') throw new Error('not on PostgreSQL');
  return new (Bun.SQL as unknown as new (url: string) => Pg)(address.url);
}
