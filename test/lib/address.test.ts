/**
 * Client addresses in one canonical form (lib/address.ts) and the key the throttles count them
 * under, and the client address read at the edge (http/client.ts): one client is one text, and
 * an X-Forwarded-For entry that is not an address is the proxy's own.
 */
import { describe, expect, test } from 'bun:test';
import { clientAddress } from '../../src/http/client';
import { canonicalAddress, throttleKeyOf } from '../../src/lib/address';

describe('canonicalAddress', () => {
  test('IPv4 as it is; with a port, or inside IPv6 (mapped, in any case or form), the same IPv4', () => {
    const forms = [
      '192.0.2.7',
      ' 192.0.2.7 ',
      '192.0.2.7:51234',
      '::ffff:192.0.2.7',
      '::FFFF:192.0.2.7',
      '::ffff:c000:207',
      '0:0:0:0:0:FFFF:C000:0207',
      '[::ffff:192.0.2.7]:443',
      '[::ffff:192.0.2.7]',
    ];
    expect(forms.map(canonicalAddress)).toEqual(forms.map(() => '192.0.2.7'));
  });

  test('IPv6 in lower case, zeros compressed (RFC 5952), zone and port dropped', () => {
    const forms = [
      '2001:db8::1',
      '2001:DB8::1',
      '2001:0db8:0000:0000:0000:0000:0000:0001',
      '2001:db8:0:0:0:0:0:1',
      '2001:db8::0:1',
      '[2001:db8::1]',
      '[2001:db8::1]:8080',
      '2001:db8::1%eth0',
      '[2001:db8::1%25eth0]:80',
    ];
    expect(forms.map(canonicalAddress)).toEqual(forms.map(() => '2001:db8::1'));
    expect(
      ['2001:db8:0:0:1:0:0:1', '1:0:0:2:0:0:0:3', '2001:db8:0:1:1:1:1:1', '::', '::1', 'FE80::A'].map(canonicalAddress),
    ).toEqual(['2001:db8::1:0:0:1', '1:0:0:2::3', '2001:db8:0:1:1:1:1:1', '::', '::1', 'fe80::a']);
  });

  test('anything else is not an address', () => {
    const junk = [
      '',
      'unknown',
      '_gateway',
      'example.com',
      '1.2.3',
      '256.1.1.1',
      '01.2.3.4',
      '1.2.3.4:',
      '1.2.3.4:port',
      '1::2::3',
      '1:2:3:4:5:6:7:8:9',
      '12345::1',
      '[2001:db8::1',
      '[2001:db8::1]x',
      'g::1',
    ];
    expect(junk.filter((j) => canonicalAddress(j) !== null)).toEqual([]);
  });
});

describe('throttleKeyOf', () => {
  test('IPv4 itself; IPv6 its /64; no address: unknown', () => {
    expect(throttleKeyOf('192.0.2.7')).toBe('192.0.2.7');
    expect(['2001:db8:1:2::1', '2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2:3:4:5:6'].map(throttleKeyOf)).toEqual(
      Array(3).fill('2001:db8:1:2::/64'),
    );
    expect(throttleKeyOf('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(throttleKeyOf('::1')).toBe('::/64');
    expect(throttleKeyOf(null)).toBe('unknown');
  });
});

describe('clientAddress', () => {
  const proxy = { requestIP: () => ({ address: '::ffff:10.0.0.2' }) };
  const from = (forwarded: string) =>
    clientAddress(new Request('http://sl.test/x', { headers: { 'x-forwarded-for': forwarded } }), proxy, 1);

  test('behind a proxy: its entry in canonical form', () => {
    expect(['2001:DB8::1', '[2001:db8::1]:4711', '198.51.100.1, 192.0.2.7:80'].map(from)).toEqual([
      '2001:db8::1',
      '2001:db8::1',
      '192.0.2.7',
    ]);
  });

  test('an entry that is not an address is the proxy’s own address (the socket peer, canonical)', () => {
    expect(['unknown', '192.0.2.7, not-an-ip', '   '].map(from)).toEqual(Array(3).fill('10.0.0.2'));
    expect(clientAddress(new Request('http://sl.test/x'), proxy, 0)).toBe('10.0.0.2');
  });
});
