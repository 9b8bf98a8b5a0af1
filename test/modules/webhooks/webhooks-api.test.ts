/**
 * The webhooks API on each engine: create (the secret once), list, get, change, delete; the
 * scopes; the URL rules, private addresses refused unless allowed (a name resolving to
 * 127.0.0.1 included); re-activation clearing the failure count.
 */
import { afterEach, beforeEach, expect, test } from 'bun:test';
import { api, apiExpecting, disposeTestApp, makeKey, makeTestApp, T0, type TestApp } from '../../helpers/app';
import { forEachEngine } from '../../helpers/engines';
import { expectError } from '../../helpers/schema';

const WEBHOOK_KEYS = [
  'id',
  'url',
  'description',
  'events',
  'bots',
  'active',
  'consecutiveFailures',
  'failingSince',
  'disabledReason',
  'previousSecretUntil',
  'createdAt',
  'updatedAt',
].sort();

let t: TestApp;
let writeKey: string;
let readKey: string;

forEachEngine((engine) => {
  beforeEach(async () => {
    t = await makeTestApp({ SLINK_WEBHOOKS_ALLOW_PRIVATE: '0' }, { engine });
    writeKey = (await makeKey(t, 'write', { superuser: true })).key;
    readKey = (await makeKey(t, 'read', { superuser: true })).key;
  });
  afterEach(() => disposeTestApp(t));

  const write = (method: string, path: string, body?: unknown, status?: number) =>
    apiExpecting(t, writeKey, method, path, body, status);

  test('create answers the webhook with its secret once; list and get never show the secret', async () => {
    const created = await write('POST', '/webhooks', {
      url: 'https://hooks.example.com/slink?x=1',
      events: ['clicks', 'link.created', 'clicks'],
      description: '  CRM  ',
    });
    expect(Object.keys(created).sort()).toEqual([...WEBHOOK_KEYS, 'secret'].sort());
    expect(created).toMatchObject({
      url: 'https://hooks.example.com/slink?x=1',
      // Each once, in the documented order.
      events: ['link.created', 'clicks'],
      description: 'CRM',
      bots: false,
      active: true,
      consecutiveFailures: 0,
      failingSince: null,
      disabledReason: null,
      previousSecretUntil: null,
      createdAt: T0,
      updatedAt: T0,
    });
    expect(created.id).toMatch(/^whk_/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const { secret: _secret, ...shown } = created;
    const got = await apiExpecting(t, readKey, 'GET', `/webhooks/${created.id}`);
    expect(got).toEqual(shown);
    const list = await apiExpecting(t, readKey, 'GET', '/webhooks');
    expect(list).toEqual({ items: [shown] });
    expect(JSON.stringify(list)).not.toContain(created.secret);
  });

  test('PATCH changes only what is sent; active true clears the failures; DELETE removes it', async () => {
    const created = await write('POST', '/webhooks', {
      url: 'https://hooks.example.com/a',
      events: ['clicks'],
      bots: true,
    });
    t.clock.advance(1000);
    const changed = await write('PATCH', `/webhooks/${created.id}`, {
      url: 'https://hooks.example.com/b',
      events: ['link.deleted'],
      description: 'Warehouse',
    });
    expect(changed).toMatchObject({
      url: 'https://hooks.example.com/b',
      events: ['link.deleted'],
      description: 'Warehouse',
      bots: true,
      active: true,
      updatedAt: T0 + 1000,
    });
    // As the sender leaves a webhook it disabled after a day of failures.
    const reason = 'failed for 24 hours without a success; the last: answered 500';
    await t.deps.stores.webhooks.update(created.id, {
      active: false,
      consecutiveFailures: 20,
      failingSince: T0 - 86_400_000,
      disabledReason: reason,
    });
    expect(await write('GET', `/webhooks/${created.id}`)).toMatchObject({
      active: false,
      consecutiveFailures: 20,
      failingSince: T0 - 86_400_000,
      disabledReason: reason,
    });
    expect(await write('PATCH', `/webhooks/${created.id}`, { active: true })).toMatchObject({
      active: true,
      consecutiveFailures: 0,
      failingSince: null,
      disabledReason: null,
    });
    expect(await write('DELETE', `/webhooks/${created.id}`)).toEqual({ id: created.id, deleted: true });
    expectError(await api(t, 'GET', `/webhooks/${created.id}`, { key: writeKey }), 404, 'not_found');
    expectError(await api(t, 'DELETE', `/webhooks/${created.id}`, { key: writeKey }), 404, 'not_found');
    expect(await write('GET', '/webhooks')).toEqual({ items: [] });
  });

  test('a read key reads but cannot change; no key is 401', async () => {
    const created = await write('POST', '/webhooks', { url: 'https://hooks.example.com/a', events: ['clicks'] });
    const body = { url: 'https://hooks.example.com/a', events: ['clicks'] };
    expectError(await api(t, 'POST', '/webhooks', { key: readKey, body }), 403, 'insufficient_scope');
    expectError(
      await api(t, 'PATCH', `/webhooks/${created.id}`, { key: readKey, body: { active: false } }),
      403,
      'insufficient_scope',
    );
    expectError(await api(t, 'DELETE', `/webhooks/${created.id}`, { key: readKey }), 403, 'insufficient_scope');
    // A read key neither learns a new secret nor makes deliveries.
    for (const action of ['rotate-secret', 'test'])
      expectError(
        await api(t, 'POST', `/webhooks/${created.id}/${action}`, { key: readKey }),
        403,
        'insufficient_scope',
      );
    expect((await write('GET', `/webhooks/${created.id}`)).previousSecretUntil).toBeNull();
    expectError(await api(t, 'GET', '/webhooks'), 401, 'key_missing');
    expectError(await api(t, 'POST', `/webhooks/${created.id}/rotate-secret`), 401, 'key_missing');
  });

  test('bad values: 400 naming the field; loopback, private and names leading there refused', async () => {
    const created = await write('POST', '/webhooks', { url: 'https://hooks.example.com/a', events: ['clicks'] });
    const cases: [Record<string, unknown>, string][] = [
      [{ url: 'ftp://hooks.example.com/' }, 'url'],
      [{ url: 'hooks.example.com/x' }, 'url'],
      [{ url: 'https://user:pw@hooks.example.com/' }, 'url'],
      [{ url: 'https://hooks.example.com/\n' }, 'url'],
      [{ url: 42 }, 'url'],
      [{ url: 'http://127.0.0.1:9000/hook' }, 'url'],
      [{ url: 'http://[::1]/hook' }, 'url'],
      [{ url: 'http://10.0.0.8/hook' }, 'url'],
      [{ url: 'http://169.254.169.254/latest/meta-data' }, 'url'],
      [{ url: 'http://[::ffff:127.0.0.1]/hook' }, 'url'],
      // IPv4-translated and local-use NAT64: reserved, whatever they carry.
      [{ url: 'http://[::ffff:0:808:808]/hook' }, 'url'],
      [{ url: 'http://[64:ff9b:1::808:808]/hook' }, 'url'],
      // A name resolving to 127.0.0.1 (/etc/hosts).
      [{ url: 'http://localhost:9000/hook' }, 'url'],
      [{ events: [] }, 'events'],
      [{ events: ['link.clicked'] }, 'events'],
      [{ events: 'clicks' }, 'events'],
      [{ description: 'x'.repeat(501) }, 'description'],
      [{ description: 'a\u0007b' }, 'description'],
      [{ bots: 'yes' }, 'bots'],
    ];
    for (const [over, field] of cases) {
      const body = { url: 'https://hooks.example.com/a', events: ['clicks'], ...over };
      expectError(await api(t, 'POST', '/webhooks', { key: writeKey, body }), 400, 'invalid_request', field);
      expectError(
        await api(t, 'PATCH', `/webhooks/${created.id}`, { key: writeKey, body: over }),
        400,
        'invalid_request',
        field,
      );
    }
    expectError(
      await api(t, 'PATCH', `/webhooks/${created.id}`, { key: writeKey, body: { active: 1 } }),
      400,
      'invalid_request',
      'active',
    );
    expect((await write('GET', '/webhooks')).items).toHaveLength(1);
  });

  test('a name that does not resolve is accepted: nothing to check until it does, and each delivery checks', async () => {
    const created = await write('POST', '/webhooks', { url: 'https://no-such-host.invalid/hook', events: ['clicks'] });
    expect(created.url).toBe('https://no-such-host.invalid/hook');
  });

  test('SLINK_WEBHOOKS_ALLOW_PRIVATE=1 lets loopback and private receivers in', async () => {
    disposeTestApp(t);
    t = await makeTestApp({ SLINK_WEBHOOKS_ALLOW_PRIVATE: '1' }, { engine });
    writeKey = (await makeKey(t, 'write', { superuser: true })).key;
    for (const url of ['http://127.0.0.1:9000/hook', 'http://localhost:9000/hook', 'http://10.0.0.8/hook'])
      expect((await write('POST', '/webhooks', { url, events: ['clicks'] })).url).toBe(url);
  });

  test('a workspace holds at most 50 webhooks: 409 beyond', async () => {
    for (let i = 0; i < 50; i++)
      await t.deps.stores.webhooks.insert({
        id: `whk_${String(i).padStart(16, '0')}`,
        url: `https://hooks.example.com/${i}`,
        description: null,
        events: ['clicks'],
        bots: false,
        secret: 'whsec_AAAA',
        previousSecret: null,
        previousSecretUntil: null,
        active: true,
        consecutiveFailures: 0,
        failingSince: null,
        disabledReason: null,
        createdAt: T0,
        updatedAt: T0,
      });
    const res = await api(t, 'POST', '/webhooks', {
      key: writeKey,
      body: { url: 'https://hooks.example.com/x', events: ['clicks'] },
    });
    expectError(res, 409, 'conflict', 'url');
  });
});
