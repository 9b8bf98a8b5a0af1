/**
 * Destination rules on every path that sets one (POST /links, PATCH /links/{id}, bulk preview
 * and create), through the real app: a destination on Slink's own short or app host, or on the
 * address it listens on, is refused (it would redirect to itself, each hop a recorded click),
 * and of repeated utm_ keys the last one wins.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { networkInterfaces } from 'node:os';
import type { Engine } from '../../src/db/address';
import { api, disposeTestApp, makeKey, makeTestApp, type TestApp } from '../helpers/app';
import { engineBlind, forEachEngine } from '../helpers/engines';
import { expectError } from '../helpers/schema';

interface Ctx {
  t: TestApp;
  key: string;
}

async function open(engine: Engine, env: Record<string, string> = {}): Promise<Ctx> {
  const t = await makeTestApp(env, { engine });
  const { key } = await makeKey(t, 'write', { superuser: true });
  return { t, key };
}

const create = (c: Ctx, destination: string) =>
  api(c.t, 'POST', '/links', { key: c.key, body: { destination, slug: `s${Math.random().toString(36).slice(2, 9)}` } });

async function linkCount(c: Ctx): Promise<number> {
  return (await api(c.t, 'GET', '/links/count?status=active', { key: c.key })).body.count;
}

/** Refused with 400 invalid_request on `destination`, saying it points at this Slink; nothing created. */
async function expectRefused(c: Ctx, destination: string): Promise<void> {
  const before = await linkCount(c);
  const res = await create(c, destination);
  expectError(res, 400, 'invalid_request', 'destination');
  expect(res.body.error.message).toContain('points at this Slink itself');
  expect(await linkCount(c)).toBe(before);
}

async function expectAccepted(c: Ctx, destination: string): Promise<void> {
  const res = await create(c, destination);
  expect({ destination, status: res.status }).toEqual({ destination, status: 201 });
}

