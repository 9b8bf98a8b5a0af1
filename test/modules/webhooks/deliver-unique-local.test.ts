/**
 * Unique local IPv6 addresses (fc00::/7, the fd00::/8 half being the one networks use) are
 * internal: with private addresses not allowed, a delivery to one is refused before connecting,
 * whether the URL names the address or a host name that resolves to it, and the delivery's
 * error says why (docs/behaviour.md, webhooks).
 *
 * No resolver on this machine can be made to answer an fd00:: address for a name (the only
 * names it knows are in /etc/hosts, all loopback), so the resolver the delivery asks is hooked
 * for one name of the reserved .test domain; every other name still goes to the real one.
 */
import { afterAll, describe, expect, mock, test } from 'bun:test';
import * as dns from 'node:dns/promises';

const NAME = 'receiver.unique-local.test';
const ADDRESS = 'fd00::1';
const realLookup = dns.lookup;
const real = { ...dns };
mock.module('node:dns/promises', () => ({
  ...real,
  lookup: (host: string, options: unknown) =>
    host === NAME ? Promise.resolve([{ address: ADDRESS, family: 6 }]) : realLookup(host, options as never),
}));
afterAll(() => {
  mock.module('node:dns/promises', () => real);
});

// Imported once the resolver is hooked, so the delivery asks the hooked one.
const { deliver } = await import('../../../src/modules/webhooks/deliver');
const { newWebhookSecret } = await import('../../../src/modules/webhooks/signature');

const to = (url: string) =>
  deliver({
    url,
    secret: newWebhookSecret(),
    eventId: 'evt_1',
    body: '{"id":"evt_1"}',
    timestamp: 1_800_000_000,
    allowPrivate: false,
  });

describe('deliver: unique local IPv6 (fd00::/8) is internal', () => {
  test('a host name resolving to fd00::1 is refused at delivery, the error naming the address', async () => {
    const outcome = await to(`http://${NAME}:9/hook`);
    expect(
      { ok: outcome.ok, status: outcome.status, error: outcome.error },
      'a delivery to a name resolving to a unique local address (fd00::/8) is refused when private addresses are not allowed',
    ).toEqual({
      ok: false,
      status: null,
      error: `${NAME} leads to an internal address (${ADDRESS}), refused`,
    });
  });

  test('the address fd00::1 written in the URL is refused at delivery', async () => {
    const outcome = await to('http://[fd00::1]:9/hook');
    expect(
      { ok: outcome.ok, status: outcome.status, error: outcome.error },
      'a delivery to a unique local address (fd00::/8) is refused when private addresses are not allowed',
    ).toEqual({ ok: false, status: null, error: 'fd00::1 is an internal address, refused' });
  });
});
