/**
 * The link-rule fields through the real API, on each engine: password (write-only, stored as
 * argon2id, read back as passwordProtected), rules and preview (checked, normalized, stored,
 * read back, removed), the 400s naming the field, and the slug index carrying them.
 */
import { afterEach, beforeEach, expect, test } from 'bun:test';
import { HAS_PASSWORD, HAS_PREVIEW, HAS_RULES } from '../../src/modules/redirect/link-table';
import { api, apiExpecting, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../helpers/app';
import { forEachEngine } from '../helpers/engines';
import { expectError } from '../helpers/schema';

let t: TestApp;
let su: string;

forEachEngine((engine) => {
  beforeEach(async () => {
    t = await makeTestApp({}, { engine });
    su = (await makeKey(t, 'write', { superuser: true })).key;
  });
  afterEach(() => disposeTestApp(t));

  const write = (method: string, path: string, body?: unknown, status?: number) =>
    apiExpecting(t, su, method, path, body, status);
  const newLink = (body: Record<string, unknown>) =>
    write('POST', '/links', { destination: 'https://example.com/l', ...body });
  const extrasOf = (slug: string) => t.deps.linkIndex.table.extras[t.deps.linkIndex.find(slug)];
  const storedHash = async (id: string) =>
    (await t.deps.stores.links.redirectRows([id])).map((row) => row.passwordHash)[0] ?? null;

  test('defaults: no password, no rules, no preview; nothing extra in the slug index', async () => {
    const link = await newLink({ slug: 'plain' });
    expect({ passwordProtected: link.passwordProtected, rules: link.rules, preview: link.preview }).toEqual({
      passwordProtected: false,
      rules: [],
      preview: null,
    });
    expect(link.password).toBeUndefined();
    expect(extrasOf('plain')).toBe(0);
  });

  test('password: write-only, stored as argon2id (salted), removed with null', async () => {
    const link = await newLink({ slug: 'locked', password: 'correct horse' });
    expect(link.passwordProtected).toBe(true);
    expect(JSON.stringify(link)).not.toContain('correct horse');
    const hash = (await storedHash(link.id)) ?? '';
    expect(hash.startsWith('$argon2id$')).toBe(true);
    expect(await Bun.password.verify('correct horse', hash)).toBe(true);
    expect(extrasOf('locked')).toBe(HAS_PASSWORD);
    expect(t.deps.linkIndex.table.passwordHash.get(t.deps.linkIndex.find('locked'))).toBe(hash);

    const read = await write('GET', `/links/${link.id}`);
    expect({ passwordProtected: read.passwordProtected, password: read.password }).toEqual({
      passwordProtected: true,
      password: undefined,
    });
    // A new password is a new salt: the hash changes even for the same text.
    await write('PATCH', `/links/${link.id}`, { password: 'correct horse' });
    expect(await storedHash(link.id)).not.toBe(hash);
    const other = await write('PATCH', `/links/${link.id}`, { title: 'kept' });
    expect(other.passwordProtected).toBe(true);
    const removed = await write('PATCH', `/links/${link.id}`, { password: null });
    expect(removed.passwordProtected).toBe(false);
    expect(await storedHash(link.id)).toBeNull();
    expect(extrasOf('locked')).toBe(0);
  });

  test('rules: normalized (trimmed, repeats dropped, utm_ keys into params), read back, replaced, removed with []', async () => {
    const rules = [
      {
        when: { device: [' mobile ', 'Mobile', 'tablet'], country: ['de'], query: { ref: null, plan: 'Pro' } },
        destination: 'https://example.com/app?utm_source=rule&x=1',
        params: { utm_medium: 'phone' },
      },
      { when: { after: 1000, before: 2000, language: ['fr'] }, destination: 'https://example.fr/' },
      { when: {}, destination: 'https://example.com/everyone-else' },
    ];
    const link = await newLink({ slug: 'ruled', rules });
    const expected = [
      {
        when: { device: ['mobile', 'tablet'], country: ['de'], query: { ref: null, plan: 'Pro' } },
        destination: 'https://example.com/app?x=1',
        params: { utm_medium: 'phone', utm_source: 'rule' },
      },
      { when: { language: ['fr'], after: 1000, before: 2000 }, destination: 'https://example.fr/' },
      { when: {}, destination: 'https://example.com/everyone-else' },
    ];
    expect(link.rules).toEqual(expected);
    expect((await write('GET', `/links/${link.id}`)).rules).toEqual(expected);
    expect(extrasOf('ruled')).toBe(HAS_RULES);
    expect(t.deps.linkIndex.table.rules.get(t.deps.linkIndex.find('ruled'))?.source).toEqual(expected);

    const replaced = await write('PATCH', `/links/${link.id}`, { rules: [expected[2]] });
    expect(replaced.rules).toEqual([expected[2]]);
    const removed = await write('PATCH', `/links/${link.id}`, { rules: [] });
    expect(removed.rules).toEqual([]);
    expect(extrasOf('ruled')).toBe(0);
  });

  test('preview: title required, description and image optional, removed with null', async () => {
    const link = await newLink({
      slug: 'shown',
      preview: { title: ' Spring sale ', description: 'Up to 50% <off>', image: 'https://cdn.example.com/a b.png' },
    });
    expect(link.preview).toEqual({
      title: 'Spring sale',
      description: 'Up to 50% <off>',
      image: 'https://cdn.example.com/a%20b.png',
    });
    expect(extrasOf('shown')).toBe(HAS_PREVIEW);
    const titleOnly = await write('PATCH', `/links/${link.id}`, { preview: { title: 'Only a title' } });
    expect(titleOnly.preview).toEqual({ title: 'Only a title' });
    expect((await write('GET', `/links/${link.id}`)).preview).toEqual({ title: 'Only a title' });
    const both = await write('PATCH', `/links/${link.id}`, {
      password: 'pass-word-1',
      rules: [{ when: {}, destination: 'https://example.com/r' }],
    });
    expect(extrasOf('shown')).toBe(HAS_PASSWORD | HAS_PREVIEW | HAS_RULES);
    expect(both.preview).toEqual({ title: 'Only a title' });
    expect((await write('PATCH', `/links/${link.id}`, { preview: null })).preview).toBeNull();
    expect(extrasOf('shown')).toBe(HAS_PASSWORD | HAS_RULES);
  });

  test('bad values: 400 invalid_request naming the field, on create and on PATCH', async () => {
    const link = await newLink({ slug: 'target' });
    const cases: [Record<string, unknown>, string][] = [
      [{ password: 'short' }, 'password'],
      [{ password: 'x'.repeat(129) }, 'password'],
      [{ password: 12345678 }, 'password'],
      [{ password: 'line\nbreak!' }, 'password'],
      [{ rules: 'all' }, 'rules'],
      [{ rules: Array.from({ length: 21 }, () => ({ when: {}, destination: 'https://example.com/' })) }, 'rules'],
      [{ rules: [{ when: {}, destination: 'ftp://example.com/' }] }, 'rules[0].destination'],
      [
        {
          rules: [
            { when: {}, destination: 'https://example.com/' },
            { when: {}, destination: 'https://sl.test/x' },
          ],
        },
        'rules[1].destination',
      ],
      [{ rules: [{ when: { country: ['Germany'] }, destination: 'https://example.com/' }] }, 'rules[0].when.country'],
      [{ rules: [{ when: { device: [''] }, destination: 'https://example.com/' }] }, 'rules[0].when.device'],
      [
        { rules: [{ when: { referrer: ['https://x.com/'] }, destination: 'https://example.com/' }] },
        'rules[0].when.referrer',
      ],
      [{ rules: [{ when: { after: 5, before: 5 }, destination: 'https://example.com/' }] }, 'rules[0].when.before'],
      [{ rules: [{ when: {}, destination: 'https://example.com/', params: { '': 'x' } }] }, 'rules[0].params'],
      [{ rules: [{ when: { weekday: ['mon'] }, destination: 'https://example.com/' }] }, 'rules[0].when.weekday'],
      [{ rules: [{ when: { device: 'mobile' }, destination: 'https://example.com/' }] }, 'when.device'],
      [{ rules: [{ when: { language: ['x'.repeat(257)] }, destination: 'https://example.com/' }] }, 'when.language'],
      [{ rules: [{ when: { os: Array(51).fill('iOS') }, destination: 'https://example.com/' }] }, 'when.os'],
      [{ rules: [{ when: { after: -1 }, destination: 'https://example.com/' }] }, 'when.after'],
      [{ rules: [{ when: { query: { a: 1 } }, destination: 'https://example.com/' }] }, 'when.query'],
      [{ rules: [{ destination: 'https://example.com/' }] }, 'when'],
      [{ preview: 'yes' }, 'preview'],
      [{ preview: { title: '' } }, 'preview.title'],
      [{ preview: { title: 'x'.repeat(201) } }, 'preview.title'],
      [{ preview: { title: 'ok', description: 'x'.repeat(1001) } }, 'preview.description'],
      [{ preview: { title: 'ok', image: 'javascript:alert(1)' } }, 'preview.image'],
      [{ preview: { title: 'ok', image: '/relative.png' } }, 'preview.image'],
    ];
    for (const [body, field] of cases) {
      const created = await api(t, 'POST', '/links', {
        key: su,
        body: { destination: 'https://example.com/', ...body },
      });
      expectError(created, 400, 'invalid_request', field);
      expectError(await api(t, 'PATCH', `/links/${link.id}`, { key: su, body }), 400, 'invalid_request', field);
    }
    const after = await write('GET', `/links/${link.id}`);
    expect({ passwordProtected: after.passwordProtected, rules: after.rules, preview: after.preview }).toEqual({
      passwordProtected: false,
      rules: [],
      preview: null,
    });
  });
});