forEachEngine((engine) => {
  describe('a destination on Slink itself is refused (short https://sl.test, app https://app.sl.test)', () => {
    let c: Ctx;
    beforeAll(async () => {
      c = await open(engine);
    });
    afterAll(async () => {
      await disposeTestApp(c.t);
    });

    test('the short host and the app host, any case, http or https, default ports either way', async () => {
      for (const destination of [
        'https://sl.test/abc',
        'https://SL.TEST/abc?x=1',
        'http://sl.test/abc',
        'https://sl.test:443/abc',
        'http://sl.test:80/',
        'http://sl.test:443/abc',
        'https://sl.test./abc',
        'https://app.sl.test/api/v1/links',
        'http://App.Sl.Test/app',
      ])
        await expectRefused(c, destination);
    });

    // The words do not depend on the engine.
    engineBlind(engine)(
      'each other URL field on Slink itself is refused naming the field and the loop it would make',
      async () => {
        const post = (extra: Record<string, unknown>) =>
          api(c.t, 'POST', '/links', { key: c.key, body: { destination: 'https://example.com/', ...extra } });
        const patchDomain = (body: Record<string, unknown>) =>
          api(c.t, 'PATCH', '/domains/sl.test', { key: c.key, body });
        const refusals: [string, Promise<any>][] = [
          ['fallbackUrl', post({ fallbackUrl: 'https://sl.test/gone' })],
          ['rules[0].destination', post({ rules: [{ when: {}, destination: 'https://app.sl.test/x' }] })],
          ['rootUrl', patchDomain({ rootUrl: 'https://sl.test/home' })],
          ['notFoundUrl', patchDomain({ notFoundUrl: 'https://sl.test/missing' })],
          ['expiredUrl', patchDomain({ expiredUrl: 'https://sl.test/over' })],
        ];
        const said = [];
        for (const [field, answer] of refusals) {
          const res = await answer;
          expectError(res, 400, 'invalid_request', field);
          said.push(res.body.error.message);
        }
        expect(said).toEqual([
          'fallbackUrl points at this Slink itself (sl.test): the link, once expired or used up, would send its visitors back here in a loop',
          "rules[0].destination points at this Slink itself (app.sl.test): the rule would send the link's visitors back here in a loop",
          "rootUrl points at this Slink itself (sl.test): the domain's root would send its visitors back here in a loop",
          'notFoundUrl points at this Slink itself (sl.test): an unknown slug would send its visitors back here in a loop',
          'expiredUrl points at this Slink itself (sl.test): an expired or used-up link would send its visitors back here in a loop',
        ]);
      },
    );

    test('other hosts, other explicit ports and look-alike names stay allowed', async () => {
      for (const destination of [
        'https://sl.test:8443/abc',
        'http://sl.test:8080/abc',
        'https://www.sl.test/abc',
        'https://sl.test.example/abc',
        'https://other.sl.test/abc',
        'https://example.com/?next=https://sl.test/abc',
      ])
        await expectAccepted(c, destination);
    });

    test('the address it listens on (SLINK_PORT 3000) by any name: loopback, this machine, for links, fallbacks and rules', async () => {
      const machine = Object.values(networkInterfaces())
        .flat()
        .find((i) => i !== undefined && i.family === 'IPv4' && !i.internal);
      for (const destination of [
        'http://127.0.0.1:3000/abc',
        'http://127.1.2.3:3000/',
        'http://2130706433:3000/x',
        'http://[::1]:3000/abc',
        'http://[::ffff:127.0.0.1]:3000/',
        'http://localhost:3000/abc',
        'http://0.0.0.0:3000/',
        ...(machine ? [`http://${machine.address}:3000/abc`] : []),
      ])
        await expectRefused(c, destination);
      for (const destination of ['http://127.0.0.1:3001/abc', 'http://127.0.0.1/abc', 'http://localhost:8080/'])
        await expectAccepted(c, destination);
      const body = (extra: Record<string, unknown>) => ({
        key: c.key,
        body: { destination: 'https://example.com/', ...extra },
      });
      const rule = { when: {}, destination: 'https://example.com/r' };
      expectError(
        await api(c.t, 'POST', '/links', body({ rules: [rule, { when: {}, destination: 'http://127.0.0.1:3000/s' }] })),
        400,
        'invalid_request',
        'rules[1].destination',
      );
      expectError(
        await api(c.t, 'POST', '/links', body({ fallbackUrl: 'http://[::1]:3000/s' })),
        400,
        'invalid_request',
        'fallbackUrl',
      );
    });

    test('PATCH refuses it and changes nothing', async () => {
      const made = await create(c, 'https://example.com/keep');
      expect(made.status).toBe(201);
      const res = await api(c.t, 'PATCH', `/links/${made.body.id}`, {
        key: c.key,
        body: { destination: 'https://sl.test/other', title: 'changed' },
      });
      expectError(res, 400, 'invalid_request', 'destination');
      const after = await api(c.t, 'GET', `/links/${made.body.id}`, { key: c.key });
      expect(after.body).toEqual(made.body);
    });

    test('bulk preview and create report such a line as invalid with its reason; the other lines are created', async () => {
      const text =
        'https://example.com/one\nhttps://sl.test/loop\thome\nhttp://APP.sl.test:80/x\nhttps://sl.test:8443/ok';
      const reason = 'Destination points at this Slink itself (sl.test): a short link to it would redirect to itself';
      const appReason =
        'Destination points at this Slink itself (app.sl.test): a short link to it would redirect to itself';
      const preview = await api(c.t, 'POST', '/links/bulk/preview', { key: c.key, body: { text } });
      expect(preview.status).toBe(200);
      expect(preview.body.lines.map((l: any) => [l.line, l.status, l.message])).toEqual([
        [1, 'create', null],
        [2, 'invalid', reason],
        [3, 'invalid', appReason],
        [4, 'create', null],
      ]);
      expect(preview.body.counts).toEqual({ create: 2, repeat: 0, duplicate: 0, invalid: 2 });
      const created = await api(c.t, 'POST', '/links/bulk/create', { key: c.key, body: { text } });
      expect(created.status).toBe(201);
      expect(created.body.created.map((x: any) => [x.line, x.link.destination])).toEqual([
        [1, 'https://example.com/one'],
        [4, 'https://sl.test:8443/ok'],
      ]);
      expect(created.body.skipped.map((l: any) => [l.line, l.status, l.message])).toEqual([
        [2, 'invalid', reason],
        [3, 'invalid', appReason],
      ]);
      expect(created.body.counts).toEqual({ created: 2, repeat: 0, duplicate: 0, invalid: 2 });
    });
  });

  describe('one host with a port (SLINK_SHORT_HOST=http://localhost:3000): the same name on another port is another service', () => {
    let c: Ctx;
    beforeAll(async () => {
      c = await open(engine, { SLINK_SHORT_HOST: 'http://localhost:3000', SLINK_APP_HOST: '' });
    });
    afterAll(async () => {
      await disposeTestApp(c.t);
    });

    test('port 3000 is refused; the default ports and 3001 are allowed', async () => {
      await expectRefused(c, 'http://localhost:3000/abc');
      await expectRefused(c, 'https://LOCALHOST:3000/');
      await expectAccepted(c, 'http://localhost/abc');
      await expectAccepted(c, 'https://localhost/abc');
      await expectAccepted(c, 'http://localhost:3001/abc');
    });
  });

  describe('an internationalised short host is compared in punycode', () => {
    let c: Ctx;
    beforeAll(async () => {
      c = await open(engine, {
        SLINK_SHORT_HOST: 'https://bücher.example',
        SLINK_APP_HOST: 'https://app.bücher.example',
      });
    });
    afterAll(async () => {
      await disposeTestApp(c.t);
    });

    test('written in Unicode or in punycode, upper or lower case', async () => {
      await expectRefused(c, 'https://BÜCHER.example/x');
      await expectRefused(c, 'https://xn--bcher-kva.example/x');
      await expectRefused(c, 'http://app.bücher.example/app');
      await expectAccepted(c, 'https://bucher.example/x');
    });
  });

  describe('repeated utm_ keys in a destination: the last one wins', () => {
    let c: Ctx;
    beforeAll(async () => {
      c = await open(engine);
    });
    afterAll(async () => {
      await disposeTestApp(c.t);
    });

    test('POST /links, and the redirect applies the winner', async () => {
      const res = await api(c.t, 'POST', '/links', {
        key: c.key,
        body: {
          destination: 'https://example.com/p?utm_source=a&keep=1&utm_source=b&utm_medium=x&utm_medium=',
          slug: 'repeats',
          params: { utm_source: 'body' },
        },
      });
      expect(res.status).toBe(201);
      expect(res.body.destination).toBe('https://example.com/p?keep=1');
      expect(res.body.params).toEqual({ utm_source: 'b', utm_medium: '' });
      const hop = await c.t.app.handle(new Request('https://sl.test/repeats'));
      expect(hop.status).toBe(302);
      expect(hop.headers.get('location')).toBe('https://example.com/p?keep=1&utm_source=b&utm_medium=');
    });

    test('PATCH /links/{id}', async () => {
      const made = await api(c.t, 'POST', '/links', {
        key: c.key,
        body: { destination: 'https://example.com/', params: { utm_campaign: 'spring', ref: 'x' } },
      });
      const res = await api(c.t, 'PATCH', `/links/${made.body.id}`, {
        key: c.key,
        body: { destination: 'https://example.com/q?utm_campaign=one&utm_campaign=two&utm_campaign=three' },
      });
      expect(res.status).toBe(200);
      expect(res.body.destination).toBe('https://example.com/q');
      expect(res.body.params).toEqual({ utm_campaign: 'three', ref: 'x' });
    });

    test('bulk create (and its preview), over the request params', async () => {
      const body = {
        text: 'https://example.com/b?utm_source=first&utm_source=second\nhttps://example.com/c?utm_source=x&utm_source=y',
        params: { utm_source: 'request', utm_medium: 'email' },
      };
      const preview = await api(c.t, 'POST', '/links/bulk/preview', { key: c.key, body });
      expect(preview.body.lines.map((l: any) => l.params)).toEqual([
        { utm_source: 'second', utm_medium: 'email' },
        { utm_source: 'y', utm_medium: 'email' },
      ]);
      const res = await api(c.t, 'POST', '/links/bulk/create', { key: c.key, body });
      expect(res.status).toBe(201);
      expect(res.body.created.map((x: any) => [x.link.destination, x.link.params])).toEqual([
        ['https://example.com/b', { utm_source: 'second', utm_medium: 'email' }],
        ['https://example.com/c', { utm_source: 'y', utm_medium: 'email' }],
      ]);
    });
  });
});
