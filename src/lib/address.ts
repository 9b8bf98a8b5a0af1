/**
 * Client addresses in one canonical form, so that one client is one key wherever it is counted
 * (the sign-in and link-password throttles, the API rate limit): the same address written
 * another way (`2001:DB8::1`, `2001:0db8:0:0:0:0:0:1`, `[2001:db8::1]:443`, `fe80::1%eth0`,
 * `::ffff:192.0.2.7`, `192.0.2.7:51234`) must not buy another allowance. IPv4 is dotted decimal;
 * IPv6 is RFC 5952 text (lower case, zeros compressed); an IPv4-mapped IPv6 address is its IPv4
 * address; a zone and a port are dropped. Anything else is not an address (null).
 */

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const HEX_GROUP = /^[0-9a-f]{1,4}$/;

/** The four octets of dotted-decimal IPv4 text, or null (leading zeros are refused: some read them as octal). */
function ipv4Octets(text: string): number[] | null {
  const m = IPV4.exec(text);
  if (m === null) return null;
  const octets: number[] = [];
  for (let i = 1; i <= 4; i++) {
    const part = m[i]!;
    if (part.length > 1 && part[0] === '0') return null;
    const n = Number(part);
    if (n > 255) return null;
    octets.push(n);
  }
  return octets;
}

/** The 8 groups of IPv6 text (lower-cased, no zone), or null. */
function ipv6Groups(text: string): number[] | null {
  let head = text;
  const tail: number[] = [];
  // An IPv4 ending (`::ffff:192.0.2.7`) is two groups.
  const lastColon = head.lastIndexOf(':');
  if (lastColon >= 0 && head.includes('.', lastColon)) {
    const octets = ipv4Octets(head.slice(lastColon + 1));
    if (octets === null) return null;
    tail.push((octets[0]! << 8) | octets[1]!, (octets[2]! << 8) | octets[3]!);
    head = head.slice(0, lastColon + 1);
    // `::1.2.3.4` leaves `::`; `a:b:1.2.3.4` leaves `a:b:`, whose last colon separated the IPv4 part.
    if (!head.endsWith('::')) head = head.slice(0, -1);
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string): number[] | null => {
    if (part === '') return [];
    const groups: number[] = [];
    for (const g of part.split(':')) {
      if (!HEX_GROUP.test(g)) return null;
      groups.push(Number.parseInt(g, 16));
    }
    return groups;
  };
  const left = parse(halves[0]!);
  const right = halves.length === 2 ? parse(halves[1]!) : [];
  if (left === null || right === null) return null;
  const given = left.length + right.length + tail.length;
  if (halves.length === 1) return given === 8 ? [...left, ...tail] : null;
  // `::` stands for at least one group of zeros.
  if (given > 7) return null;
  return [...left, ...Array<number>(8 - given).fill(0), ...right, ...tail];
}

/** RFC 5952 text of 8 groups: lower case, the longest run of two or more zero groups as `::` (the first if tied). */
function ipv6Text(groups: number[]): string {
  let bestAt = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestAt = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestAt < 0) return hex.join(':');
  return `${hex.slice(0, bestAt).join(':')}::${hex.slice(bestAt + bestLength).join(':')}`;
}

/**
 * The canonical form of an address as a socket or a proxy header gives it, or null when the
 * text is not an address. Plain dotted IPv4, what nearly every request carries, is checked first
 * and returned as it is.
 */
export function canonicalAddress(raw: string): string | null {
  let text = raw.trim();
  if (ipv4Octets(text) !== null) return text;
  if (text.startsWith('[')) {
    // `[v6]` or `[v6]:port`
    const end = text.indexOf(']');
    if (end < 0) return null;
    const rest = text.slice(end + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return null;
    text = text.slice(1, end);
  } else if (text.indexOf(':') === text.lastIndexOf(':') && text.includes('.')) {
    // `v4:port`
    const at = text.indexOf(':');
    if (!/^\d{1,5}$/.test(text.slice(at + 1))) return null;
    return ipv4Octets(text.slice(0, at)) === null ? null : text.slice(0, at);
  }
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const groups = ipv6Groups(text.toLowerCase());
  if (groups === null) return null;
  // IPv4-mapped (::ffff:a.b.c.d): the IPv4 client it stands for.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff)
    return `${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`;
  return ipv6Text(groups);
}

/**
 * The key a client address is counted under by the throttles: an IPv4 address itself; an IPv6
 * address its /64 network (`2001:db8:1:2::/64`), since one subscriber or host is commonly given a
 * whole /64 and can use any address in it; `unknown` when there is none. `address` is what
 * `clientAddress` returns (already canonical).
 */
export function throttleKeyOf(address: string | null): string {
  if (address === null) return 'unknown';
  if (!address.includes(':')) return address;
  const groups = ipv6Groups(address);
  if (groups === null) return address;
  return `${ipv6Text([...groups.slice(0, 4), 0, 0, 0, 0])}/64`;
}
