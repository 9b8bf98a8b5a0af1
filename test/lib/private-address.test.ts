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

  test("the rest of IANA's IPv6 special-purpose registry that is not globally reachable is refused", () => {
    const refused = [
      // IPv4-translated ::ffff:0:0:0/96 (SIIT), whatever IPv4 address it carries.
      '::ffff:0:7f00:1',
      '::ffff:0:808:808',
      '::ffff:0:0:0',
      // Local-use IPv4/IPv6 translation 64:ff9b:1::/48, whatever it carries.
      '64:ff9b:1::1',
      '64:ff9b:1::808:808',
      '64:ff9b:1:ffff:ffff:ffff:ffff:ffff',
      // Dummy IPv6 prefix 100:0:0:1::/64.
      '100:0:0:1::1',
      // IETF protocol assignments 2001::/23: benchmarking, ORCHID, the anycast services.
      '2001:2::1',
      '2001:10::1',
      '2001:1ff:ffff::1',
      // Documentation 3fff::/20, SRv6 SIDs 5f00::/16.
      '3fff::1',
      '3fff:fff::1',
      '5f00::1',
      '5f00:ffff::1',
    ];
    expect(refused.filter((a) => !isPrivateAddress(a))).toEqual([]);
    // Right next to them: public.
    expect(
      ['64:ff9b:2::1', '100:0:0:2::1', '2001:200::1', '3fff:1000::1', '3ffe:ffff::1', '5f01::1', '5eff:ffff::1'].filter(
        (a) => isPrivateAddress(a),
      ),
    ).toEqual([]);
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
