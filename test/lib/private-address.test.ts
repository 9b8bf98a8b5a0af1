/** The ranges a webhook may not reach unless allowed: each family, and IPv4 hidden inside IPv6. */
import { describe, expect, test } from 'bun:test';
import { isPrivateAddress } from '../../src/lib/private-address';

describe('isPrivateAddress', () => {
  test('refuses loopback, private, link-local, shared, reserved, multicast and documentation IPv4', () => {
    const refused = [
      '0.0.0.0',
      '10.0.0.1',
      '100.64.0.1',
      '100.127.255.255',
      '127.0.0.1',
      '127.255.255.254',
      '169.254.169.254',
      '172.16.0.1',
      '172.31.255.255',
      '192.0.2.10',
      '192.168.1.1',
      '198.18.0.1',
      '198.51.100.7',
      '203.0.113.9',
      '224.0.0.251',
      '255.255.255.255',
    ];
    expect(refused.filter((a) => !isPrivateAddress(a))).toEqual([]);
  });

  test('lets public IPv4 through, right next to the refused ranges too', () => {
    const allowed = [
      '1.1.1.1',
      '8.8.8.8',
      '9.255.255.255',
      '11.0.0.0',
      '100.63.255.255',
      '100.128.0.0',
      '172.15.255.255',
      '172.32.0.0',
      '192.169.0.0',
      '223.255.255.255',
    ];
    expect(allowed.filter((a) => isPrivateAddress(a))).toEqual([]);
  });

  test('refuses IPv6 loopback, unspecified, unique local, link-local, multicast, documentation, Teredo', () => {
    const refused = [
      '::',
      '::1',
      '[::1]',
      'fc00::1',
      'fdff:ffff::1',
      'fe80::1',
      'fe80::1%eth0',
      'febf::1',
      'ff02::1',
      '2001:db8::1',
      '2001::1',
      '100::1',
    ];
    expect(refused.filter((a) => !isPrivateAddress(a))).toEqual([]);
  });

  test('IPv4 inside IPv6 is judged as the IPv4 address it carries', () => {
    expect(
      [
        '::ffff:127.0.0.1',
        '::ffff:7f00:1',
        '::ffff:10.0.0.1',
        '64:ff9b::127.0.0.1',
        '64:ff9b::a9fe:a9fe',
        '2002:c0a8:101::1',
      ].filter((a) => !isPrivateAddress(a)),
    ).toEqual([]);
    expect(['::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1'].filter((a) => isPrivateAddress(a))).toEqual([]);
  });

  test('public IPv6 passes; anything that is not an IP address is refused', () => {
    expect(
      ['2606:4700:4700::1111', '2a00:1450:4001:82a::200e', '2001:4860::8888'].filter((a) => isPrivateAddress(a)),
    ).toEqual([]);
    expect(['localhost', 'example.com', '', '1.2.3', '::g', '999.1.1.1'].filter((a) => !isPrivateAddress(a))).toEqual(
      [],
    );
  });
});
