/**
 * Host names and origins as domains keep them (docs/behaviour.md, "Short domains"): a host is
 * lowercase, punycode for an internationalised name, without a port; an origin is
 * `http(s)://host[:port]` and nothing else.
 */
import { invalid } from '../../lib/errors';
import { hasControlChars } from '../../lib/text';
import { MAX_ORIGIN_LENGTH } from './model';

/** What a host name may not contain once a port is taken off (URL parsing would take it for more). */
const NOT_A_HOST = /[\s/?#@\\]/;

/**
 * A host name as domains are keyed, from what a client wrote (any case, Unicode or punycode, a
 * port and a trailing dot ignored), or null when it names no host.
 */
export function hostKeyOf(raw: string): string | null {
  if (raw === '' || raw.length > MAX_ORIGIN_LENGTH || hasControlChars(raw) || NOT_A_HOST.test(raw)) return null;
  let url: URL;
  try {
    url = new URL(`http://${raw}`);
  } catch {
    return null;
  }
  const host = url.hostname.endsWith('.') ? url.hostname.slice(0, -1) : url.hostname;
  return host === '' ? null : host;
}

/** IPv4 dotted quads and bracketed IPv6 literals, as URL parsing writes them. */
const IP_LITERAL = /^(?:\d+\.\d+\.\d+\.\d+|\[[0-9a-f:.]+\])$/;

/** Whether a host name (from URL parsing) is one DNS could hold: labels of 1 to 63, 253 in all. */
function isHostName(host: string): boolean {
  if (IP_LITERAL.test(host)) return true;
  if (host.length > 253) return false;
  return host.split('.').every((label) => label.length > 0 && label.length <= 63);
}

/**
 * An origin `http(s)://host[:port]` (a trailing slash allowed), as `{origin, host}`: the origin
 * as URL parsing writes it (lowercase, punycode, a default port dropped). Anything else is 400
 * invalid_request naming `field`.
 */
export function parseOrigin(raw: string, field: string): { origin: string; host: string } {
  if (hasControlChars(raw)) throw invalid(field, `${field} contains control characters`);
  const input = raw.trim();
  if (input === '') throw invalid(field, `${field} is required`);
  if (!/^https?:\/\//i.test(input)) throw invalid(field, `${field} must start with http:// or https://`);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw invalid(field, `${field} is not a valid URL`);
  }
  // Scheme, authority and at most a slash: no path, query or fragment (not even an empty one).
  if (!/^https?:\/\/[^/?#\\]+\/?$/i.test(input))
    throw invalid(field, `${field} must be only a scheme, a host and a port: no path, query or fragment`);
  // Any "@" of the authority, even with nothing before it (URL parsing drops an empty user).
  if (url.username !== '' || url.password !== '' || input.includes('@'))
    throw invalid(field, `${field} must not contain a user name or password`);
  const host = url.hostname;
  if (host === '') throw invalid(field, `${field} must have a host`);
  if (host.endsWith('.')) throw invalid(field, `${field} must name its host without a trailing dot`);
  if (!isHostName(host)) throw invalid(field, `${field} does not name a valid host (${host})`);
  return { origin: url.origin, host };
}
