/**
 * Whether an IP address is one a webhook must not reach unless the operator allows it
 * (SLINK_WEBHOOKS_ALLOW_PRIVATE): loopback, private, link-local, shared (CGNAT), unspecified,
 * multicast, reserved and documentation ranges, in IPv4 and IPv6: every range of IANA's IPv4
 * and IPv6 special-purpose address registries that is not globally reachable, and multicast.
 * IPv4 written inside IPv6 (mapped, NAT64, 6to4) is judged as the IPv4 address it carries, so
 * that `::ffff:127.0.0.1` is as refused as `127.0.0.1`; the translation prefixes meant for one
 * network only (IPv4-translated `::ffff:0:0:0/96`, local-use NAT64 `64:ff9b:1::/48`) are
 * refused whole.
 */
import { isIP } from 'node:net';

/** [first address as a 32-bit number, prefix length] of each refused IPv4 range. */
const V4_RANGES: readonly [string, number][] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services among them
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast among them
];

function v4Number(address: string): number {
  return address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

const V4 = V4_RANGES.map(([first, bits]) => {
  const size = 2 ** (32 - bits);
  return { first: v4Number(first), size };
});

function privateV4(address: string): boolean {
  const n = v4Number(address);
  return V4.some(({ first, size }) => n >= first && n < first + size);
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included). */
function v6Groups(address: string): number[] {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const n = v4Number(text.slice(lastColon + 1));
    tail.push(Math.floor(n / 65536), n % 65536);
    // `::ffff:` is left: its empty last group is dropped by parse.
    text = text.slice(0, lastColon + 1);
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const parse = (part: string) =>
    part === ''
      ? []
      : part
          .split(':')
          .filter((g) => g !== '')
          .map((g) => Number.parseInt(g, 16));
  const left = parse(head);
  const right = [...parse(rest ?? ''), ...tail];
  if (rest === undefined) return [...left, ...right];
  return [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
}

function privateV6(address: string): boolean {
  const g = v6Groups(address);
  const embeddedV4 = (hi: number, lo: number) =>
    privateV4(`${g[hi]! >> 8}.${g[hi]! & 255}.${g[lo]! >> 8}.${g[lo]! & 255}`);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return true; // ::
  if (zeros(0, 7) && g[7] === 1) return true; // ::1
  if (zeros(0, 5) && g[5] === 0xffff) return embeddedV4(6, 7); // ::ffff:a.b.c.d
  if (zeros(0, 6)) return true; // deprecated IPv4-compatible ::a.b.c.d
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return true; // IPv4-translated ::ffff:0:a.b.c.d (SIIT)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return embeddedV4(6, 7); // NAT64
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return true; // local-use NAT64 64:ff9b:1::/48
  if (g[0] === 0x2002) return embeddedV4(1, 2); // 6to4
  // IETF protocol assignments 2001::/23: Teredo, benchmarking, ORCHID, anycast services; none a receiver.
  if (g[0] === 0x2001 && g[1]! < 0x200) return true;
  if (g[0] === 0x2001 && g[1] === 0xdb8) return true; // documentation
  if (g[0] === 0x100 && zeros(1, 3) && g[3]! <= 1) return true; // discard 100::/64, dummy 100:0:0:1::/64
  const first = g[0]!;
  if (first === 0x3fff && g[1]! < 0x1000) return true; // documentation 3fff::/20
  if (first === 0x5f00) return true; // SRv6 SIDs 5f00::/16
  if ((first & 0xfe00) === 0xfc00) return true; // unique local fc00::/7
  if ((first & 0xffc0) === 0xfe80) return true; // link-local fe80::/10
  if ((first & 0xffc0) === 0xfec0) return true; // site-local (deprecated) fec0::/10
  if ((first & 0xff00) === 0xff00) return true; // multicast
  return false;
}

/** Whether `address` (an IP literal) is in a refused range; anything that is not an IP counts as refused. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare.split('%')[0]!);
  if (family === 4) return privateV4(bare);
  if (family === 6) return privateV6(bare);
  return true;
}
